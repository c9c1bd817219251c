package filter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/textproto"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// The tests run the filter between go-smtp's client and a go-smtp server
// (the sink, playing the MTA's reinjection listener), all on 127.0.0.1.

func testEngine(t testing.TB) *rules.Engine {
	t.Helper()
	eng, err := rules.Load()
	if err != nil {
		t.Fatalf("rules.Load: %v", err)
	}
	return eng
}

func openLedger(t testing.TB) ledger.Ledger {
	t.Helper()
	l, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// startFilter runs a filter on a loopback port and stops it at cleanup.
func startFilter(t testing.TB, cfg Config, l ledger.Ledger) (*Server, string) {
	t.Helper()
	if cfg.Domains == nil {
		cfg.Domains = []string{"example.org"}
	}
	if cfg.Hostname == "" {
		cfg.Hostname = "filter.example.org"
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

// delivered is a message the sink took.
type delivered struct {
	from  string
	opts  smtp.MailOptions
	rcpts []string
	data  []byte // nil when the sink only counts (sink.countOnly)
	size  int64
	sum   [32]byte
}

// sink is a go-smtp server that takes messages as the MTA's reinjection
// listener would.
type sink struct {
	mu        sync.Mutex
	msgs      []delivered
	refuse    map[string]*smtp.SMTPError // recipient -> its refusal
	dataErr   *smtp.SMTPError            // reply to every message
	delay     time.Duration              // before the reply at the end of data
	countOnly bool                       // keep no data, only its size and hash
	queuedAs  string                     // accept with "250 2.0.0 Ok: queued as" this id, as Postfix does
	srv       *smtp.Server
	addr      string
}

func startSink(t testing.TB, configure func(*sink)) *sink {
	t.Helper()
	k := &sink{}
	if configure != nil {
		configure(k)
	}
	k.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &sinkSession{k: k}, nil }))
	k.srv.Domain = "sink.example.org"
	k.srv.EnableSMTPUTF8 = true
	k.srv.EnableDSN = true
	k.srv.MaxLineLength = 0
	k.srv.ErrorLog = nopLog{}
	if k.srv.MaxMessageBytes == 0 {
		k.srv.MaxMessageBytes = 64 << 20
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k.addr = ln.Addr().String()
	go k.srv.Serve(ln)
	t.Cleanup(func() { k.srv.Close() })
	return k
}

func (k *sink) messages() []delivered {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]delivered(nil), k.msgs...)
}

type sinkSession struct {
	k    *sink
	msg  delivered
	data bytes.Buffer
}

func (s *sinkSession) Reset()        { s.msg = delivered{} }
func (s *sinkSession) Logout() error { return nil }
func (s *sinkSession) Mail(from string, opts *smtp.MailOptions) error {
	s.msg = delivered{from: from}
	if opts != nil {
		s.msg.opts = *opts
	}
	return nil
}
func (s *sinkSession) Rcpt(to string, opts *smtp.RcptOptions) error {
	if e := s.k.refuse[to]; e != nil {
		return e
	}
	s.msg.rcpts = append(s.msg.rcpts, to)
	return nil
}
func (s *sinkSession) Data(r io.Reader) error {
	h := sha256.New()
	var w io.Writer = h
	s.data.Reset()
	if !s.k.countOnly {
		w = io.MultiWriter(h, &s.data)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		return err
	}
	time.Sleep(s.k.delay)
	if s.k.dataErr != nil {
		return s.k.dataErr
	}
	s.msg.size = n
	copy(s.msg.sum[:], h.Sum(nil))
	if !s.k.countOnly {
		s.msg.data = append([]byte(nil), s.data.Bytes()...)
	}
	s.k.mu.Lock()
	s.k.msgs = append(s.k.msgs, s.msg)
	s.k.mu.Unlock()
	if s.k.queuedAs != "" {
		return &smtp.SMTPError{Code: 250, EnhancedCode: smtp.EnhancedCode{2, 0, 0}, Message: "Ok: queued as " + s.k.queuedAs}
	}
	return nil
}

type nopLog struct{}

func (nopLog) Printf(string, ...interface{}) {}
func (nopLog) Println(...interface{})        {}

// client is go-smtp's client on a connection to the filter.
func client(t testing.TB, addr string) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Hello("client.example.net"); err != nil {
		t.Fatalf("EHLO: %v", err)
	}
	return c
}

// sendMail sends one message on c and returns the reply to its data (nil when
// it was accepted) or the first error.
func sendMail(c *smtp.Client, from string, rcpts []string, msg io.Reader) error {
	if err := c.Mail(from, nil); err != nil {
		return err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, msg); err != nil {
		return err
	}
	return w.Close()
}

// raw is a hand-driven SMTP client, for the commands go-smtp's client does
// not have (XFORWARD).
type raw struct {
	t *testing.T
	c *textproto.Conn
}

func dialRaw(t *testing.T, addr string) *raw {
	t.Helper()
	c, err := textproto.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &raw{t: t, c: c}
	r.expect(220)
	return r
}

// cmd sends a command and returns the reply's code and text.
func (r *raw) cmd(format string, args ...any) (int, string) {
	r.t.Helper()
	if err := r.c.PrintfLine(format, args...); err != nil {
		r.t.Fatal(err)
	}
	code, msg, err := r.c.ReadResponse(0)
	if err != nil && code == 0 {
		r.t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
	return code, msg
}

func (r *raw) expect(want int) string {
	r.t.Helper()
	code, msg, err := r.c.ReadResponse(0)
	if code != want {
		r.t.Fatalf("reply %d %q (%v), want %d", code, msg, err, want)
	}
	return msg
}

// must sends a command and fails unless the reply has code want.
func (r *raw) must(want int, format string, args ...any) string {
	r.t.Helper()
	code, msg := r.cmd(format, args...)
	if code != want {
		r.t.Fatalf("%s: reply %d %q, want %d", fmt.Sprintf(format, args...), code, msg, want)
	}
	return msg
}

// data sends DATA, the message and the final dot, and returns the reply.
func (r *raw) data(msg []byte) (int, string) {
	r.t.Helper()
	r.must(354, "DATA")
	w := r.c.DotWriter()
	w.Write(msg)
	w.Close()
	code, text, _ := r.c.ReadResponse(0)
	return code, text
}

// report is a Postfix bounce for a message with Message-ID origMsgID that
// origSender sent to failedRcpt.
func report(origMsgID, origSender, failedRcpt, status, diag string) []byte {
	s := fmt.Sprintf(`Return-Path: <>
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
From: %[2]s
To: %[3]s
Subject: quarterly report
Message-ID: <%[1]s>
Date: Mon,  2 Nov 2026 09:59:59 +0000

--BOUNDARY.1--
`, origMsgID, origSender, failedRcpt, status, diag)
	return []byte(strings.ReplaceAll(s, "\n", "\r\n"))
}

// plain is an ordinary message.
func plain(from, to, msgID string, extraHeaders ...string) []byte {
	var b strings.Builder
	for _, h := range extraHeaders {
		b.WriteString(h + "\r\n")
	}
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: lunch on friday\r\nMessage-ID: <%s>\r\nDate: Mon, 2 Nov 2026 09:00:00 +0000\r\n\r\nShall we meet at noon?\r\n.\r\n..leading dots stay\r\n", from, to, msgID)
	return []byte(b.String())
}

// waitRecorded polls the ledger until the Message-ID is there (records are
// written in the background).
func waitRecorded(t testing.TB, l ledger.Ledger, msgID string) ledger.Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := l.ByMessageID(context.Background(), msgID)
		if err == nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("Message-ID %s not recorded after 5s: %v", msgID, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// headerLines returns the header fields of msg named name (any case), each
// as written: "Name: value" with its folding, without the final CRLF.
func headerLines(msg []byte, name string) []string {
	end := bytes.Index(msg, []byte("\r\n\r\n"))
	if end < 0 {
		end = len(msg)
	}
	var out []string
	for _, f := range strings.SplitAfter(string(msg[:end+2]), "\r\n") {
		if f == "" {
			continue
		}
		if f[0] == ' ' || f[0] == '\t' {
			if len(out) > 0 && out[len(out)-1] != "" {
				out[len(out)-1] += f
			}
			continue
		}
		n, _, _ := strings.Cut(f, ":")
		if strings.EqualFold(strings.TrimSpace(n), name) {
			out = append(out, f)
		} else {
			out = append(out, "")
		}
	}
	var res []string
	for _, f := range out {
		if f != "" {
			res = append(res, strings.TrimSuffix(f, "\r\n"))
		}
	}
	return res
}

type netipPrefix = netip.Prefix

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }
