package milter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// testEngine loads the built-in rules once.
func testEngine(t testing.TB) *rules.Engine {
	t.Helper()
	eng, err := rules.Load()
	if err != nil {
		t.Fatalf("rules.Load: %v", err)
	}
	return eng
}

func openLedger(t testing.TB, dir string) ledger.Ledger {
	t.Helper()
	l, err := ledger.OpenBolt(filepath.Join(dir, "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// startServer runs a Server on a loopback port and stops it at cleanup.
func startServer(t testing.TB, cfg Config, l ledger.Ledger) (*Server, string) {
	t.Helper()
	if cfg.Domains == nil {
		cfg.Domains = []string{"example.org"}
	}
	srv, err := New(cfg, testEngine(t), l, nil, prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("Serve returned %v", err)
		}
	})
	return srv, ln.Addr().String()
}

// newClient is a milter client with the actions Postfix offers a protocol 2
// milter (no change-from: see DEVELOPERS.md).
func newClient(addr string) *gomilter.Client {
	return gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{
		ReadTimeout:  10 * time.Second,
		WriteTimeout: 10 * time.Second,
		ActionMask:   gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine,
	})
}

// mta plays Postfix's smtpd on one milter connection: macros at every stage,
// an abort after every message, several messages per connection.
type mta struct {
	t        testing.TB
	s        *gomilter.ClientSession
	clientIP string
	n        int
}

// dial opens a milter connection for an SMTP client at clientIP.
func dial(t testing.TB, c *gomilter.Client, clientIP string) *mta {
	t.Helper()
	s, err := c.Session()
	if err != nil {
		t.Fatalf("milter session: %v", err)
	}
	m := &mta{t: t, s: s, clientIP: clientIP}
	must(t, s.Macros(gomilter.CodeConn, "j", "mx.example.org", "{daemon_name}", "mx.example.org",
		"{client_addr}", clientIP, "{client_name}", "client.example.net", "_", "client.example.net ["+clientIP+"]"))
	fam := gomilter.FamilyInet
	if strings.Contains(clientIP, ":") {
		fam = gomilter.FamilyInet6
	}
	act, err := s.Conn("client.example.net", fam, 40000, clientIP)
	if err != nil || act.Code != gomilter.ActContinue {
		t.Fatalf("connect: %v %v", act, err)
	}
	act, err = s.Helo("client.example.net")
	if err != nil || act.Code != gomilter.ActContinue {
		t.Fatalf("helo: %v %v", act, err)
	}
	return m
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (m *mta) close() { m.s.Close() }

// envelope is one message to send.
type envelope struct {
	from    string
	rcpts   []string
	auth    string // SASL login, "" for none
	queueID string // "" for a generated one
	raw     []byte // header and body
}

// result is what the milter did with a message.
type result struct {
	mods    []gomilter.ModifyAction
	act     *gomilter.Action
	queueID string
}

// send runs one message through the milter like Postfix does, and returns
// the modifications and the final action.
func (m *mta) send(e envelope) (result, error) {
	m.n++
	qid := e.queueID
	if qid == "" {
		qid = fmt.Sprintf("4T%sQ%d", strings.NewReplacer(".", "", ":", "").Replace(m.clientIP), m.n)
	}
	s := m.s
	if err := s.Macros(gomilter.CodeMail, "{auth_authen}", e.auth, "{auth_type}", authType(e.auth),
		"{client_addr}", m.clientIP, "{daemon_name}", "mx.example.org", "{mail_addr}", e.from); err != nil {
		return result{}, err
	}
	if act, err := s.Mail(e.from, nil); err != nil || act.Code != gomilter.ActContinue {
		return result{act: act}, err
	}
	for _, r := range e.rcpts {
		if err := s.Macros(gomilter.CodeRcpt, "{rcpt_addr}", r); err != nil {
			return result{}, err
		}
		if act, err := s.Rcpt(r, nil); err != nil || act.Code != gomilter.ActContinue {
			return result{act: act}, err
		}
	}
	fields, body := splitMessage(e.raw)
	for _, f := range fields {
		act, err := s.HeaderField(f[0], f[1])
		if err != nil || act.Code != gomilter.ActContinue {
			return result{act: act}, err
		}
	}
	if err := s.Macros(gomilter.CodeEOH, "i", qid); err != nil {
		return result{}, err
	}
	act, err := s.HeaderEnd()
	if err == nil && act.Code == gomilter.ActAccept {
		// Accepted at the end of the header: Postfix sends no body, no end
		// of message, and an abort when the message ends.
		return result{act: act, queueID: qid}, s.Abort()
	}
	if err != nil || act.Code != gomilter.ActContinue {
		return result{act: act}, err
	}
	if err := s.Macros(gomilter.CodeEOB, "i", qid); err != nil {
		return result{}, err
	}
	mods, act, err := s.BodyReadFrom(bytes.NewReader(body))
	if err != nil {
		return result{}, err
	}
	// Postfix sends an abort after every message.
	if err := s.Abort(); err != nil {
		return result{}, err
	}
	return result{mods: mods, act: act, queueID: qid}, nil
}

// passed reports whether the milter let the message through: accepted at
// the end of its header or continued at its end.
func (r result) passed() bool {
	return r.act != nil && (r.act.Code == gomilter.ActContinue || r.act.Code == gomilter.ActAccept)
}

// untouched reports whether the milter let the message through unchanged.
func (r result) untouched() bool { return r.passed() && len(r.mods) == 0 }

// sendStream is send for a message whose body comes from r (for huge messages).
func (m *mta) sendStream(e envelope, body io.Reader) (result, error) {
	s := m.s
	if err := s.Macros(gomilter.CodeMail, "{client_addr}", m.clientIP); err != nil {
		return result{}, err
	}
	if _, err := s.Mail(e.from, nil); err != nil {
		return result{}, err
	}
	for _, r := range e.rcpts {
		if _, err := s.Rcpt(r, nil); err != nil {
			return result{}, err
		}
	}
	fields, _ := splitMessage(e.raw)
	for _, f := range fields {
		if _, err := s.HeaderField(f[0], f[1]); err != nil {
			return result{}, err
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		return result{}, err
	}
	if err := s.Macros(gomilter.CodeEOB, "i", e.queueID); err != nil {
		return result{}, err
	}
	mods, act, err := s.BodyReadFrom(body)
	if err != nil {
		return result{}, err
	}
	return result{mods: mods, act: act}, s.Abort()
}

func authType(login string) string {
	if login == "" {
		return ""
	}
	return "PLAIN"
}

// splitMessage splits raw into header fields (name, value as Postfix sends
// it: no leading space, continuation lines joined with "\n") and a CRLF body.
func splitMessage(raw []byte) ([][2]string, []byte) {
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	head, body, _ := strings.Cut(text, "\n\n")
	var fields [][2]string
	for _, line := range strings.Split(head, "\n") {
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(fields) > 0 {
			fields[len(fields)-1][1] += "\n" + line
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		fields = append(fields, [2]string{name, strings.TrimPrefix(value, " ")})
	}
	return fields, []byte(strings.ReplaceAll(body, "\n", "\r\n"))
}

// applied is the header after the milter's modifications, as Postfix would
// write it, plus the quarantine reason and new body if any.
type applied struct {
	fields     [][2]string
	quarantine string
	body       []byte
}

func apply(raw []byte, mods []gomilter.ModifyAction) applied {
	fields, _ := splitMessage(raw)
	var a applied
	for _, md := range mods {
		switch md.Code {
		case gomilter.ActChangeHeader:
			n := 0
			for i := range fields {
				if strings.EqualFold(fields[i][0], md.HeaderName) {
					n++
					if n == int(md.HeaderIndex) {
						if md.HeaderValue == "" {
							fields = append(fields[:i], fields[i+1:]...)
						} else {
							fields[i][1] = md.HeaderValue
						}
						break
					}
				}
			}
		case gomilter.ActAddHeader:
			fields = append(fields, [2]string{md.HeaderName, md.HeaderValue})
		case gomilter.ActQuarantine:
			a.quarantine = md.Reason
		case gomilter.ActReplBody:
			a.body = append(a.body, md.Body...)
		}
	}
	a.fields = fields
	return a
}

// get returns the values of the fields named name.
func (a applied) get(name string) []string {
	var out []string
	for _, f := range a.fields {
		if strings.EqualFold(f[0], name) {
			out = append(out, f[1])
		}
	}
	return out
}

// report builds an RFC 3464 bounce for a message with the given Message-ID
// from origSender to failedRcpt, with Postfix's layout: a human-readable
// part, message/delivery-status, text/rfc822-headers of the original.
func report(origMsgID, origSender, failedRcpt, status, diag string, extraHeaders ...string) []byte {
	var b strings.Builder
	for _, h := range extraHeaders {
		b.WriteString(h + "\r\n")
	}
	fmt.Fprintf(&b, `Return-Path: <>
Received: by mx.remote.example (Postfix) id 4RRRRR1; Mon,  2 Nov 2026 10:00:01 +0000 (UTC)
Date: Mon,  2 Nov 2026 10:00:01 +0000 (UTC)
From: MAILER-DAEMON@mx.remote.example (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: %[2]s
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="BOUNDARY.1"
Message-Id: <20261102100001.4RRRRR1@mx.remote.example>

This is a MIME-encapsulated message.

--BOUNDARY.1
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.remote.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<%[3]s>: host mx.remote.example said: %[5]s

--BOUNDARY.1
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.remote.example
X-Postfix-Queue-ID: 4RRRRR1
Arrival-Date: Mon,  2 Nov 2026 10:00:00 +0000 (UTC)

Final-Recipient: rfc822; %[3]s
Original-Recipient: rfc822;%[3]s
Action: failed
Status: %[4]s
Remote-MTA: dns; mx.remote.example
Diagnostic-Code: smtp; %[5]s

--BOUNDARY.1
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

Return-Path: <%[2]s>
Received: from submit.example.org (submit.example.org [192.0.2.1])
	by mx.example.org (Postfix) with ESMTPSA id 4ORIG%[6]s
	for <%[3]s>; Mon,  2 Nov 2026 09:59:59 +0000 (UTC)
From: %[2]s
To: %[3]s
Subject: quarterly report
Message-ID: <%[1]s>
Date: Mon,  2 Nov 2026 09:59:59 +0000

--BOUNDARY.1--
`, origMsgID, origSender, failedRcpt, status, diag, strings.NewReplacer("@", "", ".", "", "-", "").Replace(origMsgID))
	return []byte(strings.ReplaceAll(b.String(), "\n", "\r\n"))
}

// plain builds an ordinary message.
func plain(from, to, msgID string, extraHeaders ...string) []byte {
	var b strings.Builder
	for _, h := range extraHeaders {
		b.WriteString(h + "\r\n")
	}
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: lunch on friday\r\nMessage-ID: <%s>\r\nDate: Mon, 2 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nShall we meet at noon?\r\n", from, to, msgID)
	return []byte(b.String())
}

// waitRecorded polls the ledger until the Message-ID is there (records are
// written in the background, within one group commit).
func waitRecorded(t testing.TB, l ledger.Ledger, msgID string) ledger.Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := l.ByMessageID(context.Background(), msgID)
		if err == nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("Message-ID %s not recorded in the ledger after 5s: %v", msgID, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
