package frontend

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// gaugeValues scrapes reg and returns the value of each gauge by name.
func gaugeValues(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetType() == dto.MetricType_GAUGE && len(mf.Metric) == 1 {
			out[mf.GetName()] = mf.Metric[0].GetGauge().GetValue()
		}
	}
	return out
}

// The first scrape reads the ledger's size; later scrapes refresh it in the
// background once the interval has passed, and show the last read.
func TestLedgerSizeIsReadAtTheFirstScrapeThenRefreshed(t *testing.T) {
	l, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := NewLedgerSize(l)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	before := time.Now()
	g := gaugeValues(t, reg)
	if g["ndrmilter_ledger_records"] != 0 || g["ndrmilter_ledger_size_bytes"] <= 0 {
		t.Fatalf("first scrape of an empty bbolt ledger: %v, want 0 records and its size in bytes", g)
	}
	if ts := g["ndrmilter_ledger_stats_last_success_timestamp_seconds"]; ts < float64(before.Unix())-1 {
		t.Errorf("stats timestamp %v, want about %d", ts, before.Unix())
	}

	if err := l.Put(context.Background(), ledger.Record{MessageID: "one@example.org", Sender: "a@example.org",
		Recipients: []string{"b@example.net"}, Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if g := gaugeValues(t, reg); g["ndrmilter_ledger_records"] != 0 {
		t.Errorf("a scrape within the interval read the ledger again: %v records, want the cached 0", g["ndrmilter_ledger_records"])
	}
	c.mu.Lock()
	c.every = 0 // the interval has passed
	c.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for gaugeValues(t, reg)["ndrmilter_ledger_records"] != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the records gauge never showed the new record")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A ledger whose size cannot be read exports no size at all: unknown is
// absent, not 0.
func TestLedgerSizeOfAnUnreadableLedgerIsAbsent(t *testing.T) {
	l, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewLedgerSize(l))
	if g := gaugeValues(t, reg); len(g) != 0 {
		t.Errorf("a closed ledger exports %v, want nothing", g)
	}
}
