package milter

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
	dto "github.com/prometheus/client_model/go"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
)

var owners = map[string]bool{"sender": true, "sender-admin": true, "recipient": true, "recipient-admin": true,
	"group-owner": true, "none": true, "unknown": true}

// TestFixtureParses guards the fixtures: the bounce the tests send must read
// as a bounce with the failed recipient and the original Message-ID.
func TestFixtureParses(t *testing.T) {
	rep, err := dsn.Parse(report("orig.1@example.org", "alice@example.org", "nobody@remote.example", "5.1.1", "550 5.1.1 <nobody@remote.example>: Recipient address rejected: User unknown"))
	if err != nil {
		t.Fatalf("dsn.Parse: %v", err)
	}
	if rep.Kind != dsn.KindBounce || len(rep.Recipients) != 1 || rep.Recipients[0].Address != "nobody@remote.example" ||
		rep.Recipients[0].Status != "5.1.1" || rep.Original.MessageID != "orig.1@example.org" {
		t.Fatalf("fixture reads as %+v", rep)
	}
}

// checkNDRHeaders checks the syntax of the headers ndrmilter writes and
// returns the applied header.
func checkNDRHeaders(t *testing.T, raw []byte, r result) applied {
	t.Helper()
	a := apply(raw, r.mods)
	for _, md := range r.mods {
		if md.Code != gomilter.ActAddHeader && md.Code != gomilter.ActChangeHeader {
			continue
		}
		for _, line := range strings.Split(md.HeaderName+": "+md.HeaderValue, "\n") {
			if len(line) > 998 {
				t.Errorf("header line of %d octets: %.80q...", len(line), line)
			}
			for i := 0; i < len(line); i++ {
				if c := line[i]; c >= 0x80 || (c < 0x20 && c != '\t') || c == 0x7f {
					t.Errorf("header %s has byte %#x: %q", md.HeaderName, c, line)
					break
				}
			}
		}
		if strings.Contains(md.HeaderValue, "\n") && !regexp.MustCompile(`^[^\n]*(\n\t[^\n]+)*$`).MatchString(md.HeaderValue) {
			t.Errorf("header %s badly folded: %q", md.HeaderName, md.HeaderValue)
		}
	}
	return a
}

func unfoldV(v string) string { return strings.ReplaceAll(v, "\n\t", " ") }

func TestOutboundRecordedAndBounceForIt(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{}, l)
	c := newClient(addr)

	// An authenticated client from outside sends two messages on one connection.
	sub := dial(t, c, "198.51.100.7")
	defer sub.close()
	out1 := plain("alice@example.org", "bob@remote.example", "out.1@example.org")
	r, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example", "Carol@Remote.example"}, auth: "alice", raw: out1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.mods) != 0 || r.act.Code != gomilter.ActContinue {
		t.Fatalf("outbound message changed: mods %+v, action %c", r.mods, r.act.Code)
	}
	out2 := plain("alice@example.org", "dave@remote.example", "out.2@example.org")
	r2, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"dave@remote.example"}, auth: "alice", raw: out2})
	if err != nil || len(r2.mods) != 0 {
		t.Fatalf("second outbound message: %+v, %v", r2, err)
	}
	rec := waitRecorded(t, l, "out.1@example.org")
	if rec.QueueID != r.queueID || rec.Sender != "alice@example.org" || len(rec.Recipients) != 2 || rec.Recipients[1] != "carol@remote.example" {
		t.Fatalf("recorded %+v, want queue id %s, sender alice@example.org, 2 recipients", rec, r.queueID)
	}
	waitRecorded(t, l, "out.2@example.org")

	// From a trusted network without authentication: outbound too.
	local := dial(t, c, "127.0.0.1")
	defer local.close()
	if r, err := local.send(envelope{from: "app@example.org", rcpts: []string{"x@remote.example"}, raw: plain("app@example.org", "x@remote.example", "app.1@example.org")}); err != nil || len(r.mods) != 0 {
		t.Fatalf("trusted-network message: %+v %v", r, err)
	}
	waitRecorded(t, l, "app.1@example.org")

	// The bounce for out.1 comes back from a remote MX.
	mx := dial(t, c, "203.0.113.25")
	defer mx.close()
	raw := report("out.1@example.org", "alice@example.org", "bob@remote.example", "5.1.1",
		"550 5.1.1 <bob@remote.example>: Recipient address rejected: User unknown in virtual mailbox table")
	rb, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if rb.act.Code != gomilter.ActContinue {
		t.Fatalf("bounce action %c, want continue (accept)", rb.act.Code)
	}
	a := checkNDRHeaders(t, raw, rb)
	if got := a.get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=message-id" {
		t.Fatalf("X-NDR-Backscatter = %q, want [no; evidence=message-id]", got)
	}
	if got := a.get("X-NDR-Owner"); len(got) != 1 || !owners[got[0]] {
		t.Fatalf("X-NDR-Owner = %q, want exactly one allowed value", got)
	}
	st := a.get("X-NDR-Status")
	if len(st) != 1 {
		t.Fatalf("X-NDR-Status = %q, want one", st)
	}
	stv := unfoldV(st[0])
	for _, want := range []string{"status=5.1.1", "recipient=bob@remote.example", "permanent=yes", "action=failed", "reason="} {
		if !strings.Contains(stv, want) {
			t.Errorf("X-NDR-Status %q lacks %q", stv, want)
		}
	}
	ex := a.get("X-NDR-Explanation")
	if len(ex) != 1 || !strings.HasPrefix(ex[0], "bob@remote.example: ") || len(unfoldV(ex[0])) < 40 {
		t.Fatalf("X-NDR-Explanation = %q, want one explanation for bob@remote.example", ex)
	}

	// A bounce that references only the queue id in our Received line.
	raw2 := report("someone-else@remote.example", "alice@example.org", "dave@remote.example", "5.2.2", "552 5.2.2 mailbox full")
	raw2 = []byte(strings.Replace(string(raw2), "id 4ORIGsomeoneelseremoteexample", "id "+r2.queueID, 1))
	raw2 = []byte(strings.Replace(string(raw2), "Message-ID: <someone-else@remote.example>\r\n", "", 1))
	rb2, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw2})
	if err != nil {
		t.Fatal(err)
	}
	if got := apply(raw2, rb2.mods).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=queue-id" {
		t.Fatalf("bounce referencing our queue id: X-NDR-Backscatter = %q, want no; evidence=queue-id", got)
	}
}

func TestBackscatterActions(t *testing.T) {
	never := report("never.sent@example.org", "victim@example.org", "spamtrap@remote.example", "5.1.1", "550 5.1.1 no such user")
	for _, tc := range []struct {
		action decide.Action
		check  func(t *testing.T, r result)
	}{
		{decide.ActionTag, func(t *testing.T, r result) {
			a := checkNDRHeaders(t, never, r)
			if r.act.Code != gomilter.ActContinue || a.quarantine != "" {
				t.Fatalf("tag: action %c, quarantine %q; want continue, none", r.act.Code, a.quarantine)
			}
			if got := a.get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "yes; evidence=message-id" {
				t.Fatalf("tag: X-NDR-Backscatter = %q", got)
			}
		}},
		{decide.ActionQuarantine, func(t *testing.T, r result) {
			a := checkNDRHeaders(t, never, r)
			if r.act.Code != gomilter.ActContinue || !strings.Contains(a.quarantine, "backscatter") {
				t.Fatalf("quarantine: action %c, quarantine %q; want continue with a quarantine reason", r.act.Code, a.quarantine)
			}
			if got := a.get("X-NDR-Backscatter"); len(got) != 1 || !strings.HasPrefix(got[0], "yes;") {
				t.Fatalf("quarantine: X-NDR-Backscatter = %q", got)
			}
		}},
		{decide.ActionReject, func(t *testing.T, r result) {
			if r.act.Code != gomilter.ActReplyCode || r.act.SMTPCode != 550 || !strings.Contains(r.act.SMTPText, "5.7.1") ||
				!strings.Contains(r.act.SMTPText, "backscatter") {
				t.Fatalf("reject: action %+v, want 550 5.7.1 ... backscatter", r.act)
			}
		}},
		{decide.ActionDiscard, func(t *testing.T, r result) {
			if r.act.Code != gomilter.ActDiscard {
				t.Fatalf("discard: action %c, want discard", r.act.Code)
			}
		}},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			l := openLedger(t, t.TempDir())
			defer l.Close()
			_, addr := startServer(t, Config{BackscatterAction: tc.action}, l)
			mx := dial(t, newClient(addr), "203.0.113.25")
			defer mx.close()
			// Two backscatter bounces and an ordinary message on one connection:
			// after a reject or discard go-milter starts a new session, which
			// must still treat the connection as inbound.
			for i := range 2 {
				r, err := mx.send(envelope{from: "", rcpts: []string{"victim@example.org"}, raw: never})
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				tc.check(t, r)
			}
			r, err := mx.send(envelope{from: "friend@remote.example", rcpts: []string{"victim@example.org"}, raw: plain("friend@remote.example", "victim@example.org", "hello.1@remote.example")})
			if err != nil || !r.untouched() {
				t.Fatalf("ordinary message after backscatter: %+v %v", r, err)
			}
			if _, err := l.ByMessageID(context.Background(), "hello.1@remote.example"); err == nil {
				t.Fatal("inbound message was recorded as outbound")
			}
		})
	}
}

func TestForgedHeadersRemovedAndOrdinaryMailUntouched(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()

	// Ordinary mail without X-NDR headers: not a single change.
	clean := plain("friend@remote.example", "alice@example.org", "hi.1@remote.example")
	r, err := mx.send(envelope{from: "friend@remote.example", rcpts: []string{"alice@example.org"}, raw: clean})
	if err != nil || !r.untouched() {
		t.Fatalf("ordinary mail: mods %+v, action %v, err %v; want untouched", r.mods, r.act, err)
	}

	// Ordinary mail with forged X-NDR headers: they go, everything else stays.
	forged := plain("friend@remote.example", "alice@example.org", "hi.2@remote.example",
		"X-NDR-Backscatter: no; evidence=message-id", "x-ndr-owner: sender",
		"X-NDR-Explanation: trust me", "X-Ndr-Explanation: =?utf-8?q?more?=\r\n\tfolded",
		"Received: from a by b", "X-NDR-Whatever: 1")
	r, err = mx.send(envelope{from: "friend@remote.example", rcpts: []string{"alice@example.org"}, raw: forged})
	if err != nil {
		t.Fatal(err)
	}
	a := apply(forged, r.mods)
	before, _ := splitMessage(forged)
	var kept [][2]string
	for _, f := range before {
		if !strings.HasPrefix(strings.ToLower(f[0]), "x-ndr-") {
			kept = append(kept, f)
		}
	}
	if len(a.fields) != len(kept) {
		t.Fatalf("after the milter: %q, want %q", a.fields, kept)
	}
	for i := range kept {
		if a.fields[i] != kept[i] {
			t.Fatalf("field %d = %q, want %q", i, a.fields[i], kept[i])
		}
	}
	for _, md := range r.mods {
		if md.Code != gomilter.ActChangeHeader || md.HeaderValue != "" {
			t.Fatalf("ordinary mail got %+v, want only deletions", md)
		}
	}

	// A bounce with forged X-NDR headers and a hostile diagnostic: only ours remain.
	hostile := report("never.2@example.org", "alice@example.org", "x@remote.example", "5.1.1",
		"550 5.1.1 user unknown\rX-NDR-Backscatter: no\r\nInjected: yes"+strings.Repeat(" very-long-word", 200),
		"X-NDR-Backscatter: no; evidence=message-id", "X-NDR-Owner: none")
	rb, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: hostile})
	if err != nil {
		t.Fatal(err)
	}
	ab := checkNDRHeaders(t, hostile, rb)
	if got := ab.get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "yes; evidence=message-id" {
		t.Fatalf("X-NDR-Backscatter = %q, want only ours: yes; evidence=message-id", got)
	}
	if got := ab.get("X-NDR-Owner"); len(got) != 1 || !owners[got[0]] {
		t.Fatalf("X-NDR-Owner = %q", got)
	}
	if ab.get("Injected") != nil {
		t.Fatal("a header was injected through the diagnostic text")
	}
}

func TestAbortMidMessage(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{}, l)
	c := newClient(addr)
	m := dial(t, c, "198.51.100.7")
	defer m.close()
	s := m.s
	// An authenticated message is aborted after part of its body.
	must(t, s.Macros(gomilter.CodeMail, "{auth_authen}", "alice", "{client_addr}", "198.51.100.7"))
	if _, err := s.Mail("alice@example.org", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rcpt("bob@remote.example", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HeaderField("Message-ID", "<aborted.1@example.org>"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HeaderField("X-NDR-Owner", "sender"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HeaderEnd(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BodyChunk([]byte("half a body\r\n")); err != nil {
		t.Fatal(err)
	}
	must(t, s.Abort())

	// The next message on the connection, unauthenticated, is inbound and
	// carries nothing over from the aborted one.
	raw := plain("friend@remote.example", "alice@example.org", "after.abort@remote.example")
	r, err := m.send(envelope{from: "friend@remote.example", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil || !r.untouched() {
		t.Fatalf("message after abort: %+v %v; want untouched", r, err)
	}
	time.Sleep(50 * time.Millisecond)
	for _, id := range []string{"aborted.1@example.org", "after.abort@remote.example"} {
		if _, err := l.ByMessageID(context.Background(), id); err == nil {
			t.Fatalf("%s was recorded; an aborted or inbound message must not be", id)
		}
	}
}

func TestLedgerDownGivesUnknown(t *testing.T) {
	l := openLedger(t, t.TempDir())
	// A closed ledger fails every lookup: the real failure, not a mock.
	l.Close()
	_, addr := startServer(t, Config{BackscatterAction: decide.ActionReject}, l)
	c := newClient(addr)
	mx := dial(t, c, "203.0.113.25")
	defer mx.close()
	raw := report("lost.1@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 user unknown")
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if r.act.Code != gomilter.ActContinue {
		t.Fatalf("ledger down: action %c, want continue: mail must flow", r.act.Code)
	}
	a := checkNDRHeaders(t, raw, r)
	if got := a.get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "unknown; evidence=ledger-error" {
		t.Fatalf("X-NDR-Backscatter = %q, want unknown; evidence=ledger-error", got)
	}
	// Outbound mail flows too, unrecorded.
	sub := dial(t, c, "127.0.0.1")
	defer sub.close()
	if r, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"x@remote.example"}, raw: plain("alice@example.org", "x@remote.example", "o@example.org")}); err != nil || r.act.Code != gomilter.ActContinue {
		t.Fatalf("outbound with ledger down: %+v %v", r, err)
	}
}

func TestBounceReferencingNothingIsUnknown(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{BackscatterAction: decide.ActionReject}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := []byte("From: MAILER-DAEMON@remote.example\r\nTo: alice@example.org\r\nSubject: Delivery Status Notification\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; remote.example\r\n\r\nFinal-Recipient: rfc822; gone@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\n--b--\r\n")
	// The envelope recipient is outside our domains, and no original headers:
	// nothing we could look up.
	r, err := mx.send(envelope{from: "", rcpts: []string{"relay-user@elsewhere.example"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if r.act.Code != gomilter.ActContinue {
		t.Fatalf("unreferenced bounce: action %c, want continue, never a reject", r.act.Code)
	}
	if got := apply(raw, r.mods).get("X-NDR-Backscatter"); len(got) != 1 || !strings.HasPrefix(got[0], "unknown;") {
		t.Fatalf("X-NDR-Backscatter = %q, want unknown", got)
	}
}

func TestRestartKeepsLedger(t *testing.T) {
	dir := t.TempDir()
	l := openLedger(t, dir)
	srv, addr := startServer(t, Config{}, l)
	sub := dial(t, newClient(addr), "127.0.0.1")
	if _, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"}, raw: plain("alice@example.org", "bob@remote.example", "before.restart@example.org")}); err != nil {
		t.Fatal(err)
	}
	sub.close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Shutdown waits for the outbound record, then the ledger closes.
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l2 := openLedger(t, dir)
	defer l2.Close()
	_, addr2 := startServer(t, Config{}, l2)
	mx := dial(t, newClient(addr2), "203.0.113.25")
	defer mx.close()
	raw := report("before.restart@example.org", "alice@example.org", "bob@remote.example", "5.1.1", "550 5.1.1 user unknown")
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if got := apply(raw, r.mods).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=message-id" {
		t.Fatalf("after restart: X-NDR-Backscatter = %q, want no; evidence=message-id", got)
	}
}

func TestSubjectTagAndBodySummary(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{SubjectTag: true, BodySummary: true}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := report("tagged.1@example.org", "alice@example.org", "bob@remote.example", "5.1.1", "550 5.1.1 user unknown")
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	a := checkNDRHeaders(t, raw, r)
	subj := a.get("Subject")
	if len(subj) != 1 || !strings.HasPrefix(subj[0], "[Bounce: ") || !strings.HasSuffix(unfoldV(subj[0]), "] Undelivered Mail Returned to Sender") {
		t.Fatalf("Subject = %q, want [Bounce: ...] Undelivered Mail Returned to Sender", subj)
	}
	if a.body == nil {
		t.Fatal("no body replacement with BodySummary on")
	}
	body := string(a.body)
	i := strings.Index(body, "[ndrmilter] What this bounce means:")
	j := strings.Index(body, "This is the mail system at host")
	k := strings.Index(body, "Content-Type: text/plain")
	if i < 0 || j < 0 || k < 0 || !(k < i && i < j) {
		t.Fatalf("summary not at the top of the text part:\n%s", body)
	}
	if !strings.Contains(body, "Final-Recipient: rfc822; bob@remote.example") {
		t.Fatal("the delivery-status part was lost from the body")
	}
	// Off by default: no Subject change, no body change.
	_, addr2 := startServer(t, Config{}, l)
	mx2 := dial(t, newClient(addr2), "203.0.113.25")
	defer mx2.close()
	r2, err := mx2.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range r2.mods {
		if md.Code == gomilter.ActReplBody || strings.EqualFold(md.HeaderName, "Subject") {
			t.Fatalf("with defaults the milter did %+v", md)
		}
	}
}

func TestManyRecipientsCapped(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{MaxRecipientHeaders: 3}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	var recs strings.Builder
	for i := range 7 {
		recs.WriteString("Final-Recipient: rfc822; user" + string(rune('a'+i)) + "@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n")
	}
	raw := []byte("From: MAILER-DAEMON@remote.example\r\nTo: alice@example.org\r\nSubject: failure\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nFailed.\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; remote.example\r\n\r\n" + recs.String() + "--b\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <many@example.org>\r\nFrom: alice@example.org\r\n\r\n--b--\r\n")
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	a := checkNDRHeaders(t, raw, r)
	if st := a.get("X-NDR-Status"); len(st) != 3 || !strings.Contains(st[0], "usera@remote.example") {
		t.Fatalf("X-NDR-Status = %q, want 3, the first for usera", st)
	}
	ex := a.get("X-NDR-Explanation")
	if len(ex) != 4 || !strings.Contains(unfoldV(ex[3]), "4 more recipients") {
		t.Fatalf("X-NDR-Explanation = %q, want 3 and a note on 4 more", ex)
	}
	if len(a.get("X-NDR-Owner")) != 1 {
		t.Fatal("want exactly one X-NDR-Owner")
	}
}

func TestReportSenderWithNonNullEnvelope(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	if err := l.Put(context.Background(), ledger.Record{MessageID: "sent.9@example.org", Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}}); err != nil {
		t.Fatal(err)
	}
	_, addr := startServer(t, Config{}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := report("sent.9@example.org", "alice@example.org", "bob@remote.example", "5.1.1", "550 5.1.1 user unknown")
	r, err := mx.send(envelope{from: "MAILER-DAEMON@remote.example", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if got := apply(raw, r.mods).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=message-id" {
		t.Fatalf("report from MAILER-DAEMON with a non-null sender: X-NDR-Backscatter = %q", got)
	}
	// A report-looking message from an ordinary sender is not read as a bounce.
	r, err = mx.send(envelope{from: "mallory@remote.example", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.mods) != 0 {
		t.Fatalf("report from an ordinary sender got %+v", r.mods)
	}
}

func TestNotBouncesAndOrigins(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{BackscatterAction: decide.ActionReject}, l)
	c := newClient(addr)
	mx := dial(t, c, "203.0.113.25")
	defer mx.close()

	// Auto-replies, read receipts and feedback reports arrive with a null
	// sender too, and are not bounces: never rejected. An auto-reply is
	// judged by what it answers (issue 15): on this young ledger, unknown,
	// with kind=autoreply and no explanation; a read receipt is untouched.
	vacation := []byte("From: bob@remote.example\r\nTo: alice@example.org\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <vac.1@remote.example>\r\nIn-Reply-To: <never.sent.v@example.org>\r\n\r\nI am away until Monday.\r\n")
	mdn := []byte("From: bob@remote.example\r\nTo: alice@example.org\r\nSubject: Read: hello\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=disposition-notification; boundary=\"m\"\r\n\r\n--m\r\nContent-Type: text/plain\r\n\r\nYour message was displayed.\r\n--m\r\nContent-Type: message/disposition-notification\r\n\r\nReporting-UA: mail.remote.example\r\nFinal-Recipient: rfc822; bob@remote.example\r\nOriginal-Message-ID: <never.sent.m@example.org>\r\nDisposition: manual-action/MDN-sent-manually; displayed\r\n--m--\r\n")
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: vacation})
	if err != nil {
		t.Fatal(err)
	}
	if a := apply(vacation, r.mods); r.act.Code != gomilter.ActContinue ||
		!slices.Equal(a.get("X-NDR-Backscatter"), []string{"unknown; evidence=ledger-young"}) ||
		!slices.Equal(a.get("X-NDR-Status"), []string{"kind=autoreply; recipient=bob@remote.example"}) ||
		len(a.get("X-NDR-Explanation")) != 0 || len(a.get("X-NDR-Owner")) != 0 {
		t.Fatalf("auto-reply: mods %+v, action %c; want continue, judged unknown (ledger-young), kind=autoreply, no explanation", r.mods, r.act.Code)
	}
	r, err = mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: mdn})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.mods) != 0 || r.act.Code != gomilter.ActContinue {
		t.Fatalf("read receipt: mods %+v, action %c; want untouched", r.mods, r.act.Code)
	}

	// Local socket (Postfix's own submissions) and IPv6 loopback are outbound.
	for _, tc := range []struct {
		name string
		fam  gomilter.ProtoFamily
		addr string
	}{{"unix socket", gomilter.FamilyUnix, "/var/spool/postfix/public/pickup"}, {"ipv6 loopback", gomilter.FamilyInet6, "::1"}} {
		s, err := c.Session()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Conn("localhost", tc.fam, 0, tc.addr); err != nil {
			t.Fatal(err)
		}
		m := &mta{t: t, s: s, clientIP: tc.addr}
		id := strings.ReplaceAll(tc.name, " ", "-") + "@example.org"
		// Postfix sends no {client_addr} for a local submission.
		must(t, s.Macros(gomilter.CodeMail, "i", "4LOCAL"))
		must(t, m.sendNoMacros(envelope{from: "root@example.org", rcpts: []string{"x@remote.example"}, raw: plain("root@example.org", "x@remote.example", id)}))
		waitRecorded(t, l, id)
		s.Close()
	}
}

// sendNoMacros sends a message without MAIL FROM macros (the caller sent them).
func (m *mta) sendNoMacros(e envelope) error {
	s := m.s
	if _, err := s.Mail(e.from, nil); err != nil {
		return err
	}
	for _, r := range e.rcpts {
		if _, err := s.Rcpt(r, nil); err != nil {
			return err
		}
	}
	fields, body := splitMessage(e.raw)
	for _, f := range fields {
		if _, err := s.HeaderField(f[0], f[1]); err != nil {
			return err
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		return err
	}
	mods, act, err := s.BodyReadFrom(strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	if len(mods) != 0 || act.Code != gomilter.ActContinue {
		return fmt.Errorf("outbound message changed: %+v %c", mods, act.Code)
	}
	return s.Abort()
}

func TestBounceFromInside(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	if err := l.Put(context.Background(), ledger.Record{MessageID: "mine.1@example.org", Sender: "alice@example.org", Recipients: []string{"ghost@example.org"}}); err != nil {
		t.Fatal(err)
	}
	_, addr := startServer(t, Config{}, l)
	local := dial(t, newClient(addr), "127.0.0.1")
	defer local.close()
	// Postfix's own bounce (internal_mail_filter_classes = bounce) to a user
	// of ours: trusted client, null sender, our recipient: explained.
	raw := report("mine.1@example.org", "alice@example.org", "ghost@example.org", "5.1.1", "550 5.1.1 unknown user: ghost")
	r, err := local.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if got := checkNDRHeaders(t, raw, r).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=message-id" {
		t.Fatalf("our own bounce to our user: X-NDR-Backscatter = %q, want no; evidence=message-id", got)
	}
	// The same from inside to an outside sender is outbound mail: unchanged.
	raw2 := report("theirs.1@remote.example", "stranger@remote.example", "ghost@example.org", "5.1.1", "550 5.1.1 unknown user: ghost")
	r, err = local.send(envelope{from: "", rcpts: []string{"stranger@remote.example"}, raw: raw2})
	if err != nil || !r.untouched() {
		t.Fatalf("our bounce to an outside sender: %+v %v; want unchanged", r, err)
	}
}

// panickyLedger is a real bbolt ledger whose lookups panic: fault injection
// for the fail-open path.
type panickyLedger struct{ ledger.Ledger }

func (panickyLedger) ByMessageID(context.Context, string) (ledger.Record, error) {
	panic("injected fault in ledger lookup")
}

func TestPanicFailsOpen(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	srv, addr := startServer(t, Config{BackscatterAction: decide.ActionReject}, panickyLedger{l})
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := report("boom.1@example.org", "alice@example.org", "x@remote.example", "5.1.1", "550 5.1.1 user unknown",
		"X-NDR-Owner: forged")
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.mods) != 0 || r.act.Code != gomilter.ActContinue {
		t.Fatalf("after a panic: mods %+v, action %c; want the message unchanged and accepted", r.mods, r.act.Code)
	}
	var mv dto.Metric
	if err := srv.Metrics().FailOpen.WithLabelValues("eom").Write(&mv); err != nil || mv.GetCounter().GetValue() != 1 {
		n := mv.GetCounter().GetValue()
		t.Fatalf("fail-open counter = %v, want 1", n)
	}
	// The connection goes on: the next message is handled normally.
	r, err = mx.send(envelope{from: "friend@remote.example", rcpts: []string{"alice@example.org"},
		raw: plain("friend@remote.example", "alice@example.org", "next@remote.example", "X-NDR-Owner: forged")})
	if err != nil || len(r.mods) != 1 || r.mods[0].Code != gomilter.ActChangeHeader {
		t.Fatalf("message after the panic: %+v %v; want the forged header deleted", r, err)
	}
}

func TestShutdownDrains(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	srv, addr := startServer(t, Config{}, l)
	c := newClient(addr)
	m := dial(t, c, "203.0.113.25")
	if srv.Sessions() != 1 {
		t.Fatalf("%d sessions, want 1", srv.Sessions())
	}
	// The session ends 100 ms into the drain: Shutdown waits for it.
	go func() {
		time.Sleep(100 * time.Millisecond)
		m.send(envelope{from: "friend@remote.example", rcpts: []string{"alice@example.org"}, raw: plain("friend@remote.example", "alice@example.org", "drain.1@remote.example")})
		m.close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d < 90*time.Millisecond {
		t.Fatalf("Shutdown returned after %v, before the session ended", d)
	}
	// No new connections once draining.
	if _, err := c.Session(); err == nil {
		t.Fatal("a new milter connection was accepted after Shutdown")
	}
}

func TestShutdownTimesOut(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	srv, addr := startServer(t, Config{}, l)
	m := dial(t, newClient(addr), "203.0.113.25")
	defer m.close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(ctx); err == nil {
		t.Fatal("Shutdown with a session that never ends returned nil, want the deadline error")
	}
	if n := srv.Sessions(); n != 0 {
		t.Fatalf("%d sessions left after a timed-out drain, want them closed", n)
	}
}
