package filter

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/scripts/noopfilter/noopproxy"
)

// BenchmarkRelay is scripts/bench-filter in one process, for CPU profiles
// and allocation counts on a machine shared with other work: a client that
// talks as Postfix's smtp(8) to a content filter (XFORWARD, then MAIL, RCPT
// and DATA pipelined, connections reused) sends the benchmark's mix, half
// outbound (recorded in a bbolt ledger), a quarter ordinary inbound mail
// and a quarter bounces, through the filter ("filter") or through the
// no-op go-smtp proxy of scripts/noopfilter ("noop"), to a next hop that
// answers as Postfix's reinjection smtpd does. Besides ns/op it reports
// cpu-us/op, the CPU time of the whole process (client, proxy and next
// hop, the same in both) per message: the difference of the two is what
// the filter adds to the hop, whatever the neighbours do. "filter-noledger"
// is the filter without a ledger.
//
//	go test -run '^$' -bench Relay -benchtime 4000x -cpuprofile cpu.out ./filter/
func BenchmarkRelay(b *testing.B) {
	for _, mode := range []string{"noop", "filter", "filter-noledger"} {
		b.Run(mode, func(b *testing.B) {
			hop := startBenchHop(b)
			var addr string
			switch mode {
			case "noop":
				addr = startNoop(b, hop)
			case "filter":
				addr = startBenchFilter(b, hop, openLedger(b))
			case "filter-noledger":
				// What the filter costs besides its ledger's writes and
				// lookups: outbound mail is not recorded, no bounce is
				// found in it.
				addr = startBenchFilter(b, hop, nil)
			}
			runRelay(b, addr)
		})
	}
}

// benchSessions are the client connections sending at once, as the
// benchmark's smtp(8) processes.
const benchSessions = 4

func runRelay(b *testing.B, addr string) {
	var clients []*benchClient
	for range benchSessions {
		c, err := dialBenchClient(addr)
		if err != nil {
			b.Fatal(err)
		}
		clients = append(clients, c)
		defer c.close()
	}
	// One of each kind first, so that the ledger and the pools are warm.
	for i := range 4 {
		if err := clients[0].send(benchMessage(i)); err != nil {
			b.Fatal(err)
		}
	}
	var next sync.Mutex
	n := 0
	take := func() (int, bool) {
		next.Lock()
		defer next.Unlock()
		if n >= b.N {
			return 0, false
		}
		n++
		return n - 1, true
	}
	b.ReportAllocs()
	cpu0, calls0 := cpuTime(), ioCalls()
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make(chan error, len(clients))
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := c.send(benchMessage(i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
	b.ReportMetric(float64(ioCalls()-calls0)/float64(b.N), "rw-calls/op")
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ioCalls is the number of read and write system calls the process made
// (/proc/self/io), 0 where there is none.
func ioCalls() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	var n int64
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && (k == "syscr" || k == "syscw") {
			i, _ := strconv.ParseInt(v, 10, 64)
			n += i
		}
	}
	return n
}

// startBenchFilter runs the filter as scripts/bench-filter does: backscatter
// tagged, its log as ndrmilter filter writes it (JSON lines with the
// caller, level info) going to a file.
func startBenchFilter(b *testing.B, next string, l ledger.Ledger) string {
	f, err := os.Create(filepath.Join(b.TempDir(), "filter.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	ec := zap.NewProductionEncoderConfig()
	ec.EncodeTime = zapcore.ISO8601TimeEncoder
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(ec), zapcore.AddSync(f), zap.InfoLevel), zap.AddCaller())
	cfg := Config{Next: next, Domains: []string{"example.org"}, Hostname: "filter.example.org",
		BackscatterAction: decide.ActionTag}
	srv, err := New(cfg, testEngine(b), l, log, prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}

func startNoop(b *testing.B, next string) string {
	srv := noopproxy.NewServer(next)
	srv.ErrorLog = nopLog{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// benchMail is one message of the mix: its XFORWARD attributes, envelope
// and data (lines ending in CRLF, dots not yet stuffed: none start with one).
type benchMail struct {
	xforward []string
	from, to string
	data     []byte
}

var (
	benchOnce   sync.Once
	benchBody   string
	benchReport []byte
)

// benchMessage is message i of the mix: 2 of 4 outbound (from a trusted
// address), 1 inbound, 1 bounce (null sender, a DSN for a message never
// sent), as scripts/bench-filter's smtp-source runs send them through
// Postfix.
func benchMessage(i int) benchMail {
	benchOnce.Do(func() {
		benchBody = smtpSourceBody(5000)
		benchReport = benchBounce()
	})
	// Postfix's queue id, and the Message-ID its cleanup adds.
	id := fmt.Sprintf("4B%07dQ", i)
	switch i % 4 {
	case 0, 1:
		return benchMail{xforward: postfixXForward("localhost", "::1", id), from: "alice@example.org",
			to: "bob@remote.test", data: benchHeader("alice@example.org", "bob@remote.test", id, benchBody)}
	case 2:
		return benchMail{xforward: postfixXForward("localhost", "127.0.0.1", id), from: "carol@remote.test",
			to: "alice@example.org", data: benchHeader("carol@remote.test", "alice@example.org", id, benchBody)}
	}
	return benchMail{xforward: postfixXForward("localhost", "127.0.0.1", id), from: "",
		to: "alice@example.org", data: benchReport}
}

// postfixXForward are the XFORWARD commands Postfix's smtp(8) sends to a
// content filter for a message from addr with queue id id.
func postfixXForward(name, addr, id string) []string {
	return []string{
		"XFORWARD NAME=" + name + " ADDR=" + addr + " PORT=41234 HELO=" + name + " PROTO=ESMTP",
		"XFORWARD IDENT=" + id + " SOURCE=REMOTE",
	}
}

// smtpSourceBody is a body as smtp-source -l size writes it.
func smtpSourceBody(size int) string {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "La de da de da %d.\r\n", i)
	}
	return b.String()
}

// benchHeader is a message as Postfix passes one from smtp-source on to
// its content filter: its Received field first.
func benchHeader(from, to, id, body string) []byte {
	return fmt.Appendf(nil, "Received: from localhost (localhost [127.0.0.1])\r\n"+
		"\tby mx.example.org (Postfix) with ESMTP id %[3]s\r\n\tfor <%[2]s>; Mon, 30 Nov 2026 21:00:00 +0000 (UTC)\r\n"+
		"From: <%[1]s>\r\nTo: <%[2]s>\r\nDate: Mon, 30 Nov 2026 21:00:00 +0000 (UTC)\r\n"+
		"Message-Id: <20261130210000.%[3]s@mx.example.org>\r\n\r\n%[4]s", from, to, id, body)
}

// benchBounce is scripts/bench-filter's bounce: a DSN about a message that
// never left.
func benchBounce() []byte {
	s := "Received: from localhost (localhost [127.0.0.1])\n\tby mx.example.org (Postfix) with ESMTP id 4BNC\n\tfor <alice@example.org>; Mon, 30 Nov 2026 21:00:00 +0000 (UTC)\n" +
		"From: Mail Delivery System <MAILER-DAEMON@mx.remote.test>\nTo: <alice@example.org>\n" +
		"Subject: Undelivered Mail Returned to Sender\nMessage-ID: <bench-dsn@mx.remote.test>\n" +
		"MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\n\n" +
		"--b1\nContent-Type: text/plain\n\nI am sorry to have to inform you that your message could not be delivered.\n\n" +
		"<bob@remote.test>: host mx.remote.test[192.0.2.10] said: 550 5.1.1 <bob@remote.test>: Recipient address rejected: User unknown\n\n" +
		"--b1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.remote.test\n\n" +
		"Final-Recipient: rfc822; bob@remote.test\nAction: failed\nStatus: 5.1.1\nRemote-MTA: dns; mx.remote.test\n" +
		"Diagnostic-Code: smtp; 550 5.1.1 <bob@remote.test>: Recipient address rejected: User unknown\n\n" +
		"--b1\nContent-Type: message/rfc822\n\nFrom: Alice <alice@example.org>\nTo: <bob@remote.test>\n" +
		"Subject: quarterly figures\nMessage-ID: <never-sent-bench@example.org>\n\n"
	x := strings.Repeat("x", 3750)
	for len(x) > 76 {
		s += x[:76] + "\n"
		x = x[76:]
	}
	s += x + "\n--b1--\n"
	return []byte(strings.ReplaceAll(s, "\n", "\r\n"))
}

// benchClient talks to a content filter as Postfix's smtp(8) does: EHLO
// once, then per message the XFORWARD commands, MAIL, RCPT and DATA in one
// write (RFC 2920), the data, and the reply to its end.
type benchClient struct {
	c        net.Conn
	r        *bufio.Reader
	w        *bufio.Writer
	xforward bool // offered in the reply to EHLO
}

func dialBenchClient(addr string) (*benchClient, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &benchClient{c: nc, r: bufio.NewReader(nc), w: bufio.NewWriterSize(nc, 16<<10)}
	if err := c.expect(220); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.w, "EHLO mx.example.org\r\n")
	c.w.Flush()
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(line, "250") || len(line) < 4 {
			return nil, fmt.Errorf("reply to EHLO %q", line)
		}
		c.xforward = c.xforward || strings.HasPrefix(line[4:], "XFORWARD ")
		if line[3] == ' ' {
			return c, nil
		}
	}
}

func (c *benchClient) close() {
	fmt.Fprintf(c.w, "QUIT\r\n")
	c.w.Flush()
	c.c.Close()
}

// expect reads a reply and fails unless its code is want.
func (c *benchClient) expect(want int) error {
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return err
		}
		if len(line) < 4 || line[:3] != strconv.Itoa(want) {
			return fmt.Errorf("reply %q, want %d", strings.TrimSpace(line), want)
		}
		if line[3] == ' ' {
			return nil
		}
	}
}

func (c *benchClient) send(m benchMail) error {
	// The no-op proxy offers no XFORWARD, and Postfix sends none to it.
	var xf []string
	if c.xforward {
		xf = m.xforward
	}
	for _, x := range xf {
		fmt.Fprintf(c.w, "%s\r\n", x)
	}
	fmt.Fprintf(c.w, "MAIL FROM:<%s> SIZE=%d\r\nRCPT TO:<%s>\r\nDATA\r\n", m.from, len(m.data), m.to)
	if err := c.w.Flush(); err != nil {
		return err
	}
	for range xf {
		if err := c.expect(250); err != nil {
			return fmt.Errorf("XFORWARD: %w", err)
		}
	}
	for _, want := range []int{250, 250, 354} {
		if err := c.expect(want); err != nil {
			return err
		}
	}
	c.w.Write(m.data)
	c.w.WriteString(".\r\n")
	if err := c.w.Flush(); err != nil {
		return err
	}
	return c.expect(250)
}

// startBenchHop runs a next hop that answers as Postfix's reinjection
// smtpd (PIPELINING, SIZE, 8BITMIME, DSN, SMTPUTF8, XFORWARD for the
// filter) and drops what it takes. It returns its address.
func startBenchHop(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveBenchHop(c)
		}
	}()
	return ln.Addr().String()
}

func serveBenchHop(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 32<<10)
	w := bufio.NewWriter(c)
	w.WriteString("220 hop.example.org ESMTP\r\n")
	w.Flush()
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		verb, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(" "))
		switch strings.ToUpper(string(verb)) {
		case "EHLO":
			w.WriteString("250-hop.example.org\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n250-8BITMIME\r\n" +
				"250-DSN\r\n250-SMTPUTF8\r\n250 XFORWARD NAME ADDR PORT PROTO HELO IDENT SOURCE\r\n")
		case "DATA":
			w.WriteString("354 End data with <CR><LF>.<CR><LF>\r\n")
			w.Flush()
			for {
				l, err := r.ReadSlice('\n')
				if err != nil && err != bufio.ErrBufferFull {
					return
				}
				if string(l) == ".\r\n" {
					break
				}
			}
			n++
			fmt.Fprintf(w, "250 2.0.0 Ok: queued as 4H%07dX\r\n", n)
		case "QUIT":
			w.WriteString("221 2.0.0 Bye\r\n")
			w.Flush()
			return
		default:
			w.WriteString("250 2.0.0 Ok\r\n")
		}
		// Replies to pipelined commands go out together, as Postfix's.
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}
