package frontend

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// downLedger is a real bbolt ledger that fails every Put while down is set,
// as a shared ledger does while it is down.
type downLedger struct {
	ledger.Ledger
	down atomic.Bool
	puts atomic.Int32
}

func (d *downLedger) Put(ctx context.Context, r ledger.Record) error {
	d.puts.Add(1)
	if d.down.Load() {
		return errors.New("injected: ledger down")
	}
	return d.Ledger.Put(ctx, r)
}

func boltLedger(t *testing.T) ledger.Ledger {
	t.Helper()
	l, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func rec(i int) ledger.Record {
	return ledger.Record{MessageID: fmt.Sprintf("spooled.%d@example.org", i), QueueID: fmt.Sprintf("4Q%d", i),
		Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}, Time: time.Now()}
}

// waitFor polls cond for at most d.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// While the ledger is down, records go to the spool (more than the pending
// bound, none dropped), Record returning once each is on disk; a new
// Recorder on the same spool (a restart) writes them all once the ledger
// is back, and empties the spool.
func TestSpooledRecordsSurviveARestartAndAreWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	base := boltLedger(t)
	down := &downLedger{Ledger: base}
	down.down.Store(true)
	m := NewMetrics(nil)
	q := NewRecorder(down, m, nil, 8)
	if err := q.UseSpool(dir, 0); err != nil {
		t.Fatal(err)
	}
	const n = 300
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.Record(rec(i), "test", RecordPolicy{Wait: time.Second, WriteTimeout: time.Second})
		}()
	}
	wg.Wait()
	if got := counterOf(t, m.RecordsSpooled.WithLabelValues(spoolSpooled)); got != n {
		t.Fatalf("%v records spooled, want %d", got, n)
	}
	if got := counterOf(t, m.LedgerOps.WithLabelValues("put", "dropped")); got != 0 {
		t.Fatalf("%v records dropped with a spool", got)
	}
	q.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	// The restart, with the ledger back.
	down.down.Store(false)
	m2 := NewMetrics(nil)
	q2 := NewRecorder(down, m2, nil, 0)
	if err := q2.UseSpool(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer q2.Stop()
	if !waitFor(10*time.Second, func() bool { return counterOf(t, m2.RecordsSpooled.WithLabelValues(spoolReplayed)) >= n }) {
		t.Fatalf("%v records replayed, want %d", counterOf(t, m2.RecordsSpooled.WithLabelValues(spoolReplayed)), n)
	}
	for i := range n {
		if _, err := base.ByMessageID(context.Background(), rec(i).MessageID); err != nil {
			t.Fatalf("record %d not in the ledger after the replay: %v", i, err)
		}
	}
	if !waitFor(5*time.Second, func() bool { return q2.sp.size() == 0 }) {
		t.Fatalf("the spool holds %d bytes after the replay", q2.sp.size())
	}
}

// A line cut by a crash is skipped, the others are written; a spool that
// is full drops the record, counts and reports it.
func TestSpoolSkipsACutLineAndIsBounded(t *testing.T) {
	dir := t.TempDir()
	var lines []byte
	for i := range 3 {
		l, err := spoolLine(rec(i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			l = l[:len(l)/2] // cut by a kill
		}
		lines = append(lines, l...)
	}
	if err := os.WriteFile(filepath.Join(dir, spoolActive), lines, 0o640); err != nil {
		t.Fatal(err)
	}
	sp, err := openSpool(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	n, skipped, err := sp.replay(func(r ledger.Record) error { got = append(got, r.MessageID); return nil })
	if err != nil || n != 2 || skipped != 1 || len(got) != 2 || got[1] != rec(1).MessageID {
		t.Fatalf("replay: %d written %v, %d skipped, %v; want the 2 whole records and the cut one skipped", n, got, skipped, err)
	}
	sp.close()

	base := boltLedger(t)
	down := &downLedger{Ledger: base}
	down.down.Store(true)
	m := NewMetrics(nil)
	q := NewRecorder(down, m, nil, 0)
	if err := q.UseSpool(t.TempDir(), 300); err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	for i := range 3 {
		q.Record(rec(i), "test", RecordPolicy{Wait: time.Second})
	}
	if got := counterOf(t, m.RecordsSpooled.WithLabelValues(spoolFailed)); got < 1 {
		t.Fatalf("a spool of 300 bytes took 3 records: %v failed", got)
	}
	if q.Health() == nil {
		t.Fatal("a full spool is reported healthy")
	}
}

// A ledger slower than RecordPolicy.Wait: the record is spooled and Record
// returns; the write still lands, and the replay merges it.
func TestSlowLedgerRecordSpooledWithinTheWait(t *testing.T) {
	base := boltLedger(t)
	l := blockedLedger{Ledger: base, release: make(chan struct{})}
	m := NewMetrics(nil)
	q := NewRecorder(l, m, nil, 0)
	if err := q.UseSpool(t.TempDir(), 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	q.Record(rec(1), "test", RecordPolicy{Wait: 200 * time.Millisecond, WriteTimeout: 10 * time.Second})
	if d := time.Since(start); d > 2*time.Second || d < 200*time.Millisecond {
		t.Fatalf("Record returned after %v with a blocked ledger and a wait of 200 ms", d)
	}
	if got := counterOf(t, m.RecordsSpooled.WithLabelValues(spoolSpooled)); got != 1 {
		t.Fatalf("%v records spooled, want 1", got)
	}
	close(l.release)
	if !waitFor(10*time.Second, func() bool {
		_, err := base.ByMessageID(context.Background(), rec(1).MessageID)
		return err == nil && q.sp.size() == 0
	}) {
		t.Fatal("the record did not reach the ledger, or the spool did not empty")
	}
	q.Stop()
}

func TestPrivacyShowsAddressesAsConfigured(t *testing.T) {
	for _, tc := range []struct {
		p          Privacy
		addr, want string
	}{
		{PrivacyHash, "Hello@Example.org", "h:2cf24dba5fb0@Example.org"},
		{"", "hello@example.org", "h:2cf24dba5fb0@example.org"},
		{PrivacyDomain, "hello@example.org", "@example.org"},
		{PrivacyFull, "hello@example.org", "hello@example.org"},
		{PrivacyHash, "", ""},
		{PrivacyHash, "MAILER-DAEMON", "h:" + fmt.Sprintf("%x", sha256.Sum256([]byte("mailer-daemon")))[:12]},
	} {
		if got := tc.p.Address(tc.addr); got != tc.want {
			t.Errorf("%q.Address(%q) = %q, want %q", tc.p, tc.addr, got, tc.want)
		}
	}
	if _, err := ParsePrivacy("everything"); err == nil {
		t.Error("ParsePrivacy accepted everything")
	}
}
