package milter

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/frontend"
)

// vacation is an auto-reply from bob@remote.example to alice, answering
// inReplyTo; marked adds RFC 3834's Auto-Submitted field.
func vacation(inReplyTo string, marked bool) []byte {
	var b strings.Builder
	b.WriteString("From: Bob <bob@remote.example>\r\nTo: alice@example.org\r\n")
	if marked {
		b.WriteString("Subject: Out of office: quarterly report\r\nAuto-Submitted: auto-replied\r\n")
	} else {
		b.WriteString("Subject: Re: quarterly report\r\n")
	}
	fmt.Fprintf(&b, "In-Reply-To: <%s>\r\nReferences: <%s>\r\nMessage-ID: <reply.%d@remote.example>\r\n", inReplyTo, inReplyTo, len(inReplyTo))
	b.WriteString("Date: Mon, 2 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n")
	if marked {
		b.WriteString("I am out of the office until Monday and will reply to your message then.\r\n")
	} else {
		b.WriteString("Thanks, I had a look: the figures on page 3 look wrong to me.\r\n")
	}
	return []byte(b.String())
}

// challenge is a challenge-response filter's request to confirm a message,
// quoting the original's header.
func challenge(origMsgID string) []byte {
	return []byte(strings.ReplaceAll(`From: "Mail Guard" <confirm@guard.remote.example>
To: alice@example.org
Subject: Please confirm your message to carol@remote.example
Auto-Submitted: auto-replied
Message-ID: <challenge.1@guard.remote.example>
Date: Mon, 2 Nov 2026 10:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

Your message to carol@remote.example is held until you confirm that you are a
person: reply to this message to have it delivered.

--b1
Content-Type: text/rfc822-headers

From: alice@example.org
To: carol@remote.example
Subject: quarterly report
Message-ID: <`+origMsgID+`>
Date: Mon, 2 Nov 2026 09:59:59 +0000

--b1--
`, "\n", "\r\n"))
}

// The five acceptance cases of the evidence beyond bounces, through a milter
// socket: automatic replies judged by the Message-IDs they answer, a
// person's reply left alone, a challenge judged by its quoted original, and
// a bounce to a receive-only address.
func TestAutoRepliesAndReceiveOnlyThroughTheMilter(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	retention := 300 * time.Millisecond
	ev := &frontend.Evidence{Retention: retention, ReceiveOnly: []string{"noreply@example.org"}}
	_, addr := startServer(t, Config{Evidence: ev}, l)
	c := newClient(addr)

	sub := dial(t, c, "198.51.100.7")
	defer sub.close()
	if _, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"}, auth: "alice",
		raw: plain("alice@example.org", "bob@remote.example", "sent.1@example.org")}); err != nil {
		t.Fatal(err)
	}
	waitRecorded(t, l, "sent.1@example.org")
	// The ledger, opened now, covers a retention period once it has passed.
	time.Sleep(retention + 50*time.Millisecond)

	mx := dial(t, c, "203.0.113.25")
	defer mx.close()
	for _, tc := range []struct {
		name   string
		from   string
		rcpt   string
		raw    []byte
		want   string // X-NDR-Backscatter; "" for no X-NDR field at all
		status string // a part of X-NDR-Status
	}{
		{"a vacation reply to a Message-ID of ours never sent", "bob@remote.example", "alice@example.org",
			vacation("never.sent.9@example.org", true), "yes; evidence=in-reply-to", "kind=autoreply"},
		{"a vacation reply to a message we sent", "bob@remote.example", "alice@example.org",
			vacation("sent.1@example.org", true), "no; evidence=in-reply-to", "kind=autoreply"},
		{"a person's reply to an unknown Message-ID", "bob@remote.example", "alice@example.org",
			vacation("never.sent.9@example.org", false), "", ""},
		{"a challenge quoting a never-sent original", "confirm@guard.remote.example", "alice@example.org",
			challenge("forged.42@example.org"), "yes; evidence=in-reply-to", "kind=autoreply"},
		{"a bounce to a receive-only address, with no reference", "", "noreply@example.org",
			[]byte(strings.Replace(strings.Replace(string(report("x@y", "noreply@example.org", "carol@remote.example", "5.1.1", "550 5.1.1 no such user")),
				"Message-ID: <x@y>\r\n", "", 1), "with ESMTPSA id 4ORIGxy\r\n", "with ESMTPSA\r\n", 1)),
			"yes; evidence=never-sends", "status=5.1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := mx.send(envelope{from: tc.from, rcpts: []string{tc.rcpt}, raw: tc.raw})
			if err != nil {
				t.Fatal(err)
			}
			if !r.passed() {
				t.Fatalf("action %c, want the message passed", r.act.Code)
			}
			a := apply(tc.raw, r.mods)
			got := a.get("X-NDR-Backscatter")
			if tc.want == "" {
				for _, f := range a.fields {
					if strings.HasPrefix(strings.ToLower(f[0]), "x-ndr-") {
						t.Fatalf("a person's reply got %s: %s", f[0], f[1])
					}
				}
				return
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("X-NDR-Backscatter = %q, want [%s]", got, tc.want)
			}
			st := a.get("X-NDR-Status")
			if len(st) != 1 || !strings.Contains(unfoldV(st[0]), tc.status) {
				t.Fatalf("X-NDR-Status = %q, want one with %s", st, tc.status)
			}
			if tc.status == "kind=autoreply" {
				if ex := a.get("X-NDR-Explanation"); len(ex) != 0 {
					t.Fatalf("an auto-reply got X-NDR-Explanation %q", ex)
				}
			}
		})
	}
}
