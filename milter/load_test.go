package milter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// rssKB reads this process's resident set size from /proc.
func rssKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return -1
}

// heapAfterGC collects garbage, returns freed memory to the OS (so that RSS
// figures compare), and reports the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// sampleHeapPeak reads the heap every interval until the returned stop is
// called, which returns the highest HeapAlloc it saw.
func sampleHeapPeak(every time.Duration) (stop func() uint64) {
	var peak atomic.Uint64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(every):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-sampled
		return peak.Load()
	}
}

// mixedLoad sends msgs messages over conns concurrent milter connections:
// a third outbound (authenticated), a third bounces (for recorded and for
// never-sent messages), a third ordinary inbound mail (some with forged
// X-NDR headers). Every result is checked.
func mixedLoad(t *testing.T, addr string, l ledger.Ledger, conns, msgs int, tag string) {
	t.Helper()
	c := newClient(addr)
	var wg sync.WaitGroup
	var failures atomic.Int64
	var firstErr sync.Once
	fail := func(format string, args ...any) {
		failures.Add(1)
		firstErr.Do(func() { t.Errorf(format, args...) })
	}
	per := msgs / conns
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.Session()
			if err != nil {
				fail("session %d: %v", w, err)
				return
			}
			ip := fmt.Sprintf("203.0.%d.%d", 113+w/250, 1+w%250)
			m := &mta{t: t, s: s, clientIP: ip}
			if err := s.Macros(gomilter.CodeConn, "{client_addr}", ip, "j", "mx.example.org"); err != nil {
				fail("macros: %v", err)
				return
			}
			if _, err := s.Conn("c.example.net", gomilter.FamilyInet, 4000, ip); err != nil {
				fail("conn: %v", err)
				return
			}
			defer m.close()
			for i := range per {
				id := fmt.Sprintf("%s.%d.%d@example.org", tag, w, i)
				var e envelope
				kind := i % 3
				switch kind {
				case 0:
					e = envelope{from: "alice@example.org", rcpts: []string{fmt.Sprintf("r%d@remote.example", i)}, auth: "alice",
						raw: plain("alice@example.org", "r@remote.example", id)}
				case 1:
					orig := fmt.Sprintf("%s.%d.%d@example.org", tag, w, i-1) // the outbound message just before
					if i%2 == 0 {
						orig = "never." + orig
					}
					e = envelope{from: "", rcpts: []string{"alice@example.org"},
						raw: report(orig, "alice@example.org", fmt.Sprintf("r%d@remote.example", i-1), "5.1.1", "550 5.1.1 user unknown")}
				default:
					var extra []string
					if i%2 == 0 {
						extra = []string{"X-NDR-Backscatter: no; evidence=forged"}
					}
					e = envelope{from: "friend@remote.example", rcpts: []string{"alice@example.org"},
						raw: plain("friend@remote.example", "alice@example.org", "in."+id, extra...)}
				}
				r, err := m.send(e)
				if err != nil {
					fail("conn %d message %d: %v", w, i, err)
					return
				}
				if !r.passed() {
					fail("conn %d message %d: action %c", w, i, r.act.Code)
				}
				a := apply(e.raw, r.mods)
				switch kind {
				case 0:
					if len(r.mods) != 0 {
						fail("outbound message changed: %+v", r.mods)
					}
				case 1:
					if bs := a.get("X-NDR-Backscatter"); len(bs) != 1 || strings.HasPrefix(bs[0], "unknown") {
						fail("bounce %d/%d: X-NDR-Backscatter %q", w, i, bs)
					}
				default:
					for _, f := range a.fields {
						if strings.HasPrefix(strings.ToLower(f[0]), "x-ndr-") {
							fail("ordinary message kept %q", f)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d failures under load", n)
	}
}

// TestLoadMixed is acceptance 2: 200 concurrent milter connections, 20,000
// mixed messages, no error, and no goroutine or memory growth afterwards.
func TestLoadMixed(t *testing.T) {
	conns, msgs := 200, 20000
	if testing.Short() {
		conns, msgs = 50, 3000
	}
	l := openLedger(t, t.TempDir())
	defer l.Close()
	// The lookup timeout is a safety valve that turns a slow ledger into
	// "unknown"; here, on a shared machine (and under -race), it must not
	// mask what is tested: every bounce judged from the ledger.
	srv, addr := startServer(t, Config{LookupTimeout: 10 * time.Second}, l)

	// Warm up (pools, lazily started runtime goroutines, bbolt pages), then measure.
	mixedLoad(t, addr, l, 20, 600, "warm")
	waitSessions(t, srv, 0)
	baseG := runtime.NumGoroutine()
	baseHeap := heapAfterGC()
	baseRSS := rssKB()

	start := time.Now()
	mixedLoad(t, addr, l, conns, msgs, "load")
	elapsed := time.Since(start)
	waitSessions(t, srv, 0)

	// Goroutines: back to the baseline once the connections are gone and
	// the outbound records are written.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseG && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > baseG {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after the load\n%s", baseG, g, buf[:runtime.Stack(buf, true)])
	}
	heap := heapAfterGC()
	rss := rssKB()
	t.Logf("%d messages over %d connections in %v (%.0f msg/s); goroutines %d -> %d; heap after GC %d KiB -> %d KiB; RSS %d KiB -> %d KiB",
		msgs, conns, elapsed.Round(time.Millisecond), float64(msgs)/elapsed.Seconds(), baseG, runtime.NumGoroutine(),
		baseHeap>>10, heap>>10, baseRSS, rss)
	if heap > baseHeap+8<<20 {
		t.Fatalf("heap grew from %d KiB to %d KiB after the load", baseHeap>>10, heap>>10)
	}
	// Every outbound message of the load is in the ledger.
	for _, id := range []string{"load.0.0@example.org", fmt.Sprintf("load.%d.%d@example.org", conns-1, (msgs/conns-1)/3*3)} {
		if _, err := l.ByMessageID(context.Background(), id); err != nil {
			t.Fatalf("outbound %s not recorded: %v", id, err)
		}
	}
}

func waitSessions(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Sessions() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open, want %d", srv.Sessions(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Outbound records are written in the background.
	srv.rec.Wait(context.Background())
}

// hugeBody streams a bounce body whose returned message is n bytes long.
type hugeBody struct {
	head *bytes.Reader
	left int
	line []byte
	off  int
	tail *bytes.Reader
}

func newHugeBody(head []byte, n int) *hugeBody {
	return &hugeBody{head: bytes.NewReader(head), left: n,
		line: []byte("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\r\n"),
		tail: bytes.NewReader([]byte("\r\n--BOUNDARY.1--\r\n"))}
}

func (h *hugeBody) Read(p []byte) (int, error) {
	if h.head.Len() > 0 {
		return h.head.Read(p)
	}
	if h.left > 0 {
		n := 0
		for n < len(p) && h.left > 0 {
			c := copy(p[n:min(len(p), n+h.left)], h.line[h.off:])
			h.off = (h.off + c) % len(h.line)
			n += c
			h.left -= c
		}
		return n, nil
	}
	return h.tail.Read(p)
}

// TestHugeMessageBoundedMemory is acceptance 4: a 50 MB bounce passes
// through, is still read from the first ParseCap bytes, and the heap stays
// far below the message size.
func TestHugeMessageBoundedMemory(t *testing.T) {
	const size = 50 << 20
	const heapCap = 32 << 20 // the asserted bound on heap growth during the message
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()

	raw := report("huge.1@example.org", "alice@example.org", "bob@remote.example", "5.3.4", "552 5.3.4 message size exceeds fixed limit")
	// Replace the closing boundary by a message/rfc822 part carrying the
	// 50 MB original.
	full := string(raw)
	full = strings.TrimSuffix(full, "--BOUNDARY.1--\r\n")
	_, body := splitMessage([]byte(full))
	head := string(body) + "--BOUNDARY.1\r\nContent-Type: message/rfc822\r\n\r\nFrom: alice@example.org\r\nSubject: big\r\n\r\n"

	// The sampled heap counts garbage not yet collected, and the collector
	// lets garbage grow in proportion to the live heap (GOGC=100: as much
	// again), so with the package's other tests leaving 20 MB live the
	// growth measured here was mostly the collector's pacing, not memory
	// the message holds (it failed 1 run in 5 under load). A low GOGC for
	// this test keeps that allowance to a tenth of the live heap, so the
	// cap bounds what the milter keeps for the message.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	base := heapAfterGC()
	stopSampling := sampleHeapPeak(5 * time.Millisecond)
	start := time.Now()
	hb := newHugeBody([]byte(head), size)
	r, err := mx.sendStream(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw, queueID: "4HUGE1"}, io.Reader(hb))
	peak := stopSampling()
	if err != nil {
		t.Fatal(err)
	}
	if hb.left != 0 || hb.tail.Len() != 0 {
		t.Fatalf("the client did not send the whole body: %d bytes left", hb.left)
	}
	if r.act.Code != gomilter.ActContinue {
		t.Fatalf("50 MB bounce: action %c, want continue", r.act.Code)
	}
	a := apply(raw, r.mods)
	if bs := a.get("X-NDR-Backscatter"); len(bs) != 1 || bs[0] != "yes; evidence=message-id" {
		t.Fatalf("50 MB bounce: X-NDR-Backscatter = %q (the report is in the first 2 MiB and must be read)", bs)
	}
	if slices.ContainsFunc(r.mods, func(m gomilter.ModifyAction) bool { return m.Code == gomilter.ActReplBody }) {
		t.Fatal("the body of a truncated message was replaced")
	}
	growth := int64(peak) - int64(base)
	t.Logf("50 MiB message in %v; heap %d KiB before, peak %d KiB (growth %d KiB, cap %d KiB); parse buffer cap %d KiB",
		time.Since(start).Round(time.Millisecond), base>>10, peak>>10, growth>>10, heapCap>>10, (Config{}).withDefaults().ParseCap>>10)
	if growth > heapCap {
		t.Fatalf("heap grew by %d KiB while a 50 MiB message passed; cap %d KiB", growth>>10, heapCap>>10)
	}
}

// BenchmarkMilterBounces is acceptance 3: bounces per second over loopback
// with 32 concurrent connections, through ndrmilter and through go-milter's
// no-op milter in the same run, with p99 latency of each and the ratio.
func BenchmarkMilterBounces(b *testing.B) {
	l := openLedger(b, b.TempDir())
	defer l.Close()
	// Half the bounces are for recorded messages, half for never-sent ones.
	// (Written concurrently: one group commit instead of 512 fsyncs.)
	var wg sync.WaitGroup
	for i := range 512 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Put(context.Background(), ledger.Record{MessageID: fmt.Sprintf("bench.%d@example.org", i),
				QueueID: fmt.Sprintf("4BENCH%d", i), Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}}); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	bounces := make([]envelope, 1024)
	for i := range bounces {
		id := fmt.Sprintf("bench.%d@example.org", i)
		bounces[i] = envelope{from: "", rcpts: []string{"alice@example.org"}, raw: report(id, "alice@example.org", "bob@remote.example", "5.1.1",
			"550 5.1.1 <bob@remote.example>: Recipient address rejected: User unknown in virtual mailbox table")}
	}
	benchCompare(b, l, bounces, "203.0.113.")
}

// BenchmarkMilterOutbound is the same comparison for outbound mail, which
// ndrmilter records in the (fsynced, group-committed) bbolt ledger.
func BenchmarkMilterOutbound(b *testing.B) {
	l := openLedger(b, b.TempDir())
	defer l.Close()
	msgs := make([]envelope, 1024)
	for i := range msgs {
		msgs[i] = envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"}, auth: "alice",
			raw: plain("alice@example.org", "bob@remote.example", fmt.Sprintf("obench.%d@example.org", i))}
	}
	benchCompare(b, l, msgs, "198.51.100.")
}

// benchCompare sends b.N messages (cycling through msgs) over 32
// connections, alternately to ndrmilter and to go-milter's no-op milter in
// rounds, and reports both rates, the ratio, both p99 latencies, the added
// p99, and the p99 of the time a message spends in ndrmilter's callbacks.
func benchCompare(b *testing.B, l ledger.Ledger, msgs []envelope, ipPrefix string) {
	const conns = 32
	srv, ndrAddr := startServer(b, Config{}, l)
	var inMilter []time.Duration
	var inMu sync.Mutex
	hook := func(d time.Duration) {
		inMu.Lock()
		inMilter = append(inMilter, d)
		inMu.Unlock()
	}
	srv.onMessage.Store(&hook)

	noop := &gomilter.Server{NewMilter: func() gomilter.Milter { return gomilter.NoOpMilter{} },
		Actions: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go noop.Serve(ln)
	defer ln.Close()

	// run sends n messages over conns connections and returns the elapsed
	// time and every message's latency.
	run := func(addr string, n int) (time.Duration, []time.Duration) {
		c := newClient(addr)
		var next atomic.Int64
		lat := make([][]time.Duration, conns)
		var wg sync.WaitGroup
		start := time.Now()
		for w := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m := dial(b, c, fmt.Sprintf("%s%d", ipPrefix, w+1))
				defer m.close()
				for {
					i := next.Add(1) - 1
					if i >= int64(n) {
						return
					}
					t0 := time.Now()
					r, err := m.send(msgs[i%int64(len(msgs))])
					lat[w] = append(lat[w], time.Since(t0))
					if err != nil || r.act == nil {
						b.Errorf("send: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		var all []time.Duration
		for _, l := range lat {
			all = append(all, l...)
		}
		return el, all
	}
	p99 := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[min(len(d)-1, len(d)*99/100)]
	}
	// Alternate the two milters in rounds, so that load from elsewhere on
	// the machine falls on both alike.
	const rounds = 4
	var noopTime, ndrTime time.Duration
	var noopLat, ndrLat []time.Duration
	b.ResetTimer()
	for r := range rounds {
		n := b.N / rounds
		if r == rounds-1 {
			n = b.N - n*(rounds-1)
		}
		el, lat := run(ln.Addr().String(), n)
		noopTime += el
		noopLat = append(noopLat, lat...)
		el, lat = run(ndrAddr, n)
		ndrTime += el
		ndrLat = append(ndrLat, lat...)
	}
	b.StopTimer()
	noopRate := float64(b.N) / noopTime.Seconds()
	ndrRate := float64(b.N) / ndrTime.Seconds()
	noopP99, ndrP99 := p99(noopLat), p99(ndrLat)
	inMu.Lock()
	milterP99 := p99(inMilter)
	inMu.Unlock()
	b.ReportMetric(noopRate, "noop_msgs/s")
	b.ReportMetric(ndrRate, "ndr_msgs/s")
	b.ReportMetric(ndrRate/noopRate, "ratio")
	b.ReportMetric(float64(noopP99.Microseconds())/1000, "noop_p99_ms")
	b.ReportMetric(float64(ndrP99.Microseconds())/1000, "ndr_p99_ms")
	b.ReportMetric(float64((ndrP99-noopP99).Microseconds())/1000, "added_p99_ms")
	b.ReportMetric(float64(milterP99.Microseconds())/1000, "in_milter_p99_ms")
}
