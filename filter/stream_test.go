package filter

import (
	"bytes"
	"crypto/sha256"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newBigBody streams a message: head, then n bytes of text lines (some
// starting with a dot, which SMTP stuffs), then tail.
func newBigBody(head []byte, n int, tail []byte) io.Reader {
	line := []byte("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\r\n.dot\r\n")
	return io.MultiReader(bytes.NewReader(head), io.LimitReader(&repeat{line: line}, int64(n)), bytes.NewReader(tail))
}

type repeat struct {
	line []byte
	off  int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		r.off = (r.off + c) % len(r.line)
		n += c
	}
	return n, nil
}

func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// peakHeap samples the heap while f runs and returns the highest HeapAlloc.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-sampled
	return peak.Load()
}

// A 30 MB message streams through: the next hop gets it whole (same size
// and hash, forged X-NDR field removed), and the heap of the process
// (client, filter and sink together) grows by far less than the message.
// Likewise a 30 MB bounce, of which only the parse cap is held: it is still
// read and annotated.
func TestHugeMessageStreams(t *testing.T) {
	const size = 30 << 20
	const heapCap = 8 << 20 // asserted bound on heap growth while one message passes
	k := startSink(t, func(k *sink) { k.countOnly = true })
	l := openLedger(t)
	_, addr := startFilter(t, Config{Next: k.addr, Direction: DirectionInbound}, l)
	c := client(t, addr)

	for _, tc := range []struct {
		name   string
		from   string
		head   []byte
		drop   string
		tail   string
		bounce bool
	}{
		{name: "ordinary", from: "bob@remote.example",
			head: plain("bob@remote.example", "alice@example.org", "huge.1@remote.example", "X-NDR-Owner: forged")},
		{name: "bounce", from: "", bounce: true,
			head: bytes.TrimSuffix(report("huge.2@example.org", "alice@example.org", "bob@remote.example", "5.3.4", "552 5.3.4 message too big"),
				[]byte("--BOUNDARY.1--\r\n")),
			tail: "\r\n--BOUNDARY.1--\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := tc.head
			if tc.bounce {
				head = append(append([]byte(nil), head...), "--BOUNDARY.1\r\nContent-Type: message/rfc822\r\n\r\nSubject: big\r\n\r\n"...)
			}
			// What the next hop must get: the same stream, without the forged field.
			want := sha256.New()
			io.Copy(want, newBigBody(bytes.Replace(head, []byte("X-NDR-Owner: forged\r\n"), nil, 1), size, []byte(tc.tail)))

			base := heapAfterGC()
			var err error
			start := time.Now()
			peak := peakHeap(func() {
				err = sendMail(c, tc.from, []string{"alice@example.org"}, newBigBody(head, size, []byte(tc.tail)))
			})
			must(t, err)
			msgs := k.messages()
			got := msgs[len(msgs)-1]
			growth := int64(peak) - int64(base)
			t.Logf("%d MiB %s message in %v; heap %d KiB before, peak %d KiB (growth %d KiB, cap %d KiB)",
				size>>20, tc.name, time.Since(start).Round(time.Millisecond), base>>10, peak>>10, growth>>10, heapCap>>10)
			if growth > heapCap {
				t.Fatalf("heap grew by %d KiB while a %d MiB message passed; cap %d KiB", growth>>10, size>>20, heapCap>>10)
			}
			if !tc.bounce {
				if got.size < size || [32]byte(want.Sum(nil)) != got.sum {
					t.Fatalf("next hop got %d bytes with another hash; want the message unchanged but for the forged field", got.size)
				}
				return
			}
			if got.size < size {
				t.Fatalf("next hop got %d bytes, want the whole %d MiB bounce", got.size, size>>20)
			}
		})
	}
	// The annotated bounce: check its header with a sink that keeps data,
	// on a small copy (the same code path: parse cap held, rest streamed).
	k2 := startSink(t, nil)
	_, addr2 := startFilter(t, Config{Next: k2.addr, Direction: DirectionInbound, ParseCap: 4096}, l)
	c2 := client(t, addr2)
	head := append(bytes.TrimSuffix(report("huge.3@example.org", "alice@example.org", "bob@remote.example", "5.3.4", "552 5.3.4 message too big"),
		[]byte("--BOUNDARY.1--\r\n")), "--BOUNDARY.1\r\nContent-Type: message/rfc822\r\n\r\nSubject: big\r\n\r\n"...)
	must(t, sendMail(c2, "", []string{"alice@example.org"}, newBigBody(head, 1<<20, []byte("\r\n--BOUNDARY.1--\r\n"))))
	m := k2.messages()[0]
	if got := headerLines(m.data, "X-NDR-Status"); len(got) != 1 || !strings.Contains(got[0], "status=5.3.4") {
		t.Fatalf("bounce larger than the parse cap: X-NDR-Status %q, want status=5.3.4", got)
	}
	if !bytes.HasSuffix(m.data, []byte("\r\n--BOUNDARY.1--\r\n")) || len(m.data) < 1<<20 {
		t.Fatalf("bounce larger than the parse cap: %d bytes delivered, want all of it", len(m.data))
	}
}
