//go:build e2e

package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
)

// Postfix tells the filter who the original client was, with XFORWARD, in
// each set-up: the filter announces XFORWARD to Postfix (a trusted client)
// and Postfix sends the client's address before MAIL; the filter passes it
// on to the reinjection smtpd, which logs the original client rather than
// the filter. The conversation is logged: it is what Postfix actually sends.
func TestE2EFilterLearnsTheOriginalClientFromPostfix(t *testing.T) {
	forEachFilterSetup(t, []filterSetup{afterQueue, beforeQueue, beforeQueueSpeedAdjust}, func(t *testing.T, setup filterSetup) {
		var tp *tap
		env := newFilterEnv(t, setup, filterEnvConfig{Via: func(listen string) string {
			var addr string
			tp, addr = startTap(t, listen)
			return addr
		}})
		c := env.Postfix.Dial(t, outsideIP)
		id := uniqueID("xforward")
		if err := c.Send("carol@remote.test", []string{alice}, aliceMessage(id, alice, "from outside")); err != nil {
			t.Fatalf("send: %v", err)
		}
		c.Quit()
		env.Await("<"+id+">", withMessageID(id))
		lines := tp.Lines()
		t.Logf("what Postfix sent the filter (C:) and heard back (S:):\n%s", strings.Join(lines, "\n"))

		attrs := map[string]string{}
		announced, mailSeen := false, false
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "S: 250") && strings.Contains(l, "XFORWARD"):
				announced = true
			case strings.HasPrefix(l, "C: XFORWARD ") && !mailSeen:
				for _, f := range strings.Fields(l)[2:] {
					k, v, _ := strings.Cut(f, "=")
					attrs[k] = v
				}
			case strings.HasPrefix(l, "C: MAIL FROM:"):
				mailSeen = true
			}
		}
		if !announced {
			t.Errorf("the filter did not announce XFORWARD to Postfix (connecting from 127.0.0.1, a trusted network)")
		}
		if attrs["ADDR"] != outsideIP || attrs["SOURCE"] != "REMOTE" {
			t.Errorf("XFORWARD before MAIL: %q, want ADDR=%s and SOURCE=REMOTE", attrs, outsideIP)
		}
		// After the queue, IDENT is the queue id of the message in
		// Postfix's queue (the filter records it in the ledger); before
		// it, there is no queue file yet.
		queued := regexp.MustCompile(`([0-9A-F]{6,}): client=unknown\[` + regexp.QuoteMeta(outsideIP) + `\]`)
		m, ok := env.Postfix.AwaitLog(5*time.Second, queued)
		if setup.AfterQueue {
			if !ok || attrs["IDENT"] != m[1] {
				t.Errorf("XFORWARD IDENT = %q, want the queue id Postfix's smtpd gave the message (%v)", attrs["IDENT"], m)
			}
		} else if attrs["IDENT"] != "[UNAVAILABLE]" {
			t.Errorf("XFORWARD IDENT = %q before the queue, want [UNAVAILABLE]", attrs["IDENT"])
		}
		// The reinjection (after-filter) smtpd logs the original client,
		// which it knows only from the filter's XFORWARD.
		reinjected := regexp.MustCompile(`smtpd\[\d+\]: [0-9A-F]+: client=unknown\[127\.0\.0\.1\],( orig_queue_id=[0-9A-F]+,)? orig_client=unknown\[` +
			regexp.QuoteMeta(outsideIP) + `\]`)
		if _, ok := env.Postfix.AwaitLog(5*time.Second, reinjected); !ok {
			t.Errorf("the reinjection smtpd did not log the original client %s: the filter did not pass XFORWARD on\n%s",
				outsideIP, env.Postfix.LogTail(30))
		}
		if setup.AfterQueue {
			n := len(tp.Lines())
			id := uniqueID("xforward-local")
			env.Postfix.Sendmail(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "from the host"))
			env.Await("<"+id+">", withMessageID(id))
			t.Logf("for mail from sendmail:\n%s", strings.Join(tp.Lines()[n:], "\n"))
		}
	})
}

// Mail that leaves through Postfix from a trusted host, or from alice
// logged in on the submission service (pointed at the filter's outbound
// listener, as the kit says), and after the queue mail submitted on the
// host with sendmail (XFORWARD SOURCE=LOCAL), is recorded in the ledger
// and passes without X-NDR headers; mail from the Internet is not recorded.
func TestE2EFilterRecordsOutboundMail(t *testing.T) {
	forEachFilterSetup(t, filterSetups, func(t *testing.T, setup filterSetup) {
		env := newFilterEnv(t, setup, filterEnvConfig{})
		sent := map[string]string{} // Message-ID -> recipient

		tr := env.Postfix.Dial(t, trustedIP)
		id := uniqueID("by-trusted-host")
		if err := tr.Send(alice, []string{"carol@remote.test"}, aliceMessage(id, "carol@remote.test", "sent by a trusted host")); err != nil {
			t.Fatalf("send from the trusted host: %v", err)
		}
		tr.Quit()
		sent[id] = "carol@remote.test"

		sub := env.DialSubmission(t, outsideIP)
		sub.Login()
		id = uniqueID("by-login")
		if err := sub.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "sent after a login")); err != nil {
			t.Fatalf("send after a login on the submission service: %v", err)
		}
		sub.Quit()
		sent[id] = "bob@remote.test"

		if setup.AfterQueue {
			// Mail from the host itself gets a content filter request
			// from pickup(8); before the queue it never meets the proxy.
			id = uniqueID("by-sendmail")
			env.Postfix.Sendmail(alice, []string{"dave@remote.test"}, aliceMessage(id, "dave@remote.test", "sent with sendmail"))
			sent[id] = "dave@remote.test"
		}

		in := env.Postfix.Dial(t, outsideIP)
		inboundID := uniqueID("from-outside")
		if err := in.Send("carol@remote.test", []string{alice}, aliceMessage(inboundID, alice, "from outside")); err != nil {
			t.Fatalf("send from outside: %v", err)
		}
		in.Quit()

		delivered := map[string]postfixtest.Message{}
		for id, rcpt := range sent {
			m := env.Await("<"+id+">", withMessageID(id))
			delivered[id] = m
			if len(m.To) != 1 || m.To[0] != rcpt {
				t.Errorf("<%s> reached the sink for %v, want %s", id, m.To, rcpt)
			}
			if h := ndrHeaderLines(m.Data); len(h) != 0 {
				t.Errorf("outbound mail <%s> got X-NDR headers: %q", id, h)
			}
		}
		env.Await("<"+inboundID+">", withMessageID(inboundID))
		env.StopFilter()
		for id, rcpt := range sent {
			lr := env.Lookup(id)
			if !lr.Found || lr.Sender != alice || strings.Join(lr.Recipients, ",") != rcpt {
				t.Errorf("ledger lookup <%s>: %+v, want found, sender %s, recipient %s", id, lr, alice, rcpt)
			}
			// The queue id recorded (XFORWARD IDENT, or the one in the
			// reinjection smtpd's "queued as") is one a bounce quoting
			// the message's Received fields names.
			if received := strings.Join(delivered[id].HeaderValues("Received"), "\n"); lr.QueueID == "" ||
				!strings.Contains(received, " id "+lr.QueueID) {
				t.Errorf("ledger lookup <%s>: queue id %q, want one of the message's Received fields:\n%s", id, lr.QueueID, received)
			}
		}
		if lr := env.Lookup(inboundID); lr.Found {
			t.Errorf("mail from outside (%s) was recorded as outbound: %+v", outsideIP, lr)
		}
	})
}

// A bounce from outside for mail that left through the filter is
// explained (what, to whom, who must act) and judged not backscatter on
// the Message-ID the ledger recorded, and an X-NDR-* header it brought is
// replaced, not kept.
func TestE2EFilterExplainsTheBounceOfMailSentHere(t *testing.T) {
	forEachFilterSetup(t, filterSetups, func(t *testing.T, setup filterSetup) {
		env := newFilterEnv(t, setup, filterEnvConfig{})
		tr := env.Postfix.Dial(t, trustedIP)
		id := uniqueID("to-bob")
		if err := tr.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "to bob")); err != nil {
			t.Fatalf("send: %v", err)
		}
		tr.Quit()
		env.Await("<"+id+">", withMessageID(id))

		in := env.Postfix.Dial(t, outsideIP)
		msg := remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 <bob@remote.test>: Recipient address rejected: User unknown in virtual mailbox table", "X-NDR-Owner: none\n")
		if err := in.Send("", []string{alice}, msg); err != nil {
			t.Fatalf("send the bounce: %v", err)
		}
		in.Quit()
		m := env.Await("the bounce of <"+id+">", withMessageID("dsn."+id))
		if expl := m.HeaderValues("X-NDR-Explanation"); len(expl) == 0 || !strings.Contains(strings.Join(expl, " "), "bob@remote.test") {
			t.Errorf("X-NDR-Explanation = %q, want one naming bob@remote.test", expl)
		}
		if own := m.HeaderValues("X-NDR-Owner"); len(own) != 1 || own[0] != "sender" {
			t.Errorf("X-NDR-Owner = %q, want exactly one, \"sender\" (5.1.1; the forged one removed)", own)
		}
		if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") || !strings.Contains(bs[0], "evidence=message-id") {
			t.Errorf("X-NDR-Backscatter = %q, want \"no; evidence=message-id\"", bs)
		}
		if st := m.HeaderValues("X-NDR-Status"); len(st) == 0 || !strings.Contains(st[0], "status=5.1.1") {
			t.Errorf("X-NDR-Status = %q, want status=5.1.1", st)
		}
		for _, h := range []string{"X-NDR-Backscatter", "X-NDR-Owner", "X-NDR-Status", "X-NDR-Explanation"} {
			t.Logf("%s: %s", h, strings.Join(m.HeaderValues(h), " | "))
		}
	})
}

// A bounce from outside for a message never sent from here is judged
// backscatter: with the kit's action after the queue (tag) it is delivered
// with X-NDR-Backscatter: yes; before the queue the kit's action is reject,
// and the sending server gets the 550 while nothing is delivered; with tag
// there, it is delivered marked yes.
func TestE2EFilterJudgesAForgedBounceBackscatter(t *testing.T) {
	variants := []struct {
		setup  filterSetup
		flags  []string
		reject bool
	}{
		{afterQueue, nil, false},
		{beforeQueue, nil, true},
		{filterSetup{Name: "before-queue-tag", File: beforeQueue.File}, []string{"--backscatter-action", "tag"}, false},
	}
	t.Parallel()
	for _, v := range variants {
		t.Run(v.setup.Name, func(t *testing.T) {
			t.Parallel()
			env := newFilterEnv(t, v.setup, filterEnvConfig{FilterFlags: v.flags})
			never := uniqueID("never-sent")
			s := env.Postfix.Dial(t, outsideIP)
			err := s.Send("", []string{alice}, remoteDSN(never, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", ""))
			s.Quit()
			if v.reject {
				se := smtpError(err)
				if se == nil || se.Code != 550 || !strings.Contains(strings.ToLower(se.Message), "backscatter") {
					t.Fatalf("forged bounce before the queue with the kit's reject: %v, want 550 saying backscatter", err)
				}
				t.Logf("the sending server saw: %d %v %s", se.Code, se.EnhancedCode, se.Message)
				if _, ok := env.Postfix.AwaitLog(5*time.Second, regexp.MustCompile(`proxy-reject: END-OF-MESSAGE: 550 `)); !ok {
					t.Errorf("Postfix did not log the proxy-reject\n%s", env.Postfix.LogTail(20))
				}
				if _, ok := env.Postfix.Sink.Await(3*time.Second, withMessageID("dsn."+never)); ok {
					t.Errorf("the rejected bounce reached the sink")
				}
				return
			}
			if err != nil {
				t.Fatalf("send the forged bounce: %v", err)
			}
			m := env.Await("the forged bounce", withMessageID("dsn."+never))
			if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "yes") {
				t.Errorf("forged bounce: X-NDR-Backscatter = %q, want yes", bs)
			}
		})
	}
}

// ordinaryBody is a body with what a relay might spoil: lines starting
// with dots, trailing white space, 8-bit text, a long line, a line that
// looks like an X-NDR header, blank lines at the end.
var ordinaryBody = "Hello Alice,\n\n" +
	".a line that starts with a dot\n" +
	"..and one with two\n" +
	".\n" +
	"trailing white space \t \n" +
	"\tindented with a tab\n" +
	"X-NDR-Backscatter: yes (in the body: text, not a header)\n" +
	"Grüße aus Köln, 東京からこんにちは\n" +
	strings.Repeat("0123456789", 90) + "\n" +
	"\n\n"

// Ordinary mail from outside passes the filter with its body byte for
// byte and its header as sent, less the X-NDR-* fields it brought (forged:
// only ndrmilter writes them), whatever their case or folding.
func TestE2EFilterPassesOrdinaryMailUntouched(t *testing.T) {
	forEachFilterSetup(t, filterSetups, func(t *testing.T, setup filterSetup) {
		env := newFilterEnv(t, setup, filterEnvConfig{})
		id := uniqueID("ordinary")
		header := "From: Carol <carol@remote.test>\n" +
			"To: Alice <" + alice + ">\n" +
			"Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?= and a folded\n subject line\n" +
			"Date: " + time.Now().Format(time.RFC1123Z) + "\n" +
			"Message-ID: <" + id + ">\n" +
			"X-NDR-Backscatter: no; evidence=forged\n" +
			"x-ndr-owner: none\n" +
			"X-Mailer: e2e\n" +
			"X-NDR-Explanation: forged,\n\tfolded\n" +
			"MIME-Version: 1.0\n" +
			"Content-Type: text/plain; charset=utf-8\n" +
			"Content-Transfer-Encoding: 8bit\n"
		c := env.Postfix.Dial(t, outsideIP)
		if err := c.Send("carol@remote.test", []string{alice}, header+"\n"+ordinaryBody); err != nil {
			t.Fatalf("send: %v", err)
		}
		c.Quit()
		m := env.Await("<"+id+">", withMessageID(id))

		gotHeader, gotBody, ok := bytes.Cut(m.Data, []byte("\r\n\r\n"))
		if !ok {
			t.Fatalf("the delivered message has no end of header:\n%s", m.Data)
		}
		if want := strings.ReplaceAll(ordinaryBody, "\n", "\r\n"); string(gotBody) != want {
			t.Errorf("body changed on the way:\ngot  %q\nwant %q", gotBody, want)
		}
		if h := ndrHeaderLines(m.Data); len(h) != 0 {
			t.Errorf("X-NDR headers from outside reached the mailbox: %q", h)
		}
		// Every other field arrives as sent, in order (Postfix adds its
		// Received fields on top).
		var want []string
		for _, f := range splitFields(strings.ReplaceAll(header, "\n", "\r\n")) {
			if !strings.HasPrefix(strings.ToLower(f), "x-ndr-") {
				want = append(want, f)
			}
		}
		got := splitFields(string(gotHeader) + "\r\n")
		if !inOrder(got, want) {
			t.Errorf("header fields changed on the way:\ngot  %q\nwant %q among them, in order", got, want)
		}
	})
}

// With the filter stopped nothing is lost. After the queue, the message
// waits in Postfix's queue, deferred, and is delivered, once, when the
// filter is back. Before the queue, the sending client gets a 4xx (at MAIL,
// or at the end of DATA with speed_adjust), nothing is queued or
// delivered, and its retry, once the filter is back, is delivered once.
func TestE2EFilterDownKeepsTheMail(t *testing.T) {
	forEachFilterSetup(t, []filterSetup{afterQueue, beforeQueue, beforeQueueSpeedAdjust}, func(t *testing.T, setup filterSetup) {
		env := newFilterEnv(t, setup, filterEnvConfig{})
		env.StopFilter()
		id := uniqueID("filter-down")
		msg := aliceMessage(id, alice, "sent while the filter is down")
		c := env.Postfix.Dial(t, outsideIP)
		err := c.Send("carol@remote.test", []string{alice}, msg)
		c.Quit()

		if setup.AfterQueue {
			if err != nil {
				t.Fatalf("send with the filter down: %v, want accepted into the queue", err)
			}
			// Deferred, and retried at every queue run (once a second
			// here): the queue it is in changes, its reason stays.
			deferred := regexp.MustCompile(`([0-9A-F]+): to=<` + regexp.QuoteMeta(alice) + `>, relay=none, .*status=deferred \(connect to ` +
				regexp.QuoteMeta("127.0.0.1[127.0.0.1]:"+strings.TrimPrefix(env.Listen, "127.0.0.1:")) + `: Connection refused\)`)
			m, ok := env.Postfix.AwaitLog(deliverWait, deferred)
			if !ok {
				t.Fatalf("Postfix did not defer the message for the filter (%s)\n%s", env.Listen, env.Postfix.LogTail(20))
			}
			q := env.Postfix.Queue()
			if len(q) != 1 || q[0].ID != m[1] || q[0].Sender != "carol@remote.test" {
				t.Fatalf("the queue with the filter down: %+v, want the message %s, deferred", q, m[1])
			}
			t.Logf("in the queue while the filter is down: %s (%s): %s", q[0].ID, q[0].Queue, q[0].Recipients[0].DelayReason)
		} else {
			se := smtpError(err)
			if se == nil || se.Code/100 != 4 {
				t.Fatalf("send with the filter down: %v, want a 4xx (the client keeps the message and tries again)", err)
			}
			t.Logf("the client saw: %d %v %s", se.Code, se.EnhancedCode, se.Message)
			// Postfix queues nothing of the client's (it tells the
			// postmaster, in a notice of its own, notify_classes).
			for _, q := range env.Postfix.Queue() {
				if q.Sender == "carol@remote.test" {
					t.Errorf("Postfix queued the message (%+v) although it answered 4xx", q)
				}
			}
		}
		if _, ok := env.Postfix.Sink.Await(2*time.Second, withMessageID(id)); ok {
			t.Fatalf("<%s> was delivered while the filter was down, around it", id)
		}

		env.StartFilter()
		if setup.AfterQueue {
			env.Postfix.Flush()
		} else {
			c := env.Postfix.Dial(t, outsideIP)
			if err := c.Send("carol@remote.test", []string{alice}, msg); err != nil {
				t.Fatalf("the client's retry once the filter is back: %v", err)
			}
			c.Quit()
		}
		env.Await("<"+id+"> once the filter is back", withMessageID(id))
		if !waitFor(deliverWait, func() bool { return len(env.Postfix.Queue()) == 0 }) {
			t.Errorf("the queue did not empty: %+v", env.Postfix.Queue())
		}
		time.Sleep(time.Second) // a second copy would come now
		n := 0
		for _, m := range env.Postfix.Sink.Messages() {
			if withMessageID(id)(m) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("<%s> was delivered %d times, want once", id, n)
		}
	})
}

// DialSubmission opens an SMTP session with the submission service from
// the loopback address source.
func (env *filterEnv) DialSubmission(t *testing.T, source string) *postfixtest.Client {
	t.Helper()
	return env.Postfix.DialAddr(t, env.Submission, source)
}

// ndrHeaderLines returns the X-NDR-* fields of a message's header.
func ndrHeaderLines(msg []byte) []string {
	header, _, _ := bytes.Cut(msg, []byte("\r\n\r\n"))
	var out []string
	for _, f := range splitFields(string(header) + "\r\n") {
		if strings.HasPrefix(strings.ToLower(f), "x-ndr-") {
			out = append(out, f)
		}
	}
	return out
}

// splitFields splits a header (lines ending in CRLF) into its fields, each
// with its folding.
func splitFields(header string) []string {
	var out []string
	for _, line := range strings.SplitAfter(header, "\r\n") {
		switch {
		case line == "":
		case (line[0] == ' ' || line[0] == '\t') && len(out) > 0:
			out[len(out)-1] += line
		default:
			out = append(out, line)
		}
	}
	return out
}

// inOrder reports whether want is a subsequence of got.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// The filter tells where it runs from what Postfix sends it: after the
// queue, XFORWARD IDENT names a message already queued, and the filter
// warns that --backscatter-action reject is wrong there; before the queue,
// where reject is right (and the kit's choice), it does not warn.
func TestE2EFilterWarnsOfRejectOnlyAfterTheQueue(t *testing.T) {
	variants := []struct {
		setup filterSetup
		flags []string
		warns bool
	}{
		{filterSetup{Name: "after-queue-reject", File: afterQueue.File, AfterQueue: true}, []string{"--backscatter-action", "reject"}, true},
		{beforeQueue, nil, false},
	}
	t.Parallel()
	for _, v := range variants {
		t.Run(v.setup.Name, func(t *testing.T) {
			t.Parallel()
			env := newFilterEnv(t, v.setup, filterEnvConfig{FilterFlags: v.flags})
			c := env.Postfix.Dial(t, outsideIP)
			id := uniqueID("where")
			if err := c.Send("carol@remote.test", []string{alice}, aliceMessage(id, alice, "from outside")); err != nil {
				t.Fatalf("send: %v", err)
			}
			c.Quit()
			env.Await("<"+id+">", withMessageID(id))
			const warning = "this filter runs after the queue"
			if got := strings.Contains(env.Filter.Output(), warning); got != v.warns {
				t.Errorf("filter warned %q: %v, want %v\n%s", warning, got, v.warns, tail(env.Filter.Output(), 10))
			}
		})
	}
}
