package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// BenchmarkLedger measures the record (Put) and lookup (ByMessageID) rates of
// the bbolt and Redis ledgers in one run, each alone (one caller, the
// latency one milter session sees) and with 16 concurrent callers (a busy
// milter), and reports ops/s and the 99th percentile latency per call:
//
//	go test -run '^$' -bench BenchmarkLedger -benchtime 2s ./ledger
//
// Redis is a private redis-server on loopback (no persistence); bbolt is a
// file in a temporary directory (fsync on every group commit).
func BenchmarkLedger(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) Ledger
	}{
		{"bolt", func(b *testing.B) Ledger {
			l, err := OpenBolt(filepath.Join(b.TempDir(), "ledger.db"), Options{}.withDefaults())
			if err != nil {
				b.Fatalf("OpenBolt: %v", err)
			}
			return l
		}},
		{"redis", func(b *testing.B) Ledger {
			srv := redistest.Start(b)
			l, err := OpenRedis(srv.URL(), Options{})
			if err != nil {
				b.Fatalf("OpenRedis: %v", err)
			}
			return l
		}},
	}
	for _, be := range backends {
		for _, par := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/Put/callers=%d", be.name, par), func(b *testing.B) {
				l := be.open(b)
				defer l.Close()
				var seq atomic.Int64
				runMeasured(b, par, func(ctx context.Context) error {
					i := seq.Add(1)
					return l.Put(ctx, benchRecord(i))
				})
			})
			b.Run(fmt.Sprintf("%s/ByMessageID/callers=%d", be.name, par), func(b *testing.B) {
				l := be.open(b)
				defer l.Close()
				const stored = 10000
				fill(b, l, stored)
				var seq atomic.Int64
				runMeasured(b, par, func(ctx context.Context) error {
					i := seq.Add(1)%stored + 1
					_, err := l.ByMessageID(ctx, benchRecord(i).MessageID)
					return err
				})
			})
		}
	}
}

func benchRecord(i int64) Record {
	return Record{
		MessageID:  fmt.Sprintf("%d.bench@mx1.example.org", i),
		QueueID:    fmt.Sprintf("4B%08X", i),
		Sender:     fmt.Sprintf("user%d@example.org", i%500),
		Recipients: []string{fmt.Sprintf("rcpt%d@example.net", i%2000), "list@example.com"},
		Time:       time.Now(),
	}
}

// fill stores records 1..n with 16 concurrent writers.
func fill(b *testing.B, l Ledger, n int64) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1); i <= n; i = next.Add(1) {
				if err := l.Put(context.Background(), benchRecord(i)); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		b.Fatalf("filling the ledger: %v", err)
	}
}

// runMeasured runs op b.N times from callers goroutines and reports ops/s,
// the p99 latency of one call and the number of calls that missed their
// deadline (on a loaded machine a 50 ms lookup sometimes does: that is the
// "unknown" verdict the milter would give, so it is counted, not hidden).
// Any other error fails the benchmark.
func runMeasured(b *testing.B, callers int, op func(context.Context) error) {
	b.Helper()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var missed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range callers {
		wg.Go(func() {
			ctx := context.Background()
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				t0 := time.Now()
				err := op(ctx)
				lat[i] = time.Since(t0)
				if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
					missed.Add(1)
				} else if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if e := failed.Load(); e != nil {
		b.Fatalf("call failed: %v", *e)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(missed.Load()), "missed-deadline")
}
