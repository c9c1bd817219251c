// Package noopproxy is the baseline of scripts/bench-filter and of the
// filter package's benchmark: an SMTP proxy built on
// github.com/emersion/go-smtp, server and client, that relays each
// transaction to the next hop and does nothing else. Like ndrmilter filter
// it connects to the next hop when a client says EHLO, passes MAIL (with
// its parameters) and each RCPT on as they come and answers with the next
// hop's replies, streams the message data with io.Copy, and answers the
// end of data with the next hop's reply; it reads nothing of the message,
// keeps no ledger and offers no XFORWARD, so that what it costs is the
// library and the extra SMTP hop alone.
package noopproxy

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
)

// errNextHop is the reply when the next hop cannot be reached or goes
// away: the client keeps the message and tries again.
var errNextHop = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 4, 1}, Message: "Next hop not available"}

// Counters of the proxies of the process, as proof of traffic.
var (
	// Sessions counts the client sessions started.
	Sessions atomic.Int64
	// Messages counts the messages the next hop took.
	Messages atomic.Int64
)

// NewServer returns a go-smtp server that relays to next (HOST:PORT).
func NewServer(next string) *smtp.Server {
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		// Connected at EHLO, as ndrmilter filter does (a failure is
		// tried again at MAIL).
		Sessions.Add(1)
		s := &session{next: next}
		s.dial()
		return s, nil
	}))
	srv.Domain = "noopfilter.localhost"
	srv.EnableSMTPUTF8 = true
	srv.EnableDSN = true
	srv.MaxLineLength = 0
	srv.ReadTimeout = 5 * time.Minute
	srv.WriteTimeout = time.Minute
	return srv
}

// session relays one client connection over one next-hop connection.
type session struct {
	next string
	c    *smtp.Client
	open bool // a transaction is open at the next hop
}

func (s *session) dial() error {
	if s.c != nil {
		return nil
	}
	c, err := smtp.Dial(s.next)
	if err != nil {
		return err
	}
	c.CommandTimeout, c.SubmissionTimeout = time.Minute, time.Minute
	if err := c.Hello("noopfilter.localhost"); err != nil {
		c.Close()
		return err
	}
	s.c = c
	return nil
}

// fail passes the next hop's own reply on, or drops a broken connection.
func (s *session) fail(err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se
	}
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
	s.open = false
	return errNextHop
}

func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	if err := s.dial(); err != nil {
		return errNextHop
	}
	if err := s.c.Mail(from, opts); err != nil {
		return s.fail(err)
	}
	s.open = true
	return nil
}

func (s *session) Rcpt(to string, opts *smtp.RcptOptions) error {
	if !s.open {
		return &smtp.SMTPError{Code: 503, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "need MAIL"}
	}
	if err := s.c.Rcpt(to, opts); err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *session) Data(r io.Reader) error {
	if !s.open {
		return &smtp.SMTPError{Code: 503, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "need MAIL"}
	}
	w, err := s.c.Data()
	if err != nil {
		return s.fail(err)
	}
	if _, err := io.Copy(w, r); err != nil {
		return s.fail(err)
	}
	resp, err := w.CloseWithResponse()
	s.open = false
	if err != nil {
		return s.fail(err)
	}
	Messages.Add(1)
	// The next hop's acceptance, "queued as" included, as ndrmilter passes it on.
	ec, text := smtp.EnhancedCode{2, 0, 0}, resp.StatusText
	if code, rest, ok := strings.Cut(resp.StatusText, " "); ok {
		if parsed, ok := enhancedCode(code); ok {
			ec, text = parsed, rest
		}
	}
	return &smtp.SMTPError{Code: 250, EnhancedCode: ec, Message: text}
}

func (s *session) Reset() {
	if s.open && s.c != nil {
		if err := s.c.Reset(); err != nil {
			s.fail(err)
		}
	}
	s.open = false
}

func (s *session) Logout() error {
	if s.c != nil {
		s.c.Quit()
		s.c = nil
	}
	return nil
}

// enhancedCode parses an enhanced status code "x.y.z" (RFC 3463).
func enhancedCode(s string) (smtp.EnhancedCode, bool) {
	var ec smtp.EnhancedCode
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return ec, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 {
			return ec, false
		}
		ec[i] = n
	}
	return ec, true
}
