package filter

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/milter"
)

// milterHeaders runs raw, an inbound message from 203.0.113.25, through a
// real milter server on l, the way Postfix does, and returns the header
// fields it adds, as Postfix writes them ("Name: value", folded with CRLF).
func milterHeaders(t *testing.T, l ledger.Ledger, cfg milter.Config, from string, rcpts []string, raw []byte) []string {
	t.Helper()
	srv, err := milter.New(cfg, testEngine(t), l, nil, prometheus.NewRegistry())
	must(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	go srv.Serve(ln)
	defer srv.Close()
	c := gomilter.NewClientWithOptions("tcp", ln.Addr().String(), gomilter.ClientOptions{
		ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
		ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine,
	})
	s, err := c.Session()
	must(t, err)
	defer s.Close()
	must(t, s.Macros(gomilter.CodeConn, "{client_addr}", "203.0.113.25"))
	if _, err := s.Conn("mx.remote.example", gomilter.FamilyInet, 40000, "203.0.113.25"); err != nil {
		t.Fatal(err)
	}
	must(t, s.Macros(gomilter.CodeMail, "{client_addr}", "203.0.113.25"))
	if _, err := s.Mail(from, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range rcpts {
		if _, err := s.Rcpt(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	head, body, _ := strings.Cut(text, "\n\n")
	var fields [][2]string
	for _, line := range strings.Split(head, "\n") {
		if (line[0] == ' ' || line[0] == '\t') && len(fields) > 0 {
			fields[len(fields)-1][1] += "\n" + line
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		fields = append(fields, [2]string{name, strings.TrimPrefix(value, " ")})
	}
	for _, f := range fields {
		if _, err := s.HeaderField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		t.Fatal(err)
	}
	mods, _, err := s.BodyReadFrom(strings.NewReader(strings.ReplaceAll(body, "\n", "\r\n")))
	must(t, err)
	var out []string
	for _, m := range mods {
		if m.Code == gomilter.ActAddHeader {
			out = append(out, m.HeaderName+": "+strings.ReplaceAll(m.HeaderValue, "\n\t", "\r\n\t"))
		}
	}
	return out
}

// The filter and the milter make the same decision on the same bounce with
// the same ledger: the X-NDR-* fields the filter writes are, byte for byte,
// those the milter has Postfix add, in the same order.
func TestSameHeadersAsTheMilter(t *testing.T) {
	l := openLedger(t)
	must(t, l.Put(context.Background(), ledger.Record{MessageID: "q4-figures.1234@example.org", Sender: "alice@example.org",
		Recipients: []string{"bob@remote.example"}, Time: time.Now()}))
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionInbound}, l)
	c := client(t, addr)

	for _, b := range []struct {
		name string
		raw  []byte
	}{
		{"recorded", report("q4-figures.1234@example.org", "alice@example.org", "bob@remote.example", "5.1.1",
			"550 5.1.1 <bob@remote.example>: Recipient address rejected: User unknown in virtual mailbox table")},
		{"never sent", report("never.9@example.org", "alice@example.org", "ghost@remote.example", "5.7.1",
			"554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org")},
		{"forged fields", append([]byte("X-NDR-Owner: none\r\nX-NDR-Backscatter: no\r\n"),
			report("q4-figures.1234@example.org", "alice@example.org", "bob@remote.example", "4.2.2", "452 4.2.2 Mailbox full")...)},
	} {
		want := milterHeaders(t, l, milter.Config{Domains: []string{"example.org"}}, "", []string{"alice@example.org"}, b.raw)
		if len(want) < 4 {
			t.Fatalf("%s: the milter added %q; want the X-NDR fields of a bounce", b.name, want)
		}
		must(t, sendMail(c, "", []string{"alice@example.org"}, bytes.NewReader(b.raw)))
		msgs := k.messages()
		delivered := msgs[len(msgs)-1].data
		var got []string
		for _, name := range []string{"X-NDR-Backscatter", "X-NDR-Owner", "X-NDR-Status", "X-NDR-Explanation"} {
			got = append(got, headerLines(delivered, name)...)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: the filter wrote\n%s\nthe milter\n%s", b.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// Added at the end of the header, in the milter's order.
		end := bytes.Index(delivered, []byte("\r\n\r\n"))
		if !bytes.HasSuffix(delivered[:end+2], []byte(strings.Join(want, "\r\n")+"\r\n")) {
			t.Fatalf("%s: the X-NDR fields are not the last of the header, in order", b.name)
		}
	}
}

// The filter passes a trusted client's XFORWARD attributes on to a next
// hop that offers XFORWARD: here a second filter, which then decides the
// direction by the original client, not by the first filter's address.
func TestXForwardPassedOn(t *testing.T) {
	k := startSink(t, nil)
	l := openLedger(t)
	_, second := startFilter(t, Config{Next: k.addr}, l)
	_, first := startFilter(t, Config{Next: second}, nil)

	r := dialRaw(t, first)
	r.must(250, "EHLO mx.example.org")
	r.must(250, "XFORWARD ADDR=203.0.113.25 NAME=mx.remote.example HELO=mx.remote.example PROTO=ESMTP SOURCE=REMOTE")
	r.must(250, "XFORWARD IDENT=4ABCDE1")
	r.must(250, "MAIL FROM:<bob@remote.example>")
	r.must(250, "RCPT TO:<alice@example.org>")
	r.data(plain("bob@remote.example", "alice@example.org", "via-two.1@remote.example"))
	// Without XFORWARD the second filter would see 127.0.0.1 (trusted) and
	// record the message as outbound.
	r.must(250, "MAIL FROM:<alice@example.org>")
	r.must(250, "RCPT TO:<bob@remote.example>")
	r.data(plain("alice@example.org", "bob@remote.example", "via-two.2@example.org"))
	rec := waitRecorded(t, l, "via-two.2@example.org")
	if rec.QueueID != "" {
		t.Fatalf("outbound record has queue id %q from a transaction without XFORWARD", rec.QueueID)
	}
	if _, err := l.ByMessageID(context.Background(), "via-two.1@remote.example"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("the forwarded address 203.0.113.25 did not reach the second filter: message recorded as outbound (%v)", err)
	}
	if n := len(k.messages()); n != 2 {
		t.Fatalf("%d messages delivered through two filters, want 2", n)
	}
}

// Shutdown drains: a client between transactions gets 421 at once, one in
// a transaction finishes it and gets the next hop's reply.
func TestShutdownDrains(t *testing.T) {
	k := startSink(t, nil)
	srv, addr := startFilter(t, Config{Next: k.addr}, nil)
	idle := dialRaw(t, addr)
	idle.must(250, "EHLO idle.example.net")
	busy := dialRaw(t, addr)
	busy.must(250, "EHLO busy.example.net")
	busy.must(250, "MAIL FROM:<bob@remote.example>")

	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- srv.Shutdown(ctx)
	}()
	code, msg, _ := idle.c.ReadResponse(0)
	if code != 421 {
		t.Fatalf("idle connection at shutdown got %d %q, want 421", code, msg)
	}
	busy.must(250, "RCPT TO:<alice@example.org>")
	if code, text := busy.data(plain("bob@remote.example", "alice@example.org", "drain.1@remote.example")); code != 250 {
		t.Fatalf("transaction in progress at shutdown: %d %s, want it finished", code, text)
	}
	if code, _ := busy.cmd("MAIL FROM:<bob@remote.example>"); code != 421 {
		t.Fatalf("next transaction after shutdown: %d, want 421", code)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("still accepting connections after Shutdown")
	}
}

// Connections beyond MaxConnections get 421 instead of the greeting.
func TestConnectionLimit(t *testing.T) {
	k := startSink(t, nil)
	_, addr := startFilter(t, Config{Next: k.addr, MaxConnections: 2}, nil)
	dialRaw(t, addr)
	dialRaw(t, addr)
	c, err := net.Dial("tcp", addr)
	must(t, err)
	defer c.Close()
	buf := make([]byte, 100)
	n, _ := c.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "421 ") {
		t.Fatalf("third connection with MaxConnections 2 got %q, want 421", buf[:n])
	}
}
