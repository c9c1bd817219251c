package filter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strconv"
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
	xf   []byte // the XFORWARD commands of the transaction, reused
}

// hopCaps is what the next hop offered in its reply to EHLO.
type hopCaps struct {
	size     int64    // SIZE limit, 0 when none
	utf8     bool     // SMTPUTF8
	dsn      bool     // DSN
	xforward []string // XFORWARD attribute names
}

// hopConn bounds every write to the next hop: go-smtp's client sets a
// deadline per command but none while the message data is written. It
// gathers the message data into large writes (gather). It also pipelines
// XFORWARD with go-smtp's MAIL (RFC 2920), as go-smtp's client cannot send
// a command of its own: the commands go out in the same write as MAIL, and
// their replies are taken off the stream before go-smtp reads the reply to
// MAIL.
type hopConn struct {
	net.Conn
	timeout time.Duration

	xfCmds    []byte          // XFORWARD commands to go out with the next write
	xfReplies int             // replies to XFORWARD still to take off the stream
	xfRefused *smtp.SMTPError // the first refusal among them
	rest      []byte          // read past those replies: go-smtp's (in rbuf)
	wbuf      []byte          // XFORWARD commands and MAIL, reused
	rbuf      []byte          // replies to XFORWARD as read, reused

	// The message data is gathered into writes of up to maxGathered
	// octets (go-smtp's client writes it 4 kB at a time) until the reply
	// to its end is read.
	gathering bool
	gathered  []byte
}

// maxGathered is the most message data gathered for one write to the next hop.
const maxGathered = 64 << 10

// gather starts gathering the writes of message data.
func (h *hopConn) gather() { h.gathering = true }

// flushGathered writes the message data gathered so far.
func (h *hopConn) flushGathered() error {
	if len(h.gathered) == 0 {
		return nil
	}
	_, err := h.write(h.gathered)
	h.gathered = h.gathered[:0]
	return err
}

func (h *hopConn) Write(p []byte) (int, error) {
	if h.gathering {
		if len(h.gathered)+len(p) > maxGathered {
			if err := h.flushGathered(); err != nil {
				return 0, err
			}
		}
		if len(p) < maxGathered {
			h.gathered = append(h.gathered, p...)
			return len(p), nil
		}
	}
	return h.write(p)
}

// write writes p, after any XFORWARD commands waiting, within the timeout.
func (h *hopConn) write(p []byte) (int, error) {
	h.Conn.SetWriteDeadline(time.Now().Add(h.timeout))
	if len(h.xfCmds) == 0 {
		return h.Conn.Write(p)
	}
	out := append(append(h.wbuf[:0], h.xfCmds...), p...)
	h.wbuf, h.xfCmds = out, h.xfCmds[:0]
	if _, err := h.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (h *hopConn) Read(p []byte) (int, error) {
	if h.gathering {
		// The reply to the end of the data: what is gathered goes first.
		h.gathering = false
		if err := h.flushGathered(); err != nil {
			return 0, err
		}
	}
	if h.xfReplies > 0 {
		if err := h.takeXForwardReplies(); err != nil {
			return 0, err
		}
	}
	if len(h.rest) > 0 {
		n := copy(p, h.rest)
		h.rest = h.rest[n:]
		return n, nil
	}
	return h.Conn.Read(p)
}

// maxXForwardReplies bounds what is read for the replies to XFORWARD.
const maxXForwardReplies = 64 << 10

// takeXForwardReplies reads the replies to the pipelined XFORWARD
// commands (RFC 5321 section 4.2: lines "ddd-text", the last "ddd text"),
// notes the first refusal, and keeps what follows them for go-smtp.
func (h *hopConn) takeXForwardReplies() error {
	// What go-smtp has not read yet comes first (rest is in rbuf: append
	// moves it to the start).
	buf := append(h.rbuf[:0], h.rest...)
	h.rest = nil
	defer func() { h.rbuf = buf[:0] }()
	for {
		for h.xfReplies > 0 {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			line := bytes.TrimRight(buf[:i], "\r")
			buf = buf[i+1:]
			if len(line) < 3 || !isDigits(line[:3]) || (len(line) > 3 && line[3] != ' ' && line[3] != '-') {
				return fmt.Errorf("reply to XFORWARD: expected ddd text, got %q", truncate(line, 64))
			}
			if len(line) > 3 && line[3] == '-' {
				continue
			}
			h.xfReplies--
			if line[0] != '2' && h.xfRefused == nil {
				code, _ := strconv.Atoi(string(line[:3]))
				h.xfRefused = &smtp.SMTPError{Code: code, Message: string(bytes.TrimSpace(line[3:]))}
			}
		}
		if h.xfReplies == 0 {
			h.rest = buf
			return nil
		}
		if len(buf) > maxXForwardReplies {
			return errors.New("reply to XFORWARD: too long")
		}
		buf = slices.Grow(buf, 512)
		n, err := h.Conn.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			return err
		}
	}
}

// refusedXForward returns the next hop's first refusal of the last
// XFORWARD commands, if any, and forgets commands that never went out
// (MAIL failed before it was sent): they must not precede another command.
func (h *hopConn) refusedXForward() *smtp.SMTPError {
	if len(h.xfCmds) > 0 {
		h.xfCmds, h.xfReplies = h.xfCmds[:0], 0
	}
	r := h.xfRefused
	h.xfRefused = nil
	return r
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
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

// xforward sends cmds, n XFORWARD commands each ending in CRLF. go-smtp's
// client has no way to send a command of its own: to a next hop that
// offers PIPELINING they go out with the MAIL command that follows
// (hopConn; refusedXForward tells how they were answered), else on the
// connection between two of go-smtp's commands, when it expects nothing.
// The greeting is refreshed first (Extension does): after a RSET go-smtp's
// client sends EHLO again at the next command, and an EHLO would reset the
// attributes (XFORWARD_README).
func (h *nextHop) xforward(cmds []byte, n int) error {
	if n == 0 {
		return nil
	}
	if ok, _ := h.c.Extension("XFORWARD"); !ok {
		return nil
	}
	if ok, _ := h.c.Extension("PIPELINING"); ok {
		h.conn.xfCmds = append(h.conn.xfCmds, cmds...)
		h.conn.xfReplies += n
		return nil
	}
	h.conn.SetDeadline(time.Now().Add(h.conn.timeout))
	defer h.conn.SetDeadline(time.Time{})
	r := textproto.NewReader(bufio.NewReaderSize(io.LimitReader(h.conn, 64<<10), 512))
	for len(cmds) > 0 {
		i := bytes.IndexByte(cmds, '\n')
		cmd := cmds[:i+1]
		cmds = cmds[i+1:]
		if _, err := h.conn.Write(cmd); err != nil {
			return err
		}
		if _, _, err := r.ReadResponse(250); err != nil {
			return fmt.Errorf("%s: %w", bytes.TrimRight(cmd, "\r\n"), err)
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
	if err == nil {
		return nil, false
	}
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se, true
	}
	return nil, false
}
