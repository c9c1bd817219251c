package postfixtest

import (
	"bytes"
	"io"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one message the sink received.
type Message struct {
	From   string      // envelope sender, "" for a bounce
	To     []string    // envelope recipients, lower-cased
	Data   []byte      // the message as Postfix sent it
	Header mail.Header // its header, nil when it does not parse
}

// HeaderValues returns every value of the header field name, each with its
// folding undone and runs of white space made one space.
func (m Message) HeaderValues(name string) []string {
	var out []string
	for _, v := range m.Header[textproto.CanonicalMIMEHeaderKey(name)] {
		out = append(out, strings.Join(strings.Fields(v), " "))
	}
	return out
}

// Sink is the SMTP server, built on go-smtp, that an instance relays all
// its mail to: it accepts every message and keeps it.
type Sink struct {
	// Addr is where it listens, 127.0.0.1:PORT.
	Addr string

	srv  *smtp.Server
	mu   sync.Mutex
	msgs []Message
}

// startSink starts a sink on a free loopback port, stopped at the test's end.
func startSink(t testing.TB) *Sink {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("postfixtest: sink: %v", err)
	}
	s := &Sink{Addr: l.Addr().String()}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &sinkSession{sink: s}, nil
	}))
	s.srv.Domain = "sink.test"
	s.srv.AllowInsecureAuth = true
	s.srv.MaxMessageBytes = 64 << 20
	s.srv.ReadTimeout = 30 * time.Second
	s.srv.WriteTimeout = 30 * time.Second
	go func() { _ = s.srv.Serve(l) }()
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// Messages returns a copy of what the sink holds, in the order received.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Await waits up to timeout for a message that match accepts, and reports
// whether one came.
func (s *Sink) Await(timeout time.Duration, match func(Message) bool) (Message, bool) {
	var found Message
	ok := waitFor(timeout, func() bool {
		for _, m := range s.Messages() {
			if match(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found, ok
}

// sinkSession is one SMTP session with the sink.
type sinkSession struct {
	sink *Sink
	from string
	to   []string
}

func (ss *sinkSession) Reset()        { ss.from, ss.to = "", nil }
func (ss *sinkSession) Logout() error { return nil }

func (ss *sinkSession) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, strings.ToLower(to))
	return nil
}

func (ss *sinkSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := Message{From: ss.from, To: ss.to, Data: data}
	if msg, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
		m.Header = msg.Header
	}
	ss.sink.mu.Lock()
	ss.sink.msgs = append(ss.sink.msgs, m)
	ss.sink.mu.Unlock()
	return nil
}
