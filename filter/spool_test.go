package filter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// switchLedger is a real bbolt ledger whose Puts fail while down is set.
type switchLedger struct {
	ledger.Ledger
	down atomic.Bool
}

func (s *switchLedger) Put(ctx context.Context, r ledger.Record) error {
	if s.down.Load() {
		return errors.New("injected: ledger down")
	}
	return s.Ledger.Put(ctx, r)
}

// Outbound mail through the filter while the ledger is down is relayed,
// its records spooled; once the ledger is back they are all in it.
func TestOutboundRecordsSpooledWhileTheLedgerIsDown(t *testing.T) {
	k := startSink(t, nil)
	l := &switchLedger{Ledger: openLedger(t)}
	l.down.Store(true)
	_, addr := startFilter(t, Config{Next: k.addr, SpoolDir: filepath.Join(t.TempDir(), "spool")}, l)
	c := client(t, addr) // 127.0.0.1: trusted, outbound
	const n = 20
	for i := range n {
		id := fmt.Sprintf("down.%d@example.org", i)
		must(t, sendMail(c, "alice@example.org", []string{"bob@remote.example"}, bytes.NewReader(plain("alice@example.org", "bob@remote.example", id))))
	}
	if got := len(k.messages()); got != n {
		t.Fatalf("%d messages relayed with the ledger down, want %d", got, n)
	}
	l.down.Store(false)
	deadline := time.Now().Add(15 * time.Second)
	for i := range n {
		for {
			if _, err := l.ByMessageID(context.Background(), fmt.Sprintf("down.%d@example.org", i)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("record %d not in the ledger 15 s after it came back", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
