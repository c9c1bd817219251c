package postfixtest

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Client is an SMTP session with an instance's smtpd.
type Client struct {
	t testing.TB
	p *Instance
	c *smtp.Client
}

// Dial opens an SMTP session with the instance from the loopback address
// source ("" for the system's choice: 127.0.0.1), and says EHLO. Which
// address a client comes from decides whether Postfix (mynetworks) and a
// milter treat it as trusted. The session is closed at the test's end.
func (p *Instance) Dial(t testing.TB, source string) *Client {
	t.Helper()
	return p.DialAddr(t, p.SMTP, source)
}

// DialAddr is Dial for another smtpd of the instance, at addr: one a test
// added with [Config.Services], such as a submission service.
func (p *Instance) DialAddr(t testing.TB, addr, source string) *Client {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if source != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(source)}
	}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("postfixtest: dial %s from %q: %v", addr, source, err)
	}
	c := smtp.NewClient(conn)
	c.CommandTimeout = 30 * time.Second
	c.SubmissionTimeout = 60 * time.Second
	if err := c.Hello("client.test"); err != nil {
		t.Fatalf("postfixtest: EHLO: %v\n%s", err, p.LogTail(20))
	}
	t.Cleanup(func() { c.Close() })
	return &Client{t: t, p: p, c: c}
}

// Login authenticates as [User] with SASL PLAIN, or fails the test.
func (c *Client) Login() {
	c.t.Helper()
	if err := c.c.Auth(sasl.NewPlainClient("", User, password)); err != nil {
		c.t.Fatalf("postfixtest: AUTH PLAIN as %s: %v\n%s", User, err, c.p.LogTail(20))
	}
}

// Send transmits one message (lines ending in "\n" are sent with CRLF) and
// returns the server's error for DATA or an earlier command, an
// *smtp.SMTPError when the server refused it, nil when it was accepted.
func (c *Client) Send(from string, to []string, msg string) error {
	if err := c.c.Mail(from, nil); err != nil {
		return err
	}
	for _, r := range to {
		if err := c.c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	w, err := c.c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, strings.ReplaceAll(msg, "\n", "\r\n")); err != nil {
		return err
	}
	return w.Close()
}

// Quit ends the session politely.
func (c *Client) Quit() { _ = c.c.Quit() }
