//go:build e2e

package main

// End-to-end tests of issue 4: real SMTP (go-smtp client) into a private
// Postfix 3.7 that runs ndrmilter as smtpd_milters and non_smtpd_milters with
// the deploy kit's settings, a go-smtp sink as the next hop. Run with
// "make e2e" (go test -tags e2e -count 1 -run E2E -v ./cmd/ndrmilter), as
// root, with postfix and sasl2-bin installed (scripts/deps).
//
// The network plan: clients from 127.0.0.1 are "the Internet" (they may only
// send to example.org, which Postfix relays to the sink); 127.0.0.2 is a
// trusted internal host (Postfix mynetworks and ndrmilter
// --trusted-networks); alice@example.org authenticates with SASL PLAIN.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

const (
	trustedIP   = "127.0.0.2"
	internetIP  = "127.0.0.1"
	alice       = "alice@example.org"
	deliverWait = 30 * time.Second
)

// milterFlags are the flags every ndrmilter of these tests runs with.
func milterFlags(extra ...string) []string {
	return append([]string{"--trusted-networks", trustedIP + "/32"}, extra...)
}

// dialFrom opens an SMTP session from a given loopback source address.
func dialFrom(t *testing.T, pf *postfix, src string, auth bool) *smtpSession {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	conn, err := d.Dial("tcp", pf.SMTP)
	if err != nil {
		t.Fatalf("dial %s from %s: %v", pf.SMTP, src, err)
	}
	c := smtp.NewClient(conn)
	c.CommandTimeout = 30 * time.Second
	c.SubmissionTimeout = 60 * time.Second
	if err := c.Hello("client.e2e.test"); err != nil {
		t.Fatalf("EHLO: %v\n%s", err, pf.LogTail(20))
	}
	s := &smtpSession{t: t, c: c}
	if auth {
		s.login(pf)
	}
	t.Cleanup(func() { c.Close() })
	return s
}

func (s *smtpSession) login(pf *postfix) {
	s.t.Helper()
	if err := s.c.Auth(saslPlain()); err != nil {
		s.t.Fatalf("AUTH PLAIN: %v\n%s", err, pf.LogTail(20))
	}
}

// e2eOutbound is an ordinary message alice sends.
func e2eOutbound(id, to, subject string) string {
	return fmt.Sprintf("From: Alice <%s>\nTo: <%s>\nSubject: %s\nDate: %s\nMessage-ID: <%s>\nMIME-Version: 1.0\nContent-Type: text/plain\n\nHello, this is %s.\n",
		alice, to, subject, time.Now().Format(time.RFC1123Z), id, subject)
}

// e2eDSN is an RFC 3464 bounce from remote.test's MTA to alice, about the
// message origID she sent to rcpt. extraHeader is added to the top header
// (for a forged X-NDR-* header).
func e2eDSN(origID, rcpt, status, diag, extraHeader string) string {
	boundary := "dsn-boundary-" + fmt.Sprint(time.Now().UnixNano())
	return fmt.Sprintf(`From: Mail Delivery System <MAILER-DAEMON@mx.remote.test>
To: <%[1]s>
Subject: Undelivered Mail Returned to Sender
Date: %[2]s
Message-ID: <dsn.%[3]s>
Auto-Submitted: auto-replied
%[8]sMIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="%[4]s"

--%[4]s
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.remote.test.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<%[5]s>: host mx.remote.test[192.0.2.10] said: %[7]s

--%[4]s
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.remote.test
Arrival-Date: %[2]s

Final-Recipient: rfc822; %[5]s
Original-Recipient: rfc822; %[5]s
Action: failed
Status: %[6]s
Remote-MTA: dns; mx.remote.test
Diagnostic-Code: smtp; %[7]s

--%[4]s
Content-Type: text/rfc822-headers

From: Alice <%[1]s>
To: <%[5]s>
Subject: report
Date: %[2]s
Message-ID: <%[3]s>

--%[4]s--
`, alice, time.Now().Format(time.RFC1123Z), origID, boundary, rcpt, status, diag, extraHeader)
}

// headerValues returns the values of name in the sink message, with the
// leading space Postfix strips or keeps trimmed, folding undone.
func headerValues(m sinkMessage, name string) []string {
	var out []string
	for _, v := range m.Header[textproto.CanonicalMIMEHeaderKey(name)] {
		out = append(out, strings.Join(strings.Fields(v), " "))
	}
	return out
}

// awaitID waits for a message to rcpt whose Message-ID is id.
func awaitID(t *testing.T, env *e2eEnv, id string) sinkMessage {
	t.Helper()
	m, ok := env.Sink.await(deliverWait, withHeader("Message-Id", id))
	if !ok {
		t.Fatalf("message <%s> did not reach the sink within %s\n%s\n--- ndrmilter ---\n%s", id, deliverWait, env.Postfix.LogTail(40), tail(env.Milter.Output(), 20))
	}
	return m
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ledgerLookup asks "ndrmilter ledger lookup --json" (the milter must be
// stopped: the bbolt file has one writer).
func ledgerLookup(t *testing.T, env *e2eEnv, id string) lookupRecord {
	t.Helper()
	out, err := exec.Command(ndrmilterBinary(t), "ledger", "lookup", "--data", env.Data, "--json", id).Output()
	var lr lookupRecord
	if jerr := json.Unmarshal(out, &lr); jerr != nil {
		t.Fatalf("ndrmilter ledger lookup %s: %v / %v\n%s", id, err, jerr, out)
	}
	return lr
}

// sieveFolder runs deploy/ndr.sieve on msg with Pigeonhole's sieve-test and
// returns the folder it files into ("" for the inbox). It skips when
// sieve-test (Debian package dovecot-sieve) is not installed.
func sieveFolder(t *testing.T, msg []byte) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("sieve-test"); err != nil {
		t.Log("sieve-test not installed (dovecot-sieve): deploy/ndr.sieve not checked on this message")
		return "", false
	}
	// sieve-test drops to nobody: every parent must be traversable, which
	// t.TempDir's 0700 directories are not.
	dir, err := os.MkdirTemp("", "ndrmilter-e2e-sieve-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	script, eml := filepath.Join(dir, "ndr.sieve"), filepath.Join(dir, "m.eml")
	src, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ndr.sieve"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, script, src)
	writeFile(t, eml, msg)
	os.Chmod(dir, 0o777)
	os.Chmod(script, 0o644)
	os.Chmod(eml, 0o644)
	out, err := exec.Command("sieve-test", "-o", "mail_uid=nobody", "-o", "mail_gid=nogroup", script, eml).CombinedOutput()
	if err != nil {
		t.Fatalf("sieve-test: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`store message in folder: (\S+)`).FindSubmatch(out)
	if m == nil {
		return "", true
	}
	return string(m[1]), true
}

// TestE2E runs the scenarios a-g of issue 4 in order on one Postfix, one
// sink and one ndrmilter (restarted with other flags where a scenario needs).
func TestE2E(t *testing.T) {
	env := newE2EEnv(t, milterFlags()...)
	// The trusted internal host may relay; the Internet (127.0.0.1) may not.
	env.Postfix.Postconf("mynetworks = " + trustedIP + "/32")
	sent := map[string]string{} // Message-ID -> recipient, for the ledger checks

	t.Run("a_outbound_recorded", func(t *testing.T) {
		s := dialFrom(t, env.Postfix, internetIP, true)
		idAuth := uniqueID("a-auth")
		if err := s.Send(alice, []string{"bob@remote.test"}, e2eOutbound(idAuth, "bob@remote.test", "a by SASL")); err != nil {
			t.Fatalf("authenticated send: %v\n%s", err, env.Postfix.LogTail(20))
		}
		s.Quit()
		tr := dialFrom(t, env.Postfix, trustedIP, false)
		idTrusted := uniqueID("a-trusted")
		if err := tr.Send(alice, []string{"carol@remote.test"}, e2eOutbound(idTrusted, "carol@remote.test", "a by trusted host")); err != nil {
			t.Fatalf("trusted-host send: %v\n%s", err, env.Postfix.LogTail(20))
		}
		tr.Quit()
		for id, rcpt := range map[string]string{idAuth: "bob@remote.test", idTrusted: "carol@remote.test"} {
			m := awaitID(t, env, id)
			if len(m.To) != 1 || m.To[0] != rcpt {
				t.Errorf("<%s> reached the sink for %v, want %s", id, m.To, rcpt)
			}
			if v := headerValues(m, "X-NDR-Backscatter"); len(v) != 0 {
				t.Errorf("outbound mail <%s> got X-NDR headers: %v", id, v)
			}
			sent[id] = rcpt
		}
		// The ledger has both: stop the milter (bbolt has one writer), look, restart.
		env.Milter.Stop()
		for id, rcpt := range map[string]string{idAuth: "bob@remote.test", idTrusted: "carol@remote.test"} {
			lr := ledgerLookup(t, env, id)
			if !lr.Found || lr.Sender != alice || strings.Join(lr.Recipients, ",") != rcpt || lr.QueueID == "" {
				t.Errorf("ledger lookup <%s>: %+v, want found, sender %s, recipient %s, a queue id", id, lr, alice, rcpt)
			}
		}
		env.RestartMilter(t, milterFlags()...)
	})
	if t.Failed() {
		t.FailNow()
	}

	var idB string
	for id, rcpt := range sent {
		if rcpt == "bob@remote.test" {
			idB = id
		}
	}

	t.Run("b_real_bounce_explained", func(t *testing.T) {
		s := dialFrom(t, env.Postfix, internetIP, false)
		// A forged X-NDR-Owner from outside must not survive.
		msg := e2eDSN(idB, "bob@remote.test", "5.1.1", "550 5.1.1 <bob@remote.test>: Recipient address rejected: User unknown in virtual mailbox table", "X-NDR-Owner: none\n")
		if err := s.Send("", []string{alice}, msg); err != nil {
			t.Fatalf("send DSN: %v\n%s", err, env.Postfix.LogTail(20))
		}
		s.Quit()
		m := awaitID(t, env, "dsn."+idB)
		expl := headerValues(m, "X-NDR-Explanation")
		if len(expl) == 0 || !strings.Contains(strings.Join(expl, " "), "bob@remote.test") {
			t.Errorf("X-NDR-Explanation = %q, want one naming bob@remote.test", expl)
		}
		if own := headerValues(m, "X-NDR-Owner"); len(own) != 1 || own[0] != "sender" {
			t.Errorf("X-NDR-Owner = %q, want exactly one, \"sender\" (5.1.1: the address is wrong; the forged one removed)", own)
		}
		bs := headerValues(m, "X-NDR-Backscatter")
		if len(bs) != 1 || !strings.HasPrefix(bs[0], "no") || !strings.Contains(bs[0], "evidence=message-id") {
			t.Errorf("X-NDR-Backscatter = %q, want \"no; evidence=message-id\"", bs)
		}
		if st := headerValues(m, "X-NDR-Status"); len(st) == 0 || !strings.Contains(st[0], "status=5.1.1") {
			t.Errorf("X-NDR-Status = %q, want status=5.1.1", st)
		}
		for _, h := range []string{"X-NDR-Backscatter", "X-NDR-Owner", "X-NDR-Status", "X-NDR-Explanation"} {
			t.Logf("%s: %s", h, strings.Join(headerValues(m, h), " | "))
		}
		if folder, ok := sieveFolder(t, m.Data); ok && folder != "Bounces/sender" {
			t.Errorf("deploy/ndr.sieve files the real bounce into %q, want Bounces/sender", folder)
		}
	})

	t.Run("c_forged_bounce_backscatter", func(t *testing.T) {
		never := uniqueID("never-sent")
		s := dialFrom(t, env.Postfix, internetIP, false)
		if err := s.Send("", []string{alice}, e2eDSN(never, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", "")); err != nil {
			t.Fatalf("send forged DSN: %v\n%s", err, env.Postfix.LogTail(20))
		}
		s.Quit()
		m := awaitID(t, env, "dsn."+never)
		bs := headerValues(m, "X-NDR-Backscatter")
		if len(bs) != 1 || !strings.HasPrefix(bs[0], "yes") {
			t.Errorf("forged bounce: X-NDR-Backscatter = %q, want yes", bs)
		}
		if folder, ok := sieveFolder(t, m.Data); ok && folder != "Junk" {
			t.Errorf("deploy/ndr.sieve files backscatter into %q, want Junk", folder)
		}

		// With reject configured, the client sees the 5xx and its text.
		env.RestartMilter(t, milterFlags("--backscatter-action", "reject")...)
		never2 := uniqueID("never-sent-reject")
		s2 := dialFrom(t, env.Postfix, internetIP, false)
		err := s2.Send("", []string{alice}, e2eDSN(never2, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", ""))
		se := smtpError(err)
		if se == nil || se.Code/100 != 5 || strings.TrimSpace(se.Message) == "" {
			t.Fatalf("forged bounce with --backscatter-action reject: got %v, want a 5xx with a text\n%s", err, env.Postfix.LogTail(20))
		}
		t.Logf("the client saw: %d %v %s", se.Code, se.EnhancedCode, se.Message)
		s2.Quit()
		if _, ok := env.Sink.await(3*time.Second, withHeader("Message-Id", "dsn."+never2)); ok {
			t.Errorf("the rejected bounce reached the sink")
		}
		if _, ok := env.Postfix.AwaitLog(5*time.Second, regexp.MustCompile(`milter-reject: END-OF-MESSAGE .*`+regexp.QuoteMeta(se.Message[:min(20, len(se.Message))]))); !ok {
			t.Errorf("Postfix did not log the milter-reject with the text %q\n%s", se.Message, env.Postfix.LogTail(20))
		}
	})

	t.Run("d_postfix_own_bounce", func(t *testing.T) {
		// alice writes to a local user that does not exist: Postfix accepts
		// (local_recipient_maps is empty), local(8) bounces, and the bounce
		// goes through non_smtpd_milters (internal_mail_filter_classes = bounce).
		s := dialFrom(t, env.Postfix, internetIP, true)
		id := uniqueID("d-ghost")
		if err := s.Send(alice, []string{"ghost@" + e2eLocalDomain}, e2eOutbound(id, "ghost@"+e2eLocalDomain, "d to a ghost")); err != nil {
			t.Fatalf("send: %v\n%s", err, env.Postfix.LogTail(20))
		}
		s.Quit()
		m, ok := env.Sink.await(deliverWait, func(m sinkMessage) bool {
			return m.From == "" && strings.Contains(string(m.Data), id)
		})
		if !ok {
			t.Fatalf("Postfix's bounce for <%s> did not reach the sink\n%s", id, env.Postfix.LogTail(30))
		}
		expl := strings.Join(headerValues(m, "X-NDR-Explanation"), " ")
		if !strings.Contains(expl, "ghost@"+e2eLocalDomain) {
			t.Errorf("Postfix's own bounce: X-NDR-Explanation = %q, want one naming ghost@%s", expl, e2eLocalDomain)
		}
		if own := headerValues(m, "X-NDR-Owner"); len(own) != 1 {
			t.Errorf("Postfix's own bounce: X-NDR-Owner = %q, want one", own)
		}
		if bs := headerValues(m, "X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") {
			t.Errorf("Postfix's own bounce for mail alice sent: X-NDR-Backscatter = %q, want no", bs)
		}
	})

	t.Run("e_several_messages_per_connection", func(t *testing.T) {
		// Still with reject configured: a rejected message must not make the
		// next ones on the same connection lose the client or the login.
		s := dialFrom(t, env.Postfix, internetIP, true)
		ids := []string{uniqueID("e-1"), uniqueID("e-2"), uniqueID("e-3")}
		for i, id := range ids {
			rcpt := fmt.Sprintf("e%d@remote.test", i)
			if err := s.Send(alice, []string{rcpt}, e2eOutbound(id, rcpt, "e outbound")); err != nil {
				t.Fatalf("authenticated message %d: %v", i, err)
			}
		}
		s.Quit()
		in := dialFrom(t, env.Postfix, internetIP, false)
		forged1, forged2 := uniqueID("e-forged1"), uniqueID("e-forged2")
		if err := in.Send("", []string{alice}, e2eDSN(forged1, "x@remote.test", "5.1.1", "550 5.1.1 unknown", "")); smtpError(err) == nil || smtpError(err).Code/100 != 5 {
			t.Errorf("first forged bounce on the connection: %v, want 5xx", err)
		}
		// The real bounce after a reject on the same connection: still
		// inbound (the client is not trusted), explained, not backscatter.
		if err := in.Send("", []string{alice}, e2eDSN(ids[0], "e0@remote.test", "5.2.2", "552 5.2.2 mailbox full", "")); err != nil {
			t.Fatalf("real bounce after a reject on the same connection: %v", err)
		}
		if err := in.Send("", []string{alice}, e2eDSN(forged2, "y@remote.test", "5.1.1", "550 5.1.1 unknown", "")); smtpError(err) == nil || smtpError(err).Code/100 != 5 {
			t.Errorf("second forged bounce on the connection: %v, want 5xx", err)
		}
		in.Quit()
		for _, id := range ids {
			if m := awaitID(t, env, id); len(headerValues(m, "X-NDR-Backscatter")) != 0 {
				t.Errorf("outbound <%s> got X-NDR headers", id)
			}
		}
		m := awaitID(t, env, "dsn."+ids[0])
		if bs := headerValues(m, "X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") {
			t.Errorf("bounce of e-1 sent on the same authenticated connection as e-2, e-3: X-NDR-Backscatter = %q, want no", bs)
		}
		if own := headerValues(m, "X-NDR-Owner"); len(own) != 1 || own[0] == "" {
			t.Errorf("X-NDR-Owner = %q, want one", own)
		}
		// Each of the three, recorded with the right recipient.
		env.Milter.Stop()
		for i, id := range ids {
			lr := ledgerLookup(t, env, id)
			if !lr.Found || lr.Sender != alice || len(lr.Recipients) != 1 || lr.Recipients[0] != fmt.Sprintf("e%d@remote.test", i) {
				t.Errorf("ledger <%s>: %+v, want alice -> e%d@remote.test", id, lr, i)
			}
		}
		env.RestartMilter(t, milterFlags()...)
	})

	t.Run("ledger_import_of_this_postfix_log", func(t *testing.T) {
		// The log of this very Postfix, read back by "ndrmilter ledger
		// import" into a fresh ledger: the mail that left is found, the
		// bounces that came in and the mail to a local ghost are not.
		data := t.TempDir()
		out, err := exec.Command(ndrmilterBinary(t), "ledger", "import", "--data", data, "--domain", e2eDomain, "--json", env.Postfix.Log).CombinedOutput()
		if err != nil {
			t.Fatalf("ledger import: %v\n%s", err, out)
		}
		var sum importSummary
		if err := json.Unmarshal(out, &sum); err != nil {
			t.Fatalf("ledger import --json: %v\n%s", err, out)
		}
		if sum.Malformed != 0 || sum.Errors != 0 || sum.New < len(sent) {
			t.Errorf("import of the Postfix log: %+v, want no malformed line, no error, at least %d new", sum, len(sent))
		}
		look := func(id string) lookupRecord {
			out, _ := exec.Command(ndrmilterBinary(t), "ledger", "lookup", "--data", data, "--json", id).Output()
			var lr lookupRecord
			if err := json.Unmarshal(out, &lr); err != nil {
				t.Fatalf("lookup %s: %v\n%s", id, err, out)
			}
			return lr
		}
		for id, rcpt := range sent {
			if lr := look(id); !lr.Found || lr.Sender != alice || len(lr.Recipients) != 1 || lr.Recipients[0] != rcpt || lr.QueueID == "" {
				t.Errorf("imported <%s>: %+v, want alice -> %s with a queue id", id, lr, rcpt)
			}
		}
		if lr := look("dsn." + idB); lr.Found {
			t.Errorf("the inbound bounce dsn.%s was imported as mail that left: %+v", idB, lr)
		}
		// Importing again adds nothing.
		out, err = exec.Command(ndrmilterBinary(t), "ledger", "import", "--data", data, "--domain", e2eDomain, "--json", env.Postfix.Log).CombinedOutput()
		sum = importSummary{}
		if jerr := json.Unmarshal(out, &sum); err != nil || jerr != nil || sum.New != 0 || sum.Updated != 0 {
			t.Errorf("second import: %v %v %+v, want nothing new", err, jerr, sum)
		}
	})

	t.Run("g_no_milter_warnings", func(t *testing.T) {
		if bad := milterTrouble(env.Postfix.LogText()); len(bad) > 0 {
			t.Errorf("Postfix logged milter warnings or errors:\n%s", strings.Join(bad, "\n"))
		}
		if !strings.Contains(env.Postfix.LogText(), "milter-reject") {
			t.Errorf("no milter-reject in the log: the milter was not in the path")
		}
	})

	t.Run("f_milter_down_mail_flows", func(t *testing.T) {
		env.Milter.Stop()
		s := dialFrom(t, env.Postfix, internetIP, true)
		id := uniqueID("f-down")
		if err := s.Send(alice, []string{"bob@remote.test"}, e2eOutbound(id, "bob@remote.test", "f milter down")); err != nil {
			t.Fatalf("send with the milter down: %v\n%s", err, env.Postfix.LogTail(20))
		}
		s.Quit()
		in := dialFrom(t, env.Postfix, internetIP, false)
		if err := in.Send("", []string{alice}, e2eDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 unknown", "")); err != nil {
			t.Fatalf("send a bounce with the milter down: %v\n%s", err, env.Postfix.LogTail(20))
		}
		in.Quit()
		awaitID(t, env, id)
		m := awaitID(t, env, "dsn."+id)
		if bs := headerValues(m, "X-NDR-Backscatter"); len(bs) != 0 {
			t.Errorf("with ndrmilter down the bounce has X-NDR-Backscatter %q", bs)
		}
		// The only milter complaint allowed now: Postfix could not connect.
		for _, line := range milterTrouble(env.Postfix.LogText()) {
			if !strings.Contains(line, "Connection refused") && !strings.Contains(line, "connect to Milter service") {
				t.Errorf("unexpected milter trouble with the milter down: %s", line)
			}
		}
	})
}

func saslPlain() sasl.Client { return sasl.NewPlainClient("", e2eUser+"@"+e2eDomain, e2ePassword) }

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
