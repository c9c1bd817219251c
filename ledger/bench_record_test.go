package ledger

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkRecord measures what recording an outbound message costs the
// milter on the embedded ledger at its default durability (the record is
// on disk, fsynced, before Put returns and the message is acknowledged to
// Postfix), with callers concurrent Puts as the milter's sessions make
// them (issue 14; make bench-record):
//
//	go test -run '^$' -bench BenchmarkRecord -benchtime 2000x -count 3 ./ledger
//
// Two ways of writing the same records run in the same benchmark, in
// turns (A B A B ...), each into its own ledger of 5,000 records:
//
//   - one-tx: one bbolt transaction per record (db.Update: bbolt's two
//     fdatasyncs per record; concurrent callers wait for bbolt's lock):
//     the baseline;
//   - Put: the ledger's Put: one Put at a time appends every Put pending
//     to the journal in one synced write (group commit), each caller
//     waiting for its own; the applier writes them into bbolt
//     meanwhile, in batches (see bolt_journal.go). Its durability is the
//     journal's: the goal is a mean of at most 0.3 ms (issue 14).
//
// For each it reports the mean latency of one call (what the milter's
// ndrmilter_ledger_latency_seconds{op="put"} shows) and the cost per
// record (wall time over records: what the disk's time is shared into),
// and the ratios of Put to one-tx. flush-µs is one 4 KiB overwrite and
// fdatasync in the same directory, timed in the same run: no write that
// waits for the disk can return faster, so a call's latency stays above
// it, and only the cost per record falls with concurrency; it is timed
// after each turn of the two ways, and averaged. The figures
// are the disk's: a loaded machine or disk shows it. Each turn of Put ends
// once the applier has written its records into bbolt: that work is in
// Put's cost per record (and does not slow the next turn of one-tx), not
// in its calls' latency, which is what the milter waits for.
func BenchmarkRecord(b *testing.B) {
	for _, callers := range []int{1, 10} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			benchRecord3(b, callers)
		})
	}
}

// recordWay is one way of writing records, with what it measured.
type recordWay struct {
	name  string
	l     *boltLedger
	put   func(ctx context.Context, r Record) error
	lat   time.Duration // sum of the calls' latencies
	wall  time.Duration
	calls int
}

func benchRecord3(b *testing.B, callers int) {
	const prefill = 5000
	dir := b.TempDir()
	open := func(name string) *boltLedger {
		l, err := openBolt(filepath.Join(dir, name+".db"), Options{}.withDefaults(), time.Now)
		if err != nil {
			b.Fatal(err)
		}
		recs := make([]Record, prefill)
		for i := range recs {
			recs[i] = benchRecord(int64(-1 - i))
		}
		if _, err := MergeBatch(context.Background(), l, recs); err != nil {
			b.Fatal(err)
		}
		return l
	}
	oneTx := &recordWay{name: "one-tx", l: open("one-tx")}
	oneTx.put = func(ctx context.Context, r Record) error {
		r = r.Normalize(time.Now())
		cutoff := oneTx.l.cutoff()
		return oneTx.l.db.Update(func(tx *bolt.Tx) error {
			_, err := putTx(tx, r, cutoff)
			return err
		})
	}
	put := &recordWay{name: "Put", l: open("put")}
	put.put = put.l.Put
	ways := []*recordWay{oneTx, put}
	defer func() {
		for _, w := range ways {
			w.l.Close()
		}
	}()

	const turns = 4
	var seq atomic.Int64
	var flush time.Duration
	b.ResetTimer()
	for turn := range turns {
		n := b.N / turns
		if turn == turns-1 {
			n = b.N - (turns-1)*(b.N/turns)
		}
		for _, w := range ways {
			runRecords(b, w, callers, n, &seq)
		}
		// The floor is measured in every turn, beside the ways: the
		// disk of a shared machine is not as fast at the end of a run
		// as at its start.
		b.StopTimer()
		flush += flushTime(b, dir) / turns
		b.StartTimer()
	}
	b.StopTimer()

	us := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
	for _, w := range ways {
		b.ReportMetric(us(w.lat, w.calls), w.name+"-mean-µs")
		b.ReportMetric(us(w.wall, w.calls), w.name+"-cost-µs")
	}
	b.ReportMetric(us(put.lat, put.calls)/us(oneTx.lat, oneTx.calls), "Put/one-tx-mean")
	b.ReportMetric(us(put.wall, put.calls)/us(oneTx.wall, oneTx.calls), "Put/one-tx-cost")
	b.ReportMetric(float64(flush.Microseconds()), "flush-µs")
	// Put's mean over the floor: what is Put's own, on a disk whose speed
	// changes from run to run.
	b.ReportMetric(us(put.lat, put.calls)/float64(flush.Microseconds()), "Put-mean/flush")
	b.ReportMetric(0, "ns/op") // the op is two records, one per way: meaningless
}

// runRecords writes n records with w from callers goroutines, and adds
// their latencies and the wall time to w.
func runRecords(b *testing.B, w *recordWay, callers, n int, seq *atomic.Int64) {
	var next atomic.Int64
	var lat atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, callers)
	start := time.Now()
	for range callers {
		wg.Go(func() {
			ctx := context.Background()
			for next.Add(1) <= int64(n) {
				r := benchRecord(seq.Add(1))
				t0 := time.Now()
				err := w.put(ctx, r)
				lat.Add(int64(time.Since(t0)))
				if err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.l.settle(); err != nil {
		b.Fatalf("%s: writing the journal into bbolt: %v", w.name, err)
	}
	w.wall += time.Since(start)
	w.lat += time.Duration(lat.Load())
	w.calls += n
	close(errc)
	for err := range errc {
		b.Fatalf("%s: %v", w.name, err)
	}
}

// flushTime is the mean time of a 4 KiB overwrite and fdatasync of a file
// in dir: the disk's floor for a write that waits for it.
func flushTime(b *testing.B, dir string) time.Duration {
	f, err := os.Create(filepath.Join(dir, "flush"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	if _, err := f.Write(make([]byte, 64*4096)); err != nil || f.Sync() != nil {
		b.Fatalf("flush file: %v", err)
	}
	const n = 100
	start := time.Now()
	for i := range n {
		if _, err := f.WriteAt(page, int64(i%64)*4096); err != nil {
			b.Fatal(err)
		}
		if err := fdatasync(f); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / n
}
