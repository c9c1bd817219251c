//go:build e2e

// Two ndrmilter processes sharing one Redis ledger (a standalone server or
// a Redis Cluster), driven over the milter protocol with go-milter's client
// as Postfix would drive them: no Postfix here, so that each message's time
// in the milter is measured exactly. These tests do not run in parallel
// with the Postfix ones (no t.Parallel): their time bounds must not wait on
// a busy machine.

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// milterMsg is one message as Postfix hands it to a milter.
type milterMsg struct {
	ClientIP string // {client_addr}; 127.0.0.1 with Auth for submission
	Auth     string // {auth_authen}, empty for an unauthenticated client
	QueueID  string // {i}
	From     string
	Rcpts    []string
	Header   [][2]string
	Body     string
}

// milterResult is the milter's answer at end of message.
type milterResult struct {
	Action *gomilter.Action
	Mods   []gomilter.ModifyAction
	Took   time.Duration // from connect to the end-of-message answer
}

// Header returns the value of the first added header name, or "".
func (r milterResult) Header(name string) string {
	for _, m := range r.Mods {
		if (m.Code == gomilter.ActAddHeader || m.Code == gomilter.ActInsertHeader) && strings.EqualFold(m.HeaderName, name) {
			return strings.TrimSpace(m.HeaderValue)
		}
	}
	return ""
}

// sendMilter runs one SMTP session with one message through the milter at
// addr. The action mask leaves out change-from: go-milter's client would not
// then negotiate down to the protocol version the server speaks.
func sendMilter(t *testing.T, addr string, m milterMsg) milterResult {
	t.Helper()
	c := gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{
		ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptQuarantine | gomilter.OptChangeBody,
	})
	start := time.Now()
	s, err := c.Session()
	if err != nil {
		t.Fatalf("milter session with %s: %v", addr, err)
	}
	defer s.Close()
	fail := func(stage string, err error) {
		t.Helper()
		t.Fatalf("milter %s at %s: %v", stage, addr, err)
	}
	family := gomilter.FamilyInet
	if strings.Contains(m.ClientIP, ":") {
		family = gomilter.FamilyInet6
	}
	if err := s.Macros(gomilter.CodeConn, "j", "mx.example.org", "{client_addr}", m.ClientIP, "{client_name}", "client.example.net"); err != nil {
		fail("macros", err)
	}
	if _, err := s.Conn("client.example.net", family, 40000, m.ClientIP); err != nil {
		fail("connect", err)
	}
	if _, err := s.Helo("client.example.net"); err != nil {
		fail("helo", err)
	}
	mailMacros := []string{"{client_addr}", m.ClientIP, "{mail_addr}", m.From}
	if m.Auth != "" {
		mailMacros = append(mailMacros, "{auth_authen}", m.Auth, "{auth_type}", "PLAIN")
	}
	if err := s.Macros(gomilter.CodeMail, mailMacros...); err != nil {
		fail("macros", err)
	}
	if act, err := s.Mail("<"+m.From+">", nil); err != nil || act.Code != gomilter.ActContinue {
		fail("mail", fmt.Errorf("%v %+v", err, act))
	}
	for _, r := range m.Rcpts {
		if err := s.Macros(gomilter.CodeRcpt, "{rcpt_addr}", r); err != nil {
			fail("macros", err)
		}
		if act, err := s.Rcpt("<"+r+">", nil); err != nil || act.Code != gomilter.ActContinue {
			fail("rcpt", fmt.Errorf("%v %+v", err, act))
		}
	}
	if err := s.Macros(gomilter.CodeHeader, "i", m.QueueID); err != nil {
		fail("macros", err)
	}
	for _, h := range m.Header {
		if _, err := s.HeaderField(h[0], h[1]); err != nil {
			fail("header", err)
		}
	}
	if err := s.Macros(gomilter.CodeEOH, "i", m.QueueID); err != nil {
		fail("macros", err)
	}
	if _, err := s.HeaderEnd(); err != nil {
		fail("end of header", err)
	}
	body := []byte(strings.ReplaceAll(m.Body, "\n", "\r\n"))
	for len(body) > 0 {
		n := min(len(body), 65535)
		if _, err := s.BodyChunk(body[:n]); err != nil {
			fail("body", err)
		}
		body = body[n:]
	}
	if err := s.Macros(gomilter.CodeEOB, "i", m.QueueID); err != nil {
		fail("macros", err)
	}
	mods, act, err := s.End()
	if err != nil {
		fail("end of message", err)
	}
	return milterResult{Action: act, Mods: mods, Took: time.Since(start)}
}

// outbound is a message alice submits (authenticated, from loopback).
func outbound(msgID, queueID, rcpt string) milterMsg {
	return milterMsg{
		ClientIP: "127.0.0.1", Auth: "alice@example.org", QueueID: queueID,
		From: "alice@example.org", Rcpts: []string{rcpt},
		Header: [][2]string{
			{"From", "Alice <alice@example.org>"},
			{"To", rcpt},
			{"Subject", "Quarterly figures"},
			{"Message-ID", "<" + msgID + ">"},
			{"Date", time.Now().Format(time.RFC1123Z)},
		},
		Body: "Hello,\n\nthe figures are attached.\n\nAlice\n",
	}
}

// bounce is the RFC 3464 report a remote server sends back for the message
// msgID that alice sent to rcpt: null sender, from a client outside the
// trusted networks, original headers as text/rfc822-headers.
func bounce(msgID, queueID, rcpt string) milterMsg {
	const boundary = "=_report_boundary_42"
	var b bytes.Buffer
	fmt.Fprintf(&b, "--%s\nContent-Type: text/plain; charset=us-ascii\n\n", boundary)
	fmt.Fprintf(&b, "This is the mail system at host mx.remote.example.net.\n\n")
	fmt.Fprintf(&b, "Your message could not be delivered to one or more recipients.\n\n")
	fmt.Fprintf(&b, "<%s>: host mx.remote.example.net[198.51.100.7] said: 550 5.1.1\n    <%s>: Recipient address rejected: User unknown in virtual mailbox table\n\n", rcpt, rcpt)
	fmt.Fprintf(&b, "--%s\nContent-Type: message/delivery-status\n\n", boundary)
	fmt.Fprintf(&b, "Reporting-MTA: dns; mx.remote.example.net\nArrival-Date: %s\n\n", time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Final-Recipient: rfc822; %s\nOriginal-Recipient: rfc822;%s\nAction: failed\nStatus: 5.1.1\n", rcpt, rcpt)
	fmt.Fprintf(&b, "Remote-MTA: dns; mx.remote.example.net\nDiagnostic-Code: smtp; 550 5.1.1 <%s>: Recipient address\n    rejected: User unknown in virtual mailbox table\n\n", rcpt)
	fmt.Fprintf(&b, "--%s\nContent-Type: text/rfc822-headers\n\n", boundary)
	fmt.Fprintf(&b, "From: Alice <alice@example.org>\nTo: %s\nSubject: Quarterly figures\nMessage-ID: <%s>\nDate: %s\n\n", rcpt, msgID, time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "--%s--\n", boundary)
	return milterMsg{
		ClientIP: "198.51.100.7", QueueID: queueID,
		From: "", Rcpts: []string{"alice@example.org"},
		Header: [][2]string{
			{"From", "Mail Delivery System <MAILER-DAEMON@mx.remote.example.net>"},
			{"To", "alice@example.org"},
			{"Subject", "Undelivered Mail Returned to Sender"},
			{"Message-ID", "<" + queueID + ".report@mx.remote.example.net>"},
			{"Date", time.Now().Format(time.RFC1123Z)},
			{"MIME-Version", "1.0"},
			{"Content-Type", `multipart/report; report-type=delivery-status; boundary="` + boundary + `"`},
		},
		Body: b.String(),
	}
}

// twoMilters starts one Redis and two ndrmilter processes sharing it, each
// with its own data directory (so nothing is shared but Redis).
func twoMilters(t *testing.T) (*redistest.Server, *milterProc, *milterProc) {
	t.Helper()
	srv := redistest.Start(t)
	a, b := milterPair(t, srv.URL())
	return srv, a, b
}

// milterPair starts two ndrmilter processes on the ledger ledgerURL.
func milterPair(t *testing.T, ledgerURL string) (*milterProc, *milterProc) {
	t.Helper()
	a := startMilter(t, fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)), t.TempDir(), "--ledger", ledgerURL)
	b := startMilter(t, fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)), t.TempDir(), "--ledger", ledgerURL)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- ndrmilter A ---\n%s\n--- ndrmilter B ---\n%s", a.Output(), b.Output())
		}
	})
	return a, b
}

// recordThroughA submits an outbound message through A and waits until its
// record is in Redis, on any of nodes (A writes records in the background).
// It reports whether the record arrived within timeout.
func recordThroughA(t *testing.T, nodes []*redistest.Server, a *milterProc, msgID, queueID, rcpt string, timeout time.Duration) bool {
	t.Helper()
	res := sendMilter(t, a.Addr, outbound(msgID, queueID, rcpt))
	if res.Action.Code != gomilter.ActContinue && res.Action.Code != gomilter.ActAccept {
		t.Fatalf("outbound message through A: action %q, want continue/accept", res.Action.Code)
	}
	return waitFor(timeout, func() bool {
		for _, n := range nodes {
			// In a cluster, a node that does not own the key answers MOVED.
			if out, err := n.Cmd("EXISTS", "ndr:m:"+strings.ToLower(msgID)); err == nil && out == "1" {
				return true
			}
		}
		return false
	})
}

// metricValue scrapes m's /metrics and returns the value of the sample
// named exactly series (name and labels, as Prometheus prints them), or 0.
func metricValue(t *testing.T, m *milterProc, series string) float64 {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + m.Metrics + "/metrics")
	if err != nil {
		t.Fatalf("scraping %s: %v", m.Metrics, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		t.Fatalf("scraping %s: %v", m.Metrics, err)
	}
	for line := range strings.SplitSeq(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("metric %s: value %q", series, v)
			}
			return f
		}
	}
	return 0
}

// Two milters sharing a Redis ledger judge each other's mail: a message
// recorded through ndrmilter A makes its bounce through ndrmilter B "no"
// backscatter, a forged bounce (a Message-ID and recipient alice never
// used) is "yes", and the other way round.
func TestE2EMiltersSharingRedisJudgeEachOthersMail(t *testing.T) {
	srv, a, b := twoMilters(t)
	id := uniqueID("shared")
	if !recordThroughA(t, []*redistest.Server{srv}, a, id, "4QA0001", "bob@remote.example.net", 5*time.Second) {
		t.Fatalf("the outbound message through A never reached Redis:\n%s", a.Output())
	}
	res := sendMilter(t, b.Addr, bounce(id, "4QB0001", "bob@remote.example.net"))
	if got := res.Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "no") {
		t.Fatalf("bounce of a message sent through A, judged by B: X-NDR-Backscatter %q, want no", got)
	}
	forged := sendMilter(t, b.Addr, bounce(uniqueID("forged"), "4QB0002", "victim@remote.example.net"))
	if got := forged.Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "yes") {
		t.Fatalf("forged bounce judged by B: X-NDR-Backscatter %q, want yes", got)
	}
	// And the other way round: A judges what B recorded.
	id2 := uniqueID("reverse")
	if out := sendMilter(t, b.Addr, outbound(id2, "4QB0003", "carol@remote.example.net")); out.Action.Code != gomilter.ActContinue && out.Action.Code != gomilter.ActAccept {
		t.Fatalf("outbound message through B: action %q", out.Action.Code)
	}
	if !waitFor(5*time.Second, func() bool {
		out, _ := srv.Cmd("EXISTS", "ndr:m:"+strings.ToLower(id2))
		return out == "1"
	}) {
		t.Fatal("the outbound message through B never reached Redis")
	}
	res = sendMilter(t, a.Addr, bounce(id2, "4QA0004", "carol@remote.example.net"))
	if got := res.Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "no") {
		t.Fatalf("bounce of a message sent through B, judged by A: X-NDR-Backscatter %q, want no", got)
	}
}

// With Redis stopped mid-run, mail keeps flowing, bounces get "unknown",
// and no message waits longer than the lookup deadline (plus slack); with
// Redis started again on the same port, verdicts come back without
// restarting either ndrmilter; with Redis hung, lookups give up at the
// deadline.
func TestE2EMailFlowsWhileRedisIsDownOrHung(t *testing.T) {
	const deadline = 200 * time.Millisecond // the milter's lookup budget per bounce (default)
	const slack = 150 * time.Millisecond    // connect, parse, scheduling on a shared 2-core machine
	srv, a, b := twoMilters(t)
	id := uniqueID("before")
	if !recordThroughA(t, []*redistest.Server{srv}, a, id, "4QA1001", "bob@remote.example.net", 5*time.Second) {
		t.Fatal("the outbound message through A never reached Redis")
	}
	if got := sendMilter(t, b.Addr, bounce(id, "4QB1001", "bob@remote.example.net")).Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "no") {
		t.Fatalf("before the outage: X-NDR-Backscatter %q, want no", got)
	}

	srv.Stop()
	var worst time.Duration
	var took []time.Duration
	for i := range 10 {
		out := sendMilter(t, a.Addr, outbound(uniqueID("down"), fmt.Sprintf("4QA2%03d", i), "dave@remote.example.net"))
		if out.Action.Code != gomilter.ActContinue && out.Action.Code != gomilter.ActAccept {
			t.Fatalf("outbound %d with Redis down: action %q, want the message to pass", i, out.Action.Code)
		}
		// An outbound message is acknowledged once its record is durable:
		// Redis refuses at once, so the record goes to the spool, one fsync
		// (record_wait, 2 s, bounds a Redis that does not answer).
		if out.Took > time.Second {
			t.Fatalf("outbound %d with Redis down took %v, want its record spooled within a second", i, out.Took)
		}
		for _, msg := range []milterMsg{
			bounce(id, fmt.Sprintf("4QB2%03d", i), "bob@remote.example.net"),
			bounce(uniqueID("forged-down"), fmt.Sprintf("4QB3%03d", i), "victim@remote.example.net"),
		} {
			res := sendMilter(t, b.Addr, msg)
			if got := res.Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "unknown") {
				t.Fatalf("bounce %d with Redis down: X-NDR-Backscatter %q, want unknown", i, got)
			}
			if res.Action.Code != gomilter.ActContinue && res.Action.Code != gomilter.ActAccept {
				t.Fatalf("bounce %d with Redis down: action %q, want the message to pass", i, res.Action.Code)
			}
			if res.Took > deadline+slack {
				t.Fatalf("bounce %d with Redis down answered after %v, deadline %v + slack %v", i, res.Took, deadline, slack)
			}
			worst = max(worst, res.Took)
			took = append(took, res.Took.Round(time.Millisecond))
		}
	}
	t.Logf("bounces with Redis stopped answered in %v (slowest %v)", took, worst)
	// The errors are counted: failed lookups in B, failed writes in A.
	if n := metricValue(t, b, `ndrmilter_ledger_operations_total{op="lookup",result="error"}`); n < 20 {
		t.Fatalf("B counted %v failed lookups for 20 bounces with Redis down", n)
	}
	if !waitFor(5*time.Second, func() bool {
		return metricValue(t, a, `ndrmilter_ledger_operations_total{op="put",result="error"}`) >= 10
	}) {
		t.Fatalf("A did not count 10 failed writes with Redis down")
	}
	if n := metricValue(t, b, `ndrmilter_backscatter_verdicts_total{evidence="ledger-error",verdict="unknown"}`); n < 20 {
		t.Fatalf("B counted %v unknown verdicts for ledger errors, want 20", n)
	}

	// Redis is back on the same port (empty: the test server keeps nothing
	// on disk). New mail through A is recorded again and B's verdicts come
	// back, with neither process restarted.
	srv.Restart()
	start := time.Now()
	var id2 string
	for try := 0; ; try++ {
		id2 = uniqueID("after")
		if recordThroughA(t, []*redistest.Server{srv}, a, id2, fmt.Sprintf("4QA5%03d", try), "erin@remote.example.net", time.Second) {
			break
		}
		if try == 10 {
			t.Fatalf("10 s after Redis came back, A still records nothing:\n%s", a.Output())
		}
	}
	t.Logf("A recorded again %v after Redis came back", time.Since(start))
	if got := sendMilter(t, b.Addr, bounce(id2, "4QB5001", "erin@remote.example.net")).Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "no") {
		t.Fatalf("after Redis came back: X-NDR-Backscatter %q, want no", got)
	}
	if got := sendMilter(t, b.Addr, bounce(uniqueID("forged-after"), "4QB5002", "victim@remote.example.net")).Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "yes") {
		t.Fatalf("forged bounce after Redis came back: X-NDR-Backscatter %q, want yes", got)
	}

	// A hung Redis (every client paused, after the milters reconnected) is
	// the harder case: the lookups must give up at the deadline.
	worst = 0
	if out, err := srv.Cmd("CLIENT", "PAUSE", "3000", "ALL"); err != nil || out != "OK" {
		t.Fatalf("CLIENT PAUSE: %v %s", err, out)
	}
	for i := range 5 {
		res := sendMilter(t, b.Addr, bounce(uniqueID("hung"), fmt.Sprintf("4QB4%03d", i), "victim@remote.example.net"))
		if got := res.Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "unknown") {
			t.Fatalf("bounce %d with Redis hung: X-NDR-Backscatter %q, want unknown", i, got)
		}
		if res.Took > deadline+slack {
			t.Fatalf("bounce %d with Redis hung answered after %v, deadline %v + slack %v", i, res.Took, deadline, slack)
		}
		worst = max(worst, res.Took)
	}
	t.Logf("slowest message with Redis hung: %v", worst)
	if _, err := srv.Cmd("CLIENT", "UNPAUSE"); err != nil {
		t.Fatal(err)
	}
	if got := sendMilter(t, b.Addr, bounce(id2, "4QB6001", "erin@remote.example.net")).Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "no") {
		t.Fatalf("after CLIENT UNPAUSE: X-NDR-Backscatter %q, want no", got)
	}
}

// On a three-master Redis Cluster (redis-server --cluster-enabled yes,
// joined by redis-cli --cluster create) the shared ledger gives the same
// verdicts, and its records spread over the masters.
func TestE2EMiltersSharingARedisClusterJudgeEachOthersMail(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	a, b := milterPair(t, c.URL())
	for i := range 9 {
		id := uniqueID(fmt.Sprintf("cluster%d", i))
		if !recordThroughA(t, c.Nodes, a, id, fmt.Sprintf("4QC%04d", i), "bob@remote.example.net", 5*time.Second) {
			t.Fatalf("outbound message %d through A never reached the cluster:\n%s", i, a.Output())
		}
		if got := sendMilter(t, b.Addr, bounce(id, fmt.Sprintf("4QD%04d", i), "bob@remote.example.net")).Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "no") {
			t.Fatalf("bounce %d of a message sent through A, judged by B on the cluster: X-NDR-Backscatter %q, want no", i, got)
		}
		if got := sendMilter(t, b.Addr, bounce(uniqueID("forged-cluster"), fmt.Sprintf("4QE%04d", i), "victim@remote.example.net")).Header("X-NDR-Backscatter"); !strings.HasPrefix(got, "yes") {
			t.Fatalf("forged bounce %d judged by B on the cluster: X-NDR-Backscatter %q, want yes", i, got)
		}
	}
	// The records are spread over the masters.
	holding := 0
	for _, n := range c.Nodes {
		if keys, _ := n.Cmd("--scan", "--pattern", "ndr:m:*"); keys != "" {
			holding++
		}
	}
	t.Logf("%d of 3 masters hold records", holding)
	if holding < 2 {
		t.Fatalf("records on %d master(s) only: the ledger does not spread over the cluster", holding)
	}
}
