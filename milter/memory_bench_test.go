package milter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Memory per bounce in flight (issue 14): the goal is at most four times
// the message's size plus 64 kB.
const (
	goalBounceFactor = 4
	goalBounceExtra  = 64 << 10
	// inFlight is the number of bounces held at once for the in-flight
	// figure.
	inFlight = 50
)

// goalBounceBytes is the memory a bounce of size bytes may cost in flight.
func goalBounceBytes(size int) float64 { return float64(goalBounceFactor*size + goalBounceExtra) }

// BenchmarkBounceMemory is the memory a bounce costs the milter, for bounces
// of 5 kB, 50 kB and 1 MB (a Postfix report whose returned message is sized
// to reach it), each sent through a real milter session on loopback as
// Postfix sends it (macros, MAIL, RCPT, header fields, body chunks of at
// most 64 KiB, end of message, abort), judged against a bbolt ledger that
// recorded the original. The client writes packets encoded beforehand and
// reads the replies into one buffer, so that what is allocated is the
// milter's (go-milter included). It reports, each against the goal (4x the
// size plus 64 kB, "/goal" the ratio):
//
//   - alloc-B/bounce: bytes allocated per bounce, one connection sending
//     them one after the other (b.N bounces);
//   - held-B/bounce: the live heap (after a collection) per bounce while 50
//     connections each hold one with its whole body sent and its end not yet
//     (the most a session keeps before it reads the report);
//   - peak-B/bounce: the highest heap (sampled every millisecond, garbage
//     included) per bounce above the heap before, from the first packet of
//     the 50 to their last reply.
//
// make bench-memory runs it three times.
func BenchmarkBounceMemory(b *testing.B) {
	for _, size := range []int{5000, 50_000, 1_000_000} {
		b.Run(fmt.Sprintf("size=%dkB", size/1000), func(b *testing.B) { benchBounceMemory(b, size) })
	}
}

func benchBounceMemory(b *testing.B, size int) {
	l := openLedger(b, b.TempDir())
	defer l.Close()
	srv, addr := startServer(b, Config{}, l)
	const origID = "mem.1@example.org"
	if err := l.Put(context.Background(), ledger.Record{MessageID: origID, QueueID: "4MEM1",
		Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}}); err != nil {
		b.Fatal(err)
	}
	raw := sizedBounce(origID, size)
	if len(raw) != size {
		b.Fatalf("the bounce is %d bytes, want %d", len(raw), size)
	}
	msg := encodeMessage(raw, "4MEMQ")

	// Allocated per bounce, one connection.
	c := dialWire(b, addr)
	defer c.close()
	// One bounce first, to check what the milter did with it (and to have
	// the session's and the rules' first-use costs out of the figure).
	if mods, err := c.send(msg.all); err != nil || !bytes.Contains(mods, []byte("X-NDR-Backscatter\x00no")) {
		b.Fatalf("the %d-byte bounce was not read as one for a message sent from here: %v, modifications %q", size, err, mods)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, err := c.send(msg.all); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	alloc := float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
	b.StopTimer()

	held, peak := bouncesInFlight(b, srv, addr, msg)
	goal := goalBounceBytes(size)
	b.ReportMetric(alloc, "alloc-B/bounce")
	b.ReportMetric(alloc/goal, "alloc/goal")
	b.ReportMetric(held, "held-B/bounce")
	b.ReportMetric(held/goal, "held/goal")
	b.ReportMetric(peak, "peak-B/bounce")
	b.ReportMetric(peak/goal, "peak/goal")
	b.Logf("%d-byte bounce: per-bounce / (4x size + 64kB = %.0f B): allocated %.0f B (%.2f), held in flight %.0f B (%.2f), peak in flight %.0f B (%.2f); %d bounces at once",
		size, goal, alloc, alloc/goal, held, held/goal, peak, peak/goal, inFlight)
}

// bouncesInFlight opens inFlight connections, sends each the bounce up to
// its last body chunk, measures the live heap, then ends them all at once;
// it returns the live heap per bounce held and the peak heap per bounce,
// both above the heap before the first packet.
func bouncesInFlight(b *testing.B, srv *Server, addr string, msg wireMessage) (held, peak float64) {
	conns := make([]*wireConn, inFlight)
	for i := range conns {
		conns[i] = dialWire(b, addr)
		defer conns[i].close()
	}
	for deadline := time.Now().Add(10 * time.Second); srv.Sessions() < inFlight+1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%d sessions open, want %d", srv.Sessions(), inFlight+1)
		}
	}
	base := heapAfterGC()
	stopSampling := sampleHeapPeak(time.Millisecond)
	sendAll := func(p wirePackets) {
		var wg sync.WaitGroup
		for _, c := range conns {
			wg.Go(func() {
				if _, err := c.send(p); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	sendAll(msg.body)
	live := heapAfterGC()
	sendAll(msg.end)
	top := stopSampling()
	if b.Failed() {
		b.FailNow()
	}
	n := float64(inFlight)
	return (float64(live) - float64(base)) / n, (float64(top) - float64(base)) / n
}

// sizedBounce is a Postfix report of an undeliverable message whose
// returned message (message/rfc822, lines of text) makes it size bytes
// long.
func sizedBounce(origID string, size int) []byte {
	raw := report(origID, "alice@example.org", "bob@remote.example", "5.2.2",
		"552 5.2.2 <bob@remote.example>: Recipient address rejected: Mailbox full")
	head := strings.TrimSuffix(string(raw), "--BOUNDARY.1--\r\n")
	head = strings.Replace(head, "text/rfc822-headers", "message/rfc822", 1)
	head += "\r\n"
	const tail = "\r\n--BOUNDARY.1--\r\n"
	line := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\r\n"
	var b strings.Builder
	b.WriteString(head)
	for b.Len()+len(tail) < size {
		n := min(len(line), size-len(tail)-b.Len())
		if n < len(line) && n >= 2 {
			b.WriteString(line[:n-2] + "\r\n")
		} else {
			b.WriteString(line[:n])
		}
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// wireMessage is one message as a Postfix client sends it, encoded: body is
// everything up to the last body chunk, end the end of message and the
// abort, and all both, with the number of replies each waits for (every
// command but macros, header fields, which the milter asks no reply for,
// and abort).
type wireMessage struct {
	body, end, all wirePackets
}

// wirePackets are encoded packets and the replies they wait for.
type wirePackets struct {
	data    []byte
	replies int
}

// packet appends one milter packet: length, command, data.
func packet(p []byte, cmd gomilter.Code, data ...[]byte) []byte {
	n := 1
	for _, d := range data {
		n += len(d)
	}
	p = binary.BigEndian.AppendUint32(p, uint32(n))
	p = append(p, byte(cmd))
	for _, d := range data {
		p = append(p, d...)
	}
	return p
}

// encodeMessage encodes the bounce raw as Postfix sends it.
func encodeMessage(raw []byte, qid string) wireMessage {
	var m wireMessage
	p := packet(nil, gomilter.CodeMacro, []byte{byte(gomilter.CodeMail)}, cstrings("{client_addr}", "203.0.113.25", "{mail_addr}", ""))
	p = packet(p, gomilter.CodeMail, cstrings("<>"))
	p = packet(p, gomilter.CodeMacro, []byte{byte(gomilter.CodeRcpt)}, cstrings("{rcpt_addr}", "alice@example.org"))
	p = packet(p, gomilter.CodeRcpt, cstrings("<alice@example.org>"))
	fields, body := splitMessage(raw)
	for _, f := range fields {
		p = packet(p, gomilter.CodeHeader, cstrings(f[0], f[1]))
	}
	p = packet(p, gomilter.CodeMacro, []byte{byte(gomilter.CodeEOH)}, cstrings("i", qid))
	p = packet(p, gomilter.CodeEOH)
	replies := 3 // MAIL, RCPT, end of header
	for len(body) > 0 {
		n := min(len(body), gomilter.MaxBodyChunk)
		p = packet(p, gomilter.CodeBody, body[:n])
		body = body[n:]
		replies++
	}
	m.body = wirePackets{p, replies}
	e := packet(nil, gomilter.CodeMacro, []byte{byte(gomilter.CodeEOB)}, cstrings("i", qid))
	e = packet(e, gomilter.CodeEOB)
	e = packet(e, gomilter.CodeAbort)
	m.end = wirePackets{e, 1}
	m.all = wirePackets{append(p[:len(p):len(p)], e...), m.body.replies + m.end.replies}
	return m
}

// wireConn is a milter connection driven with encoded packets, as Postfix
// would (protocol 2, offering what Postfix offers a milter of that
// version), that allocates nothing per message.
type wireConn struct {
	c    net.Conn
	r    *bufio.Reader
	buf  []byte // a reply
	mods []byte // the modifications of the last end of message
}

// dialWire connects, negotiates and sends the connect command.
func dialWire(b *testing.B, addr string) *wireConn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	c := &wireConn{c: nc, r: bufio.NewReaderSize(nc, 64<<10), buf: make([]byte, 0, 64<<10)}
	actions := gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine
	var neg []byte
	for _, v := range []uint32{2, uint32(actions), uint32(gomilter.OptNoHelo | gomilter.OptNoHeaderReply)} {
		neg = binary.BigEndian.AppendUint32(neg, v)
	}
	if _, err := nc.Write(packet(nil, gomilter.CodeOptNeg, neg)); err != nil {
		b.Fatal(err)
	}
	if code, data, err := c.read(); err != nil || code != byte(gomilter.CodeOptNeg) || len(data) < 12 ||
		gomilter.OptProtocol(binary.BigEndian.Uint32(data[8:]))&gomilter.OptNoHeaderReply == 0 {
		b.Fatalf("option negotiation: reply %c %q (%v), want one that asks for no header replies", code, data, err)
	}
	p := packet(nil, gomilter.CodeMacro, []byte{byte(gomilter.CodeConn)}, cstrings("j", "mx.example.org", "{client_addr}", "203.0.113.25"))
	p = packet(p, gomilter.CodeConn, cstrings("client.example.net"), []byte{'4', 0x9c, 0x40}, cstrings("203.0.113.25"))
	if _, err := c.send(wirePackets{p, 1}); err != nil {
		b.Fatalf("connect: %v", err)
	}
	return c
}

// read reads one reply packet into c.buf.
func (c *wireConn) read() (byte, []byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(c.r, n[:]); err != nil {
		return 0, nil, fmt.Errorf("reading a reply: %v", err)
	}
	size := int(binary.BigEndian.Uint32(n[:]))
	if size == 0 || size > cap(c.buf) {
		return 0, nil, fmt.Errorf("a reply of %d bytes", size)
	}
	c.buf = c.buf[:size]
	if _, err := io.ReadFull(c.r, c.buf); err != nil {
		return 0, nil, fmt.Errorf("reading a reply: %v", err)
	}
	return c.buf[0], c.buf[1:], nil
}

// send writes p and reads its replies: each a continue, but for the end of
// message, whose modifications come first and are returned (in a buffer
// reused by the next send). The write does not wait for the replies to be
// read: they are a few bytes each, which the socket holds.
func (c *wireConn) send(p wirePackets) ([]byte, error) {
	if _, err := c.c.Write(p.data); err != nil {
		return nil, err
	}
	c.mods = c.mods[:0]
	for got := 0; got < p.replies; {
		code, data, err := c.read()
		if err != nil {
			return nil, err
		}
		switch gomilter.ActionCode(code) {
		case gomilter.ActContinue:
			got++
		case gomilter.ActAccept, gomilter.ActDiscard, gomilter.ActReject, gomilter.ActTempFail, gomilter.ActReplyCode:
			return nil, fmt.Errorf("reply %c %q to a bounce: want continue", code, data)
		default: // a modification
			c.mods = append(append(append(c.mods, code), data...), '\n')
		}
	}
	return c.mods, nil
}

func (c *wireConn) close() {
	c.c.Write(packet(nil, gomilter.CodeQuit))
	c.c.Close()
}
