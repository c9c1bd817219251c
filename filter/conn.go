package filter

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ndrmilter/ndrmilter/frontend"
)

// conn is a client connection as go-smtp's server reads and writes it. It
// adds what go-smtp v0.25 lacks, without a fork:
//
//   - the XFORWARD command, answered here at a command boundary (go-smtp
//     would refuse it as unknown), and its EHLO keyword for trusted clients;
//   - the EHLO keywords of the next hop: its SIZE, and SMTPUTF8 and DSN only
//     when it offers them; CHUNKING and BINARYMIME are not offered, since
//     the message goes on with DATA;
//   - a read deadline renewed at every read (go-smtp sets one per command,
//     none while the message data arrives), and drain: at shutdown a
//     connection between transactions gets 421 at its next command.
//
// To find command boundaries it follows the client's stream: one command
// line per Read, the message data (from the session's Data to the
// <CRLF>.<CRLF> that go-smtp's reader stops at) and BDAT chunks passed
// through untouched. go-smtp handles a command and writes its reply before
// it reads the next one, so a reply written here to an XFORWARD comes in
// order even when the client pipelines.
type conn struct {
	net.Conn
	srv     *Server
	r       *bufio.Reader
	hold    *frontend.Hold // what the message in progress holds of the budget
	peer    netip.Addr     // the connecting address
	trusted bool           // the peer is in a trusted network: XFORWARD allowed
	dir     Direction      // the listener's direction, "" for Config.Direction

	// Read side, go-smtp's goroutine only.
	pending   []byte // the rest of the command line being handed out
	line      []byte // the command line being handed out, reused
	chunkNext int64  // BDAT chunk that follows the command line being handed out (-1: none)
	mode      readMode
	chunkLeft int64
	dot       dotState // end-of-data detector, as go-smtp's data reader

	// Write side: the reply to EHLO is collected and rewritten; replies
	// to pipelined commands wait for the reply to the last command of the
	// group (holdsReply).
	rewriteEHLO bool
	wbuf        []byte
	held        []byte

	// Shared with the session (same goroutine) and with Shutdown.
	inTx     atomic.Bool // a transaction is in progress (MAIL accepted)
	dataNext atomic.Bool // the last command handed out was DATA
	xf       xforward    // attributes of the transaction to come
	caps     *hopCaps    // the next hop's, once known

	closeOnce sync.Once
}

type readMode int

const (
	modeCommand readMode = iota
	modeData             // message data up to the end-of-data line
	modeChunk            // a BDAT chunk
)

// Limits of the command stream.
const (
	maxCommandLine = 4096 // octets, RFC 5321's 512 plus room for extensions
	readBufferSize = 64 << 10
)

var errLineTooLong = errors.New("filter: command line too long")

func newConn(nc net.Conn, s *Server) *conn {
	c := &conn{Conn: nc, srv: s, r: bufio.NewReaderSize(nc, readBufferSize), chunkNext: -1, hold: s.budget.NewHold()}
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(ta.IP); ok {
			c.peer = a.Unmap()
		}
	}
	c.trusted = c.peer.IsValid() && s.config().site.Trusted(c.peer)
	return c
}

// renewReadDeadline gives the client IdleTimeout for its next bytes. It is
// called before a read that may wait for the network: what is buffered
// already needs no deadline.
func (c *conn) renewReadDeadline() {
	if t := c.srv.config().IdleTimeout; t > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(t))
	}
}

// arm renews the read deadline when the next command line is not buffered
// whole (pipelined commands are), and, between transactions at shutdown,
// tells the client to go away (421) and ends the connection.
func (c *conn) arm() error {
	if !c.commandBuffered() {
		c.flushHeld()
		c.renewReadDeadline()
	}
	if c.srv.draining() && !c.inTx.Load() {
		c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
		c.Conn.Write(append(c.takeHeld(), "421 4.3.2 Service shutting down, try again later\r\n"...))
		return io.EOF
	}
	return nil
}

// wake interrupts a read waiting for the next command, for drain.
func (c *conn) wake() {
	if !c.inTx.Load() {
		c.Conn.SetReadDeadline(time.Now())
	}
}

// enterData is called by the session when its Data starts. After DATA,
// go-smtp has written 354 and reads nothing of the message before Data does;
// after BDAT (whose Data runs in a goroutine of its own while the chunks are
// read) the chunk sizes delimit the data and nothing changes here.
func (c *conn) enterData() {
	if c.dataNext.Swap(false) {
		c.mode, c.dot = modeData, dotBeginLine
	}
}

func (c *conn) Read(p []byte) (int, error) {
	switch c.mode {
	case modeData:
		return c.readData(p)
	case modeChunk:
		return c.readChunk(p)
	}
	if len(c.pending) > 0 {
		return c.handOut(p), nil
	}
	for {
		if err := c.arm(); err != nil {
			return 0, err
		}
		line, err := c.r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull) || len(line) > maxCommandLine:
			return 0, errLineTooLong
		case err != nil && isTimeout(err):
			if c.srv.draining() && !c.inTx.Load() {
				return 0, c.arm() // woken by Shutdown: 421
			}
			return 0, err
		case len(line) == 0:
			return 0, err
		}
		// (A last line without CRLF before EOF is handed out; EOF comes next.)
		verb, args := splitCommand(line)
		c.dataNext.Store(verb == verbDATA)
		switch verb {
		case verbXFORWARD:
			c.xforwardCommand(string(args))
			continue
		case verbEHLO:
			c.rewriteEHLO = true
		case verbBDAT:
			c.chunkNext = bdatSize(string(args))
		}
		c.line = append(c.line[:0], line...)
		c.pending = c.line
		return c.handOut(p), nil
	}
}

// handOut gives go-smtp the next part of the current command line; after
// its last byte comes the BDAT chunk, if the line announced one.
func (c *conn) handOut(p []byte) int {
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	if len(c.pending) == 0 && c.chunkNext >= 0 {
		if c.chunkNext > 0 {
			c.mode, c.chunkLeft = modeChunk, c.chunkNext
		}
		c.chunkNext = -1
	}
	return n
}

func (c *conn) readChunk(p []byte) (int, error) {
	if c.r.Buffered() == 0 {
		c.flushHeld()
		c.renewReadDeadline()
	}
	if int64(len(p)) > c.chunkLeft {
		p = p[:c.chunkLeft]
	}
	n, err := c.r.Read(p)
	c.chunkLeft -= int64(n)
	if c.chunkLeft == 0 {
		c.mode = modeCommand
	}
	return n, err
}

// readData passes message data through, up to and including the line "."
// that ends it.
func (c *conn) readData(p []byte) (int, error) {
	if c.r.Buffered() == 0 {
		c.flushHeld()
		c.renewReadDeadline()
		if _, err := c.r.Peek(1); err != nil {
			return 0, err
		}
	}
	b, _ := c.r.Peek(min(c.r.Buffered(), len(p)))
	n, end := c.dot.scan(b)
	copy(p, b[:n])
	c.r.Discard(n)
	if end {
		c.mode = modeCommand
	}
	return n, nil
}

// dotState follows message data as go-smtp's data reader does (it is the
// state machine of net/textproto's dot reader without CRLF rewriting), so
// that the connection stops exactly where go-smtp stops.
type dotState int

const (
	dotBeginLine dotState = iota // at the beginning of a line
	dotDot                       // "." at the beginning of a line
	dotDotCR                     // ".\r" at the beginning of a line
	dotCR                        // "\r"
	dotData                      // inside a line
)

// scan advances over b and returns how many bytes belong to the message
// data and whether they end it.
func (d *dotState) scan(b []byte) (int, bool) {
	for i := 0; i < len(b); {
		if *d == dotData {
			j := bytes.IndexByte(b[i:], '\r')
			if j < 0 {
				return len(b), false
			}
			i += j + 1
			*d = dotCR
			continue
		}
		c := b[i]
		i++
		switch *d {
		case dotBeginLine:
			switch c {
			case '.':
				*d = dotDot
			case '\r':
				*d = dotCR
			default:
				*d = dotData
			}
		case dotDot:
			if c == '\r' {
				*d = dotDotCR
			} else {
				*d = dotData
			}
		case dotDotCR:
			if c == '\n' {
				*d = dotBeginLine
				return i, true
			}
			*d = dotData
		case dotCR:
			if c == '\n' {
				*d = dotBeginLine
			} else {
				*d = dotData
			}
		}
	}
	return len(b), false
}

// commandVerb is a command the connection looks at: the others are
// go-smtp's alone.
type commandVerb int

const (
	verbOther commandVerb = iota
	verbDATA
	verbEHLO
	verbBDAT
	verbXFORWARD
)

// splitCommand returns the verb of a command line, any case, and its
// arguments (white space and the line ending trimmed). It makes no copy:
// every command of every message passes here.
func splitCommand(line []byte) (commandVerb, []byte) {
	line = bytes.TrimRight(line, "\r\n")
	verb, args, _ := bytes.Cut(line, []byte(" "))
	v := verbOther
	switch {
	case bytes.EqualFold(verb, []byte("DATA")):
		v = verbDATA
	case bytes.EqualFold(verb, []byte("EHLO")):
		v = verbEHLO
	case bytes.EqualFold(verb, []byte("BDAT")):
		v = verbBDAT
	case bytes.EqualFold(verb, []byte("XFORWARD")):
		v = verbXFORWARD
	}
	return v, bytes.TrimSpace(args)
}

// bdatSize is the chunk size of "BDAT size [LAST]" as go-smtp reads it, or
// -1 when go-smtp refuses the arguments without reading a chunk.
func bdatSize(args string) int64 {
	f := strings.Fields(args)
	if len(f) == 0 || len(f) > 2 || (len(f) == 2 && !strings.EqualFold(f[1], "LAST")) {
		return -1
	}
	n, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return -1
	}
	return int64(n)
}

// xforwardCommand answers an XFORWARD command (XFORWARD_README, reply codes).
func (c *conn) xforwardCommand(args string) {
	var reply string
	switch {
	case !c.trusted:
		reply = "550 5.7.0 Error: insufficient authorization"
	case c.inTx.Load():
		reply = "503 5.5.1 Error: MAIL transaction in progress"
	default:
		if err := c.xf.update(args); err != nil {
			reply = "501 5.5.4 " + err.Error()
		} else {
			reply = "250 2.0.0 Ok"
		}
	}
	c.writeDirect(reply)
}

// writeDirect writes the reply to a command the connection answers itself.
// When the client has pipelined more commands (RFC 2920; Postfix sends
// XFORWARD, MAIL, RCPT and DATA in one go) the reply waits, in order, for
// go-smtp's reply to the next one: one write, not one per command.
func (c *conn) writeDirect(line string) {
	c.held = append(c.held, line...)
	c.held = append(c.held, "\r\n"...)
	if !c.commandBuffered() {
		c.flushHeld()
	}
}

// commandBuffered reports whether a whole command line has come from the
// client and not been read yet: a command pipelined after the one being
// answered (RFC 2920).
func (c *conn) commandBuffered() bool {
	b, _ := c.r.Peek(c.r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// maxHeldReplies bounds the replies held for a group of pipelined commands.
const maxHeldReplies = 16 << 10

// holdsReply reports whether go-smtp's reply p waits for the replies to the
// commands the client pipelined after the one it answers, to go out with
// them in one write, as RFC 2920 section 3.2 recommends a server do. Only a
// positive single-line reply waits (go-smtp closes the connection after
// some others), and only while the next command is buffered whole: the
// connection never waits for the client with a reply held (flushHeld
// before each read from the network).
func (c *conn) holdsReply(p []byte) bool {
	return c.mode == modeCommand && len(c.held)+len(p) <= maxHeldReplies && len(p) > 4 &&
		string(p[:4]) == "250 " && bytes.IndexByte(p, '\n') == len(p)-1 && c.commandBuffered()
}

// flushHeld writes the replies held, if any.
func (c *conn) flushHeld() {
	if len(c.held) == 0 {
		return
	}
	c.Conn.SetWriteDeadline(time.Now().Add(time.Minute))
	c.Conn.Write(c.takeHeld())
}

// takeHeld returns the replies waiting to go out and forgets them. The
// result shares the buffer of the held replies: it is written before any
// is held again.
func (c *conn) takeHeld() []byte {
	h := c.held
	c.held = c.held[:0]
	return h
}

// Write passes go-smtp's replies on, after any held ones, rewriting the
// reply to EHLO; a reply to a command the client pipelined more after may
// wait for theirs (holdsReply).
func (c *conn) Write(p []byte) (int, error) {
	if !c.rewriteEHLO {
		if c.holdsReply(p) {
			c.held = append(c.held, p...)
			return len(p), nil
		}
		if len(c.held) == 0 {
			return c.Conn.Write(p)
		}
		if _, err := c.Conn.Write(append(c.takeHeld(), p...)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	c.wbuf = append(c.wbuf, p...)
	last := lastLine(c.wbuf)
	if len(c.wbuf) > 16<<10 || (len(last) >= 4 && last[3] == ' ') {
		out := c.wbuf
		if bytes.HasPrefix(out, []byte("250")) {
			out = ehloReply(out, c.caps, c.trusted)
		}
		c.wbuf, c.rewriteEHLO = c.wbuf[:0], false
		if len(c.held) > 0 {
			out = append(c.takeHeld(), out...)
		}
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// lastLine returns the last complete line of b ("" when b does not end a line).
func lastLine(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return nil
	}
	b = b[:len(b)-1]
	return b[bytes.LastIndexByte(b, '\n')+1:]
}

// ehloReply rewrites go-smtp's reply to EHLO for the next hop's keywords
// (caps; nil while the next hop is not known: go-smtp's as they are) and
// adds XFORWARD for a trusted client.
func ehloReply(reply []byte, caps *hopCaps, trusted bool) []byte {
	lines := strings.Split(strings.TrimRight(string(reply), "\r\n"), "\n")
	var out []string
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if len(l) < 4 {
			continue
		}
		text := l[4:]
		if i > 0 {
			kw := strings.ToUpper(strings.Fields(text + " x")[0])
			switch kw {
			case "CHUNKING", "BINARYMIME":
				continue
			case "SIZE":
				if caps != nil && caps.size > 0 {
					text = "SIZE " + strconv.FormatInt(caps.size, 10)
				}
			case "SMTPUTF8":
				if caps != nil && !caps.utf8 {
					continue
				}
			case "DSN":
				if caps != nil && !caps.dsn {
					continue
				}
			}
		}
		out = append(out, text)
	}
	if trusted {
		out = append(out, xforwardKeyword)
	}
	var b strings.Builder
	for i, t := range out {
		sep := "-"
		if i == len(out)-1 {
			sep = " "
		}
		b.WriteString("250" + sep + t + "\r\n")
	}
	return []byte(b.String())
}

// Close closes the connection once and forgets it.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() { c.srv.forget(c) })
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
