package filter

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// nextHop is the connection to the next hop of one client connection,
// reused for its transactions, with go-smtp's client on top.
type nextHop struct {
	c    *smtp.Client
	conn *hopConn
	caps hopCaps
}

// hopCaps is what the next hop offered in its reply to EHLO.
type hopCaps struct {
	size     int64    // SIZE limit, 0 when none
	utf8     bool     // SMTPUTF8
	dsn      bool     // DSN
	xforward []string // XFORWARD attribute names
}

// hopConn bounds every write to the next hop: go-smtp's client sets a
// deadline per command but none while the message data is written.
type hopConn struct {
	net.Conn
	timeout time.Duration
}

func (h *hopConn) Write(p []byte) (int, error) {
	h.Conn.SetWriteDeadline(time.Now().Add(h.timeout))
	return h.Conn.Write(p)
}

// dialNext connects to the next hop and greets it, all within timeout.
func dialNext(addr, hostname string, timeout time.Duration) (*nextHop, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	hc := &hopConn{Conn: nc, timeout: timeout}
	c := smtp.NewClient(hc)
	c.CommandTimeout, c.SubmissionTimeout = timeout, timeout
	if err := c.Hello(hostname); err != nil {
		c.Close()
		return nil, fmt.Errorf("greeting: %w", err)
	}
	h := &nextHop{c: c, conn: hc}
	h.caps = h.readCaps()
	return h, nil
}

func (h *nextHop) readCaps() hopCaps {
	var caps hopCaps
	if n, ok := h.c.MaxMessageSize(); ok {
		caps.size = int64(n)
	}
	caps.utf8, _ = h.c.Extension("SMTPUTF8")
	caps.dsn, _ = h.c.Extension("DSN")
	if ok, names := h.c.Extension("XFORWARD"); ok {
		caps.xforward = strings.Fields(names)
	}
	return caps
}

// xforward sends the XFORWARD commands cmds. go-smtp's client has no way
// to send a command of its own, so they go on the connection between two of
// its commands, when it expects nothing. The greeting is refreshed first:
// after a RSET go-smtp's client sends EHLO again at the next command, and an
// EHLO would reset the attributes (XFORWARD_README).
func (h *nextHop) xforward(cmds []string) error {
	if len(cmds) == 0 {
		return nil
	}
	if ok, _ := h.c.Extension("XFORWARD"); !ok {
		return nil
	}
	h.conn.SetDeadline(time.Now().Add(h.conn.timeout))
	defer h.conn.SetDeadline(time.Time{})
	r := textproto.NewReader(bufio.NewReaderSize(io.LimitReader(h.conn, 64<<10), 512))
	for _, cmd := range cmds {
		if _, err := io.WriteString(h.conn, cmd+"\r\n"); err != nil {
			return err
		}
		if _, _, err := r.ReadResponse(250); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
	}
	return nil
}

// reset aborts the transaction in progress at the next hop.
func (h *nextHop) reset() error { return h.c.Reset() }

// close says QUIT, waiting briefly, and closes the connection.
func (h *nextHop) close() {
	h.conn.SetDeadline(time.Now().Add(2 * time.Second))
	if err := h.c.Quit(); err != nil {
		h.c.Close()
	}
}

// abort closes the connection without a word: a message cut off in its
// data is then not delivered (SMTPD_PROXY_README: abort the connection
// without completing the conversation).
func (h *nextHop) abort() { h.c.Close() }

// isSMTPReply reports whether err is the next hop's own reply (and the
// connection is still usable), as opposed to a network error or timeout.
func isSMTPReply(err error) (*smtp.SMTPError, bool) {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se, true
	}
	return nil, false
}
