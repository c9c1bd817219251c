package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// testLedger is the behaviour every Ledger implementation must show. l must
// be empty and opened with the default retention (30 days). The bbolt and
// Redis tests both call it.
func testLedger(t *testing.T, l Ledger) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()

	// Lookups on an empty ledger find nothing, without error.
	if _, err := l.ByMessageID(ctx, "nothing@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ByMessageID on empty ledger: got %v, want ErrNotFound", err)
	}
	if _, err := l.ByQueueID(ctx, "4XYZ"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ByQueueID on empty ledger: got %v, want ErrNotFound", err)
	}
	if ok, err := l.SentTo(ctx, "a@example.org", "b@example.net"); err != nil || ok {
		t.Fatalf("SentTo on empty ledger: got %v, %v; want false, nil", ok, err)
	}

	// A record is found by Message-ID (brackets and case do not matter), by
	// queue id and by each (sender, recipient) pair; addresses are stored in
	// lower case.
	r := Record{
		MessageID:  "<Abc.123@Mail.Example.org>",
		QueueID:    "4dLm2x0Q1Rz9",
		Sender:     "Alice@Example.org",
		Recipients: []string{"bob@example.net", "<Carol@Example.COM>"},
		Time:       now.Add(-time.Hour).Truncate(time.Second),
	}
	if err := l.Put(ctx, r); err != nil {
		t.Fatalf("Put: %v", err)
	}
	for _, id := range []string{"abc.123@mail.example.org", "<ABC.123@MAIL.EXAMPLE.ORG>", " <abc.123@mail.example.org> "} {
		got, err := l.ByMessageID(ctx, id)
		if err != nil {
			t.Fatalf("ByMessageID(%q): %v", id, err)
		}
		if got.QueueID != r.QueueID || got.Sender != "alice@example.org" || !got.Time.Equal(r.Time) {
			t.Fatalf("ByMessageID(%q) = %+v, want queue id %s, sender alice@example.org, time %v", id, got, r.QueueID, r.Time)
		}
		if len(got.Recipients) != 2 || got.Recipients[0] != "bob@example.net" || got.Recipients[1] != "carol@example.com" {
			t.Fatalf("recipients = %q, want [bob@example.net carol@example.com]", got.Recipients)
		}
	}
	if got, err := l.ByQueueID(ctx, "4dLm2x0Q1Rz9"); err != nil || got.MessageID != "abc.123@mail.example.org" {
		t.Fatalf("ByQueueID = %+v, %v; want the record with Message-ID abc.123@mail.example.org", got, err)
	}
	for _, p := range [][2]string{{"alice@example.org", "bob@example.net"}, {"ALICE@example.org", "carol@example.com"}} {
		if ok, err := l.SentTo(ctx, p[0], p[1]); err != nil || !ok {
			t.Fatalf("SentTo(%s, %s) = %v, %v; want true", p[0], p[1], ok, err)
		}
	}
	if ok, err := l.SentTo(ctx, "bob@example.net", "alice@example.org"); err != nil || ok {
		t.Fatalf("SentTo reversed pair = %v, %v; want false", ok, err)
	}
	if ok, err := l.SentTo(ctx, "alice@example.org", "dave@example.net"); err != nil || ok {
		t.Fatalf("SentTo unknown recipient = %v, %v; want false", ok, err)
	}

	// A record without queue id or Message-ID is still found by its pairs.
	if err := l.Put(ctx, Record{Sender: "x@example.org", Recipients: []string{"y@example.net"}}); err != nil {
		t.Fatalf("Put without ids: %v", err)
	}
	if ok, err := l.SentTo(ctx, "x@example.org", "y@example.net"); err != nil || !ok {
		t.Fatalf("SentTo for record without ids = %v, %v; want true", ok, err)
	}

	// Records outside the retention window are not found; inside they are.
	old := Record{MessageID: "old@example.org", QueueID: "OLD1", Sender: "old@example.org",
		Recipients: []string{"gone@example.net"}, Time: now.Add(-31 * 24 * time.Hour)}
	if err := l.Put(ctx, old); err != nil {
		t.Fatalf("Put old: %v", err)
	}
	if _, err := l.ByMessageID(ctx, "old@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("record older than retention: ByMessageID err = %v, want ErrNotFound", err)
	}
	if ok, _ := l.SentTo(ctx, "old@example.org", "gone@example.net"); ok {
		t.Fatal("record older than retention: SentTo = true, want false")
	}
	recent := Record{MessageID: "recent@example.org", Sender: "r@example.org",
		Recipients: []string{"s@example.net"}, Time: now.Add(-29 * 24 * time.Hour)}
	if err := l.Put(ctx, recent); err != nil {
		t.Fatalf("Put recent: %v", err)
	}
	if _, err := l.ByMessageID(ctx, "recent@example.org"); err != nil {
		t.Fatalf("record within retention: ByMessageID: %v", err)
	}

	// Concurrent writers: every acknowledged record is found.
	const writers, each = 16, 25
	var wg sync.WaitGroup
	errc := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("c%d.%d@example.org", w, i)
				if err := l.Put(ctx, Record{MessageID: id, QueueID: fmt.Sprintf("Q%dX%d", w, i),
					Sender: "c@example.org", Recipients: []string{fmt.Sprintf("r%d@example.net", i)}}); err != nil {
					errc <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatalf("concurrent Put: %v", err)
	}
	for w := range writers {
		for i := range each {
			if _, err := l.ByMessageID(ctx, fmt.Sprintf("c%d.%d@example.org", w, i)); err != nil {
				t.Fatalf("concurrent record c%d.%d: %v", w, i, err)
			}
			if _, err := l.ByQueueID(ctx, fmt.Sprintf("Q%dX%d", w, i)); err != nil {
				t.Fatalf("concurrent record queue id Q%dX%d: %v", w, i, err)
			}
		}
	}

	st, err := l.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if want := int64(3 + writers*each); st.Records != want {
		t.Fatalf("Stats.Records = %d, want %d", st.Records, want)
	}
	if st.Backend == "" || st.Oldest.IsZero() || st.Newest.Before(st.Oldest) {
		t.Fatalf("Stats = %+v: want a backend name and Oldest <= Newest", st)
	}

	// A cancelled context gives an error, never a silent "not found".
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.ByMessageID(cctx, "abc.123@mail.example.org"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("ByMessageID with cancelled context: err = %v, want a context error", err)
	}
}
