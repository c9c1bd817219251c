package filter

import (
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/frontend"
)

// testBATV signs with one key of the tests.
func testBATV() *frontend.BATV {
	return &frontend.BATV{
		Signer:             &batv.Signer{Keys: []batv.Key{{ID: 3, Secret: []byte("the filter test's secret, 32 bytes")}}, SignKey: 3},
		ExemptDestinations: []string{"@lists.remote.example"},
	}
}

// With BATV, outbound mail leaves with a prvs= MAIL FROM (but to an exempt
// destination), is recorded under the plain sender, and a bounce to the
// signed address goes on to the plain one, judged no; a forged tag is yes.
func TestFilterBATV(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	b := testBATV()
	_, addr := startFilter(t, Config{Next: k.addr, Evidence: &frontend.Evidence{BATV: b}}, l)

	out := dialRaw(t, addr)
	out.must(250, "EHLO submit.example.org")
	out.must(250, "XFORWARD NAME=submit.example.org ADDR=127.0.0.1 PROTO=ESMTP HELO=laptop SOURCE=LOCAL")
	out.must(250, "MAIL FROM:<alice@example.org>")
	out.must(250, "RCPT TO:<bob@remote.example>")
	if code, text := out.data(plain("alice@example.org", "bob@remote.example", "batv.1@example.org")); code != 250 {
		t.Fatalf("outbound: %d %s", code, text)
	}
	out.must(250, "MAIL FROM:<alice@example.org>")
	out.must(250, "RCPT TO:<dev@lists.remote.example>")
	if code, text := out.data(plain("alice@example.org", "dev@lists.remote.example", "batv.2@example.org")); code != 250 {
		t.Fatalf("outbound to a list: %d %s", code, text)
	}
	msgs := k.messages()
	if len(msgs) != 2 {
		t.Fatalf("the next hop got %d messages, want 2", len(msgs))
	}
	signed := msgs[0].from
	if plainAddr, res := b.Signer.Verify(signed); res != batv.Valid || plainAddr != "alice@example.org" {
		t.Fatalf("MAIL FROM at the next hop %q: want a valid prvs= tag of alice@example.org (%s)", signed, res)
	}
	if msgs[1].from != "alice@example.org" {
		t.Fatalf("MAIL FROM to an exempt destination %q, want it unsigned", msgs[1].from)
	}
	if rec := waitRecorded(t, l, "batv.1@example.org"); rec.Sender != "alice@example.org" {
		t.Fatalf("recorded sender %q, want the plain address", rec.Sender)
	}

	in := dialRaw(t, addr)
	in.must(250, "EHLO mx.remote.example")
	in.must(250, "XFORWARD NAME=mx.remote.example ADDR=203.0.113.25 PROTO=ESMTP HELO=mx.remote.example SOURCE=REMOTE")
	for _, tc := range []struct {
		name, rcpt, wantRcpt, want string
	}{
		{"a valid tag", signed, "alice@example.org", "no; evidence=batv"},
		{"a forged tag", "prvs=3" + signed[6:9] + "abcdef=alice@example.org", "prvs=3" + signed[6:9] + "abcdef=alice@example.org", "yes; evidence=batv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(k.messages())
			in.must(250, "MAIL FROM:<>")
			in.must(250, "RCPT TO:<%s>", tc.rcpt)
			// The original's Message-ID and recipient are ones the ledger
			// lacks: the tag decides.
			raw := report("unknown.7@example.org", "alice@example.org", "carol@remote.example", "5.1.1", "550 5.1.1 no such user")
			if code, text := in.data(raw); code != 250 {
				t.Fatalf("bounce: %d %s", code, text)
			}
			got := k.messages()[n]
			if strings.Join(got.rcpts, ",") != tc.wantRcpt {
				t.Fatalf("RCPT at the next hop %q, want %q", got.rcpts, tc.wantRcpt)
			}
			if h := headerLines(got.data, "X-NDR-Backscatter"); len(h) != 1 || h[0] != "X-NDR-Backscatter: "+tc.want {
				t.Fatalf("X-NDR-Backscatter = %q, want %q", h, tc.want)
			}
		})
	}
}

// A vacation reply from an ordinary sender is judged by the Message-ID it
// answers, the same as in the milter.
func TestFilterAutoReplyJudged(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	retention := 200 * time.Millisecond
	_, addr := startFilter(t, Config{Next: k.addr, Evidence: &frontend.Evidence{Retention: retention}}, l)
	time.Sleep(retention + 50*time.Millisecond)
	in := dialRaw(t, addr)
	in.must(250, "EHLO mx.remote.example")
	in.must(250, "XFORWARD NAME=mx.remote.example ADDR=203.0.113.25 PROTO=ESMTP HELO=mx.remote.example SOURCE=REMOTE")
	in.must(250, "MAIL FROM:<bob@remote.example>")
	in.must(250, "RCPT TO:<alice@example.org>")
	msg := []byte("From: bob@remote.example\r\nTo: alice@example.org\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n" +
		"In-Reply-To: <never.sent.3@example.org>\r\nMessage-ID: <vac.3@remote.example>\r\n\r\nI am away until Monday.\r\n")
	if code, text := in.data(msg); code != 250 {
		t.Fatalf("auto-reply: %d %s", code, text)
	}
	got := k.messages()[0].data
	if h := headerLines(got, "X-NDR-Backscatter"); len(h) != 1 || h[0] != "X-NDR-Backscatter: yes; evidence=in-reply-to" {
		t.Fatalf("X-NDR-Backscatter = %q, want yes; evidence=in-reply-to", h)
	}
	if h := headerLines(got, "X-NDR-Explanation"); len(h) != 0 {
		t.Fatalf("an auto-reply got X-NDR-Explanation %q", h)
	}
}
