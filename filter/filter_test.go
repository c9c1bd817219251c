package filter

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// The next hop down: the client gets a 4xx at MAIL and keeps the message.
func TestNextHopDownGives4xx(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	next := ln.Addr().String()
	ln.Close() // nothing listens there any more
	_, addr := startFilter(t, Config{Next: next}, nil)
	c := client(t, addr)
	err = c.Mail("alice@example.org", nil)
	var se *smtp.SMTPError
	if !errors.As(err, &se) || se.Code/100 != 4 {
		t.Fatalf("MAIL with the next hop down: %v, want a 4xx reply", err)
	}
}

// Each RCPT gets the next hop's own reply; the message goes to the
// recipients the next hop took, and the client gets the next hop's reply to
// the data.
func TestRcptGetsNextHopReply(t *testing.T) {
	refusal := &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
		Message: "<gone@example.org>: Recipient address rejected: User unknown in the sink"}
	k := startSink(t, func(k *sink) { k.refuse = map[string]*smtp.SMTPError{"gone@example.org": refusal} })
	_, addr := startFilter(t, Config{Next: k.addr}, nil)
	c := client(t, addr)
	must(t, c.Mail("bob@remote.example", nil))
	must(t, c.Rcpt("alice@example.org", nil))
	err := c.Rcpt("gone@example.org", nil)
	var se *smtp.SMTPError
	if !errors.As(err, &se) || se.Code != 550 || se.EnhancedCode != refusal.EnhancedCode || se.Message != refusal.Message {
		t.Fatalf("RCPT refused by the next hop: client got %#v, want %d %v %q", err, refusal.Code, refusal.EnhancedCode, refusal.Message)
	}
	w, err := c.Data()
	must(t, err)
	w.Write(plain("bob@remote.example", "alice@example.org", "rcpt.1@remote.example"))
	resp, err := w.CloseWithResponse()
	must(t, err)
	if !strings.Contains(resp.StatusText, "OK: queued") {
		t.Fatalf("reply to the data %q, want the next hop's (go-smtp's \"OK: queued\")", resp.StatusText)
	}
	msgs := k.messages()
	if len(msgs) != 1 || len(msgs[0].rcpts) != 1 || msgs[0].rcpts[0] != "alice@example.org" {
		t.Fatalf("sink got %+v, want one message for alice@example.org only", msgs)
	}

	// The next hop refusing the message: the client gets its reply.
	k.dataErr = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Content refused by the sink"}
	err = sendMail(c, "bob@remote.example", []string{"alice@example.org"}, bytes.NewReader(plain("bob@remote.example", "alice@example.org", "rcpt.2@remote.example")))
	if !errors.As(err, &se) || se.Code != 554 || se.Message != "Content refused by the sink" {
		t.Fatalf("message refused by the next hop: client got %v, want its 554", err)
	}
}

// An ordinary inbound message passes byte for byte, except the X-NDR-*
// fields that came with it, however many, however spelt and folded.
func TestForgedNDRHeadersRemoved(t *testing.T) {
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionInbound}, nil)
	c := client(t, addr)
	forged := []string{"X-NDR-Backscatter: no; evidence=message-id", "x-ndr-owner: none",
		"X-Ndr-Status: status=2.0.0;\r\n\tpermanent=no"}
	for i := 0; i < 150; i++ {
		forged = append(forged, "X-NDR-Explanation: forged "+strings.Repeat("x", i))
	}
	msg := plain("bob@remote.example", "alice@example.org", "forged.1@remote.example", forged...)
	must(t, sendMail(c, "bob@remote.example", []string{"alice@example.org"}, bytes.NewReader(msg)))
	got := k.messages()[0].data
	want := plain("bob@remote.example", "alice@example.org", "forged.1@remote.example")
	if !bytes.Equal(got, want) {
		t.Fatalf("delivered:\n%s\nwant (forged X-NDR-* removed, nothing else changed):\n%s", got, want)
	}
}

// Outbound mail (from a trusted client) passes unchanged and is recorded,
// with the upstream queue id from XFORWARD IDENT.
func TestOutboundRecorded(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	_, addr := startFilter(t, Config{Next: k.addr}, l)
	r := dialRaw(t, addr)
	r.must(250, "EHLO mx.example.org")
	r.must(250, "XFORWARD NAME=submit.example.org ADDR=127.0.0.1 PROTO=ESMTP HELO=laptop SOURCE=REMOTE")
	r.must(250, "XFORWARD IDENT=4ORIG1")
	r.must(250, "MAIL FROM:<Alice@Example.org> SIZE=200")
	r.must(250, "RCPT TO:<bob@remote.example>")
	r.must(250, "RCPT TO:<carol@remote.example>")
	msg := plain("alice@example.org", "bob@remote.example", "out.1@example.org", "X-NDR-Owner: kept on outbound mail")
	if code, text := r.data(msg); code != 250 {
		t.Fatalf("outbound message: %d %s", code, text)
	}
	if got := k.messages()[0].data; !bytes.Equal(got, msg) {
		t.Fatalf("outbound message changed:\n%s", got)
	}
	rec := waitRecorded(t, l, "out.1@example.org")
	if rec.QueueID != "4ORIG1" || rec.Sender != "alice@example.org" || strings.Join(rec.Recipients, ",") != "bob@remote.example,carol@remote.example" {
		t.Fatalf("record %+v: want queue id 4ORIG1, sender alice@example.org, both recipients", rec)
	}
}

// Without XFORWARD IDENT (a before-queue proxy, or mail submitted on the
// upstream host), outbound mail is recorded with the queue id the next hop
// gave it in its reply ("queued as"), which its Received field shows too.
func TestOutboundRecordedWithTheNextHopsQueueID(t *testing.T) {
	k := startSink(t, func(k *sink) { k.queuedAs = "4dLm2x0Q1Rz9" })
	l := openLedger(t)
	_, addr := startFilter(t, Config{Next: k.addr}, l)
	r := dialRaw(t, addr)
	r.must(250, "EHLO mx.example.org")
	r.must(250, "XFORWARD NAME=[UNAVAILABLE] ADDR=127.0.0.1 PORT=40000 HELO=laptop IDENT=[UNAVAILABLE] PROTO=ESMTP SOURCE=REMOTE")
	r.must(250, "MAIL FROM:<alice@example.org>")
	r.must(250, "RCPT TO:<bob@remote.example>")
	code, text := r.data(plain("alice@example.org", "bob@remote.example", "out.2@example.org"))
	if code != 250 || !strings.Contains(text, "queued as 4dLm2x0Q1Rz9") {
		t.Fatalf("outbound message: %d %s, want the next hop's 250 ... queued as 4dLm2x0Q1Rz9", code, text)
	}
	if rec := waitRecorded(t, l, "out.2@example.org"); rec.QueueID != "4dLm2x0Q1Rz9" {
		t.Fatalf("record %+v: want queue id 4dLm2x0Q1Rz9, the next hop's", rec)
	}
}

func TestQueuedAs(t *testing.T) {
	for text, want := range map[string]string{
		"2.0.0 Ok: queued as 532E098A397":                "532E098A397",
		"2.0.0 Ok: queued as 4dLm2x0Q1Rz9.":              "4dLm2x0Q1Rz9",
		"Ok: queued as 4dLm2x0Q1Rz9 (long id)":           "4dLm2x0Q1Rz9",
		"2.0.0 OK: queued":                               "",
		"2.0.0 Ok: queued as AB":                         "",
		"2.0.0 Ok: queued as " + strings.Repeat("A", 80): "",
		"2.0.0 Ok: queued as <x>":                        "",
	} {
		if got := queuedAs(text); got != want {
			t.Errorf("queuedAs(%q) = %q, want %q", text, got, want)
		}
	}
}

// XFORWARD from a trusted client decides the direction by the original
// client; from an untrusted one it is refused and the connecting address
// decides.
func TestXForwardDirection(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	_, addr := startFilter(t, Config{Next: k.addr}, l)

	// Trusted (127.0.0.1), forwarding a client from outside: inbound, not recorded.
	r := dialRaw(t, addr)
	ehlo := r.must(250, "EHLO mx.example.org")
	if !strings.Contains(ehlo, "XFORWARD NAME ADDR PORT PROTO HELO IDENT SOURCE") {
		t.Fatalf("EHLO reply to a trusted client lacks XFORWARD:\n%s", ehlo)
	}
	r.must(250, "XFORWARD ADDR=203.0.113.25 NAME=mx.remote.example")
	r.must(250, "MAIL FROM:<alice@example.org>")
	r.must(250, "RCPT TO:<bob@remote.example>")
	if code, _ := r.data(plain("alice@example.org", "bob@remote.example", "forwarded-outside.1@example.org")); code != 250 {
		t.Fatal("message refused")
	}
	// The attributes end with the transaction: the next one is the
	// connecting client's (127.0.0.1, trusted): outbound, recorded.
	r.must(250, "MAIL FROM:<alice@example.org>")
	r.must(250, "RCPT TO:<bob@remote.example>")
	r.data(plain("alice@example.org", "bob@remote.example", "local.1@example.org"))
	waitRecorded(t, l, "local.1@example.org")
	if _, err := l.ByMessageID(context.Background(), "forwarded-outside.1@example.org"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("a message forwarded from 203.0.113.25 was recorded as outbound (%v)", err)
	}
	// XFORWARD in the middle of a transaction is refused.
	r.must(250, "MAIL FROM:<alice@example.org>")
	r.must(503, "XFORWARD ADDR=127.0.0.1")
	r.must(250, "RSET")
	// A bad attribute is refused.
	r.must(501, "XFORWARD COLOR=blue")

	// Untrusted client: XFORWARD not offered, refused, and ignored.
	k2 := startSink(t, nil)
	l2 := openLedger(t)
	_, addr2 := startFilter(t, Config{Next: k2.addr, TrustedNetworks: []netipPrefix{mustPrefix("10.0.0.0/8")}}, l2)
	u := dialRaw(t, addr2)
	if ehlo := u.must(250, "EHLO mx.example.org"); strings.Contains(ehlo, "XFORWARD") {
		t.Fatalf("XFORWARD offered to an untrusted client:\n%s", ehlo)
	}
	u.must(550, "XFORWARD ADDR=10.1.2.3 SOURCE=LOCAL")
	u.must(250, "MAIL FROM:<alice@example.org>")
	u.must(250, "RCPT TO:<bob@remote.example>")
	u.data(plain("alice@example.org", "bob@remote.example", "spoofed.1@example.org"))
	time.Sleep(100 * time.Millisecond)
	if _, err := l2.ByMessageID(context.Background(), "spoofed.1@example.org"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("an untrusted client's XFORWARD made its message outbound (%v)", err)
	}
}

// --direction outbound records everything through the listener, whatever
// the client's address; a second listener served as outbound does the same
// beside an inbound one (an MTA without XFORWARD).
func TestDirectionOutbound(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	srv, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionOutbound, TrustedNetworks: []netipPrefix{}}, l)
	c := client(t, addr)
	must(t, sendMail(c, "alice@example.org", []string{"bob@remote.example"}, bytes.NewReader(plain("alice@example.org", "bob@remote.example", "sub.1@example.org"))))
	waitRecorded(t, l, "sub.1@example.org")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	go srv.ServeDirection(ln, DirectionInbound)
	c = client(t, ln.Addr().String())
	must(t, sendMail(c, "alice@example.org", []string{"bob@remote.example"}, bytes.NewReader(plain("alice@example.org", "bob@remote.example", "in.1@example.org"))))
	time.Sleep(100 * time.Millisecond)
	if _, err := l.ByMessageID(context.Background(), "in.1@example.org"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("mail through the inbound listener was recorded as outbound (%v)", err)
	}
}

// A bounce for a message recorded through the filter is explained ("no"),
// one for a message never sent is "yes"; reject and discard apply to the
// latter only, and never reach the next hop.
func TestBackscatterActions(t *testing.T) {
	for _, action := range []decide.Action{decide.ActionTag, decide.ActionReject, decide.ActionDiscard} {
		t.Run(string(action), func(t *testing.T) {
			k := startSink(t, nil)
			l := openLedger(t)
			_, addr := startFilter(t, Config{Next: k.addr, BackscatterAction: action}, l)
			c := client(t, addr) // 127.0.0.1: trusted, outbound
			must(t, sendMail(c, "alice@example.org", []string{"bob@remote.example"}, bytes.NewReader(plain("alice@example.org", "bob@remote.example", "sent.1@example.org"))))
			waitRecorded(t, l, "sent.1@example.org")

			r := dialRaw(t, addr)
			r.must(250, "EHLO mx.example.org")
			bounce := func(origID, failed string) (int, string) {
				r.must(250, "XFORWARD ADDR=203.0.113.25")
				r.must(250, "MAIL FROM:<>")
				r.must(250, "RCPT TO:<alice@example.org>")
				return r.data(report(origID, "alice@example.org", failed, "5.1.1", "550 5.1.1 <"+failed+">: User unknown"))
			}
			if code, text := bounce("sent.1@example.org", "bob@remote.example"); code != 250 {
				t.Fatalf("bounce for a message sent from here: %d %s", code, text)
			}
			msgs := k.messages()
			if got := headerLines(msgs[len(msgs)-1].data, "X-NDR-Backscatter"); len(got) != 1 || got[0] != "X-NDR-Backscatter: no; evidence=message-id" {
				t.Fatalf("bounce for a message sent from here: %q", got)
			}
			before := len(msgs)
			code, text := bounce("never-sent.1@example.org", "ghost@remote.example")
			msgs = k.messages()
			switch action {
			case decide.ActionTag:
				if code != 250 || len(msgs) != before+1 {
					t.Fatalf("tag: %d %s, %d messages delivered", code, text, len(msgs)-before)
				}
				if got := headerLines(msgs[before].data, "X-NDR-Backscatter"); len(got) != 1 || !strings.HasPrefix(got[0], "X-NDR-Backscatter: yes;") {
					t.Fatalf("tag: backscatter delivered with %q", got)
				}
			case decide.ActionReject:
				if code != 550 || !strings.Contains(text, "5.7.1 Rejected as backscatter") || len(msgs) != before {
					t.Fatalf("reject: %d %q, %d messages delivered; want 550 5.7.1 and none", code, text, len(msgs)-before)
				}
			case decide.ActionDiscard:
				if code != 250 || len(msgs) != before {
					t.Fatalf("discard: %d %q, %d messages delivered; want 250 and none", code, text, len(msgs)-before)
				}
			}
			// The connection goes on: the next hop's transaction was reset.
			r.must(250, "MAIL FROM:<bob@remote.example>")
			r.must(250, "RCPT TO:<alice@example.org>")
			if code, _ := r.data(plain("bob@remote.example", "alice@example.org", "after.1@remote.example")); code != 250 {
				t.Fatal("message after the backscatter refused")
			}
		})
	}
}

// The next hop's SIZE is announced, a message's SIZE is passed on, and a
// message over the limit gets the next hop's refusal.
func TestSizePassedOn(t *testing.T) {
	k := startSink(t, func(k *sink) {})
	k.srv.MaxMessageBytes = 100000
	_, addr := startFilter(t, Config{Next: k.addr}, nil)
	c := client(t, addr)
	if n, ok := c.MaxMessageSize(); !ok || n != 100000 {
		t.Fatalf("SIZE announced: %d %v, want the next hop's 100000", n, ok)
	}
	msg := plain("bob@remote.example", "alice@example.org", "size.1@remote.example")
	must(t, c.Mail("bob@remote.example", &smtp.MailOptions{Size: int64(len(msg))}))
	must(t, c.Rcpt("alice@example.org", nil))
	w, err := c.Data()
	must(t, err)
	w.Write(msg)
	must(t, w.Close())
	if got := k.messages()[0].opts.Size; got != int64(len(msg)) {
		t.Fatalf("next hop got SIZE=%d, want %d", got, len(msg))
	}
	err = c.Mail("bob@remote.example", &smtp.MailOptions{Size: 200000})
	var se *smtp.SMTPError
	if !errors.As(err, &se) || se.Code != 552 {
		t.Fatalf("MAIL SIZE=200000 to a next hop with SIZE 100000: %v, want 552", err)
	}
}

// A next hop that does not answer the end of data within NextTimeout: the
// client gets a 4xx soon after, and the next hop's late acceptance does
// not turn into one.
func TestNextHopSlowGives4xx(t *testing.T) {
	k := startSink(t, func(k *sink) { k.delay = 3 * time.Second })
	_, addr := startFilter(t, Config{Next: k.addr, NextTimeout: 500 * time.Millisecond}, nil)
	c := client(t, addr)
	start := time.Now()
	err := sendMail(c, "bob@remote.example", []string{"alice@example.org"}, bytes.NewReader(plain("bob@remote.example", "alice@example.org", "slow.1@remote.example")))
	d := time.Since(start)
	var se *smtp.SMTPError
	if !errors.As(err, &se) || se.Code/100 != 4 {
		t.Fatalf("next hop slow: %v, want a 4xx", err)
	}
	if d > 2*time.Second {
		t.Fatalf("4xx after %v, want it within about the 500 ms timeout", d)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
