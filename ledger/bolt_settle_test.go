package ledger

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestBoltLookupsWaitOnlyForTheRecordsTheyConcern: while journalled records
// are not in bbolt yet (the applier held back), a lookup that no pending
// record concerns answers from bbolt at once, SentTo answers from a pending
// pair, and a lookup that a pending record concerns waits until it is in
// bbolt and then sees it. A bounce's lookup so does not pay for a bbolt
// commit of other messages' records.
func TestBoltLookupsWaitOnlyForTheRecordsTheyConcern(t *testing.T) {
	l := openTestBolt(t, filepath.Join(t.TempDir(), "ledger.db"), Options{})
	defer l.Close()
	ctx := context.Background()
	old := Record{MessageID: "old@example.org", QueueID: "OLDQ", Sender: "carol@example.org", Recipients: []string{"dan@example.net"}}
	if err := l.Put(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := l.settle(); err != nil {
		t.Fatal(err)
	}

	l.applyMu.Lock() // bbolt takes nothing; a read that settles waits
	held := true
	defer func() {
		if held {
			l.applyMu.Unlock()
		}
	}()
	fresh := Record{MessageID: "fresh@example.org", QueueID: "FRESHQ", Sender: "alice@example.org", Recipients: []string{"bob@example.net"}}
	if err := l.Put(ctx, fresh); err != nil {
		t.Fatal(err)
	}

	// Lookups no pending record concerns: answered now.
	quick := map[string]func() error{
		"ByMessageID of another message": func() error {
			r, err := l.ByMessageID(ctx, "old@example.org")
			if err != nil || r.QueueID != "OLDQ" {
				return errors.New("did not find the record in bbolt")
			}
			return nil
		},
		"ByMessageID of an unknown message": func() error {
			if _, err := l.ByMessageID(ctx, "none@example.org"); !errors.Is(err, ErrNotFound) {
				return errors.New("found a record that was never sent")
			}
			return nil
		},
		"ByQueueID of another message": func() error {
			if r, err := l.ByQueueID(ctx, "OLDQ"); err != nil || r.MessageID != "old@example.org" {
				return errors.New("did not find the record in bbolt")
			}
			return nil
		},
		"SentTo of the pending pair": func() error {
			if ok, err := l.SentTo(ctx, "Alice@example.org", "bob@example.net"); err != nil || !ok {
				return errors.New("did not see the pending pair")
			}
			return nil
		},
		"SentTo of a pair never sent": func() error {
			if ok, err := l.SentTo(ctx, "alice@example.org", "eve@example.net"); err != nil || ok {
				return errors.New("saw a pair never sent")
			}
			return nil
		},
		"LastSent of another sender": func() error {
			if _, err := l.LastSent(ctx, "carol@example.org"); err != nil {
				return err
			}
			return nil
		},
	}
	for name, lookup := range quick {
		done := make(chan error, 1)
		go func() { done <- lookup() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s waited for bbolt, though no pending record concerns it", name)
		}
	}

	// Lookups the pending record concerns: they wait, then see it.
	type answer struct {
		byID, byQueue Record
		last          time.Time
		err           error
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		var err1, err2, err3 error
		a.byID, err1 = l.ByMessageID(ctx, "fresh@example.org")
		a.byQueue, err2 = l.ByQueueID(ctx, "FRESHQ")
		a.last, err3 = l.LastSent(ctx, "alice@example.org")
		a.err = errors.Join(err1, err2, err3)
		done <- a
	}()
	select {
	case a := <-done:
		t.Fatalf("a lookup of the pending record answered before it was in bbolt: %+v", a)
	case <-time.After(200 * time.Millisecond):
	}
	l.applyMu.Unlock()
	held = false
	a := <-done
	if a.err != nil || a.byID.QueueID != "FRESHQ" || a.byQueue.MessageID != "fresh@example.org" || a.last.IsZero() {
		t.Errorf("lookups of the pending record: %+v, want it found by Message-ID, queue id and sender", a)
	}
}
