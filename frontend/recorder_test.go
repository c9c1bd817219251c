package frontend

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// blockedLedger is a real bbolt ledger whose writes wait until released,
// as a slow shared ledger does.
type blockedLedger struct {
	ledger.Ledger
	release chan struct{}
}

func (b blockedLedger) Put(ctx context.Context, r ledger.Record) error {
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return b.Ledger.Put(ctx, r)
}

func counter(t *testing.T, m *Metrics, result string) float64 {
	t.Helper()
	var mv dto.Metric
	if err := m.LedgerOps.WithLabelValues("put", result).Write(&mv); err != nil {
		t.Fatal(err)
	}
	return mv.GetCounter().GetValue()
}

// Records beyond the pending bound are dropped and counted, never waited
// for; those in flight are written once the ledger answers, and Wait waits
// for them.
func TestRecorderBoundedAndWritten(t *testing.T) {
	base, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	l := blockedLedger{Ledger: base, release: make(chan struct{})}
	m := NewMetrics(nil)
	q := NewRecorder(l, m, nil, 2)
	p := RecordPolicy{WriteTimeout: 10 * time.Second}
	start := time.Now()
	for _, id := range []string{"a.1@example.org", "a.2@example.org", "a.3@example.org"} {
		q.Record(ledger.Record{MessageID: id, Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}}, "test", p)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Record held the caller %v with a blocked ledger", d)
	}
	if got := counter(t, m, "dropped"); got != 1 {
		t.Fatalf("%v records dropped with 3 sent and 2 pending allowed, want 1", got)
	}
	close(l.release)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	for _, id := range []string{"a.1@example.org", "a.2@example.org"} {
		if _, err := base.ByMessageID(context.Background(), id); err != nil {
			t.Fatalf("%s not written: %v", id, err)
		}
	}
	if got := counter(t, m, "ok"); got != 2 {
		t.Fatalf("%v records written, want 2", got)
	}
	// No ledger: Record does nothing.
	NewRecorder(nil, m, nil, 0).Record(ledger.Record{MessageID: "x@example.org"}, "test", p)
}

func counterOf(t *testing.T, c interface{ Write(*dto.Metric) error }) float64 {
	t.Helper()
	var mv dto.Metric
	if err := c.Write(&mv); err != nil {
		t.Fatal(err)
	}
	return mv.GetCounter().GetValue()
}
