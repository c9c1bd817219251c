package milter

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// flakyLedger is a real bbolt ledger whose first Puts fail, as a shared
// ledger does while it is down: fault injection for the retry path.
type flakyLedger struct {
	ledger.Ledger
	failures atomic.Int32 // Puts left to fail
	puts     atomic.Int32 // Puts attempted
}

var errLedgerDown = errors.New("injected: ledger down")

func (f *flakyLedger) Put(ctx context.Context, r ledger.Record) error {
	f.puts.Add(1)
	if f.failures.Add(-1) >= 0 {
		return errLedgerDown
	}
	return f.Ledger.Put(ctx, r)
}

// An outbound record that cannot be written while the ledger is down is
// written once it is back, and the bounce for that message is then not
// called backscatter.
func TestRecordRetriedAfterLedgerOutage(t *testing.T) {
	base := openLedger(t, t.TempDir())
	defer base.Close()
	fl := &flakyLedger{Ledger: base}
	fl.failures.Store(3)
	// Without a spool, a record the ledger does not take is retried in
	// memory; the message waits for it at most RecordWait.
	_, addr := startServer(t, Config{RecordWait: 300 * time.Millisecond}, fl)
	c := newClient(addr)

	sub := dial(t, c, "127.0.0.1")
	defer sub.close()
	start := time.Now()
	r, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"},
		raw: plain("alice@example.org", "bob@remote.example", "during-outage.1@example.org")})
	if err != nil || r.act.Code != gomilter.ActContinue || len(r.mods) != 0 {
		t.Fatalf("outbound during an outage: %+v %v; want accepted unchanged", r, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("outbound message held %v by a failing ledger; mail must not wait longer than record_wait", d)
	}
	waitRecorded(t, base, "during-outage.1@example.org")
	if n := fl.puts.Load(); n != 4 {
		t.Fatalf("%d Put attempts, want 4 (3 failures, then success)", n)
	}

	mx := dial(t, c, "203.0.113.25")
	defer mx.close()
	raw := report("during-outage.1@example.org", "alice@example.org", "bob@remote.example", "5.1.1", "550 5.1.1 user unknown")
	rb, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if got := apply(raw, rb.mods).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=message-id" {
		t.Fatalf("bounce for mail sent during the outage: X-NDR-Backscatter = %q, want no; evidence=message-id", got)
	}
}

// Retries give up after RecordRetry, and Shutdown does not wait for them.
func TestRecordRetryBounded(t *testing.T) {
	base := openLedger(t, t.TempDir())
	defer base.Close()
	fl := &flakyLedger{Ledger: base}
	fl.failures.Store(1 << 30)
	_, addr := startServer(t, Config{RecordRetry: 600 * time.Millisecond}, fl)
	sub := dial(t, newClient(addr), "127.0.0.1")
	if _, err := sub.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"},
		raw: plain("alice@example.org", "bob@remote.example", "never.1@example.org")}); err != nil {
		t.Fatal(err)
	}
	sub.close()
	deadline := time.Now().Add(5 * time.Second)
	for fl.puts.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Second) // past RecordRetry: no more attempts
	n := fl.puts.Load()
	time.Sleep(600 * time.Millisecond)
	if n < 2 || fl.puts.Load() != n || n > 4 {
		t.Fatalf("Put attempts: %d then %d; want 2-4 attempts within the 600 ms retry window, then none", n, fl.puts.Load())
	}

	// A record that keeps failing does not hold up Shutdown.
	fl2 := &flakyLedger{Ledger: base}
	fl2.failures.Store(1 << 30)
	srv2, addr2 := startServer(t, Config{RecordRetry: time.Hour}, fl2)
	sub2 := dial(t, newClient(addr2), "127.0.0.1")
	if _, err := sub2.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"},
		raw: plain("alice@example.org", "bob@remote.example", "never.2@example.org")}); err != nil {
		t.Fatal(err)
	}
	sub2.close()
	for fl2.puts.Load() < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t0 := time.Now()
	if err := srv2.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a record in retry: %v", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("Shutdown took %v with a record in retry; retries must stop at shutdown", d)
	}
}

// A bounce written inside (Postfix's own) for a message the ledger does not
// know is tagged, never rejected or discarded: refusing it inside Postfix
// would leave the original deferred and its sender never told.
func TestBounceFromInsideNeverRefused(t *testing.T) {
	for _, action := range []decide.Action{decide.ActionReject, decide.ActionDiscard} {
		l := openLedger(t, t.TempDir())
		_, addr := startServer(t, Config{BackscatterAction: action}, l)
		local := dial(t, newClient(addr), "127.0.0.1")
		raw := report("unrecorded.1@example.org", "alice@example.org", "ghost@example.org", "5.1.1", "550 5.1.1 unknown user: ghost")
		r, err := local.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
		if err != nil {
			t.Fatal(err)
		}
		if r.act.Code != gomilter.ActContinue {
			t.Fatalf("%s: Postfix's own bounce got action %c, want continue (accept, tagged)", action, r.act.Code)
		}
		if got := checkNDRHeaders(t, raw, r).get("X-NDR-Backscatter"); len(got) != 1 || !strings.HasPrefix(got[0], "yes;") {
			t.Fatalf("%s: X-NDR-Backscatter = %q, want yes (tagged)", action, got)
		}

		// The same bounce from outside is refused as configured.
		mx := dial(t, newClient(addr), "203.0.113.25")
		r, err = mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
		if err != nil {
			t.Fatal(err)
		}
		want := map[decide.Action]gomilter.ActionCode{decide.ActionReject: gomilter.ActReplyCode, decide.ActionDiscard: gomilter.ActDiscard}[action]
		if r.act.Code != want {
			t.Fatalf("%s: bounce from outside got action %c, want %c", action, r.act.Code, want)
		}
		local.close()
		mx.close()
		l.Close()
	}
}
