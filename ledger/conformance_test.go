package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

	testSameMessageFromConcurrentWriters(t, l)
	testOneRecordPerMessage(t, l)
	testMergeBatch(t, l)
	testRecordPairs(t, l)
	testSenderIndex(t, l)
}

// testSenderIndex checks LastSent and Since: the latest sending of each
// sender within the retention, from records and from RecordPairs, never
// moved back by an older recording; nothing for a sender that sent only
// before the retention; and a Since that is not in the future.
func testSenderIndex(t *testing.T, l Ledger) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	since, err := l.Since(ctx)
	if err != nil || since.IsZero() || since.After(time.Now()) {
		t.Fatalf("Since = %v, %v; want a time not after now", since, err)
	}
	if again, err := l.Since(ctx); err != nil || !again.Equal(since) {
		t.Fatalf("Since again = %v, %v; want %v: it does not move", again, err, since)
	}
	if _, err := l.LastSent(ctx, "never.sent@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LastSent of a sender with no mail: %v, want ErrNotFound", err)
	}
	t1 := now.Add(-2 * time.Hour)
	if err := l.Put(ctx, Record{MessageID: "sender-index.1@example.org", Sender: "Sender.Index@Example.org",
		Recipients: []string{"r1@example.net"}, Time: t1}); err != nil {
		t.Fatal(err)
	}
	if got, err := l.LastSent(ctx, "<sender.index@example.org>"); err != nil || !got.Equal(t1) {
		t.Fatalf("LastSent = %v, %v; want %v", got, err, t1)
	}
	// An older recording (a log imported late) does not move it back; a
	// later one moves it on, also through RecordPairs.
	if err := l.Put(ctx, Record{MessageID: "sender-index.0@example.org", Sender: "sender.index@example.org",
		Recipients: []string{"r0@example.net"}, Time: t1.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, err := l.LastSent(ctx, "sender.index@example.org"); err != nil || !got.Equal(t1) {
		t.Fatalf("LastSent after an older record = %v, %v; want %v", got, err, t1)
	}
	t2 := now.Add(-time.Hour)
	if err := RecordPairs(ctx, l, "sender.index@example.org", []string{"r2@example.net"}, t2); err != nil {
		t.Fatal(err)
	}
	if got, err := l.LastSent(ctx, "sender.index@example.org"); err != nil || !got.Equal(t2) {
		t.Fatalf("LastSent after RecordPairs = %v, %v; want %v", got, err, t2)
	}
	// MergeBatch indexes its senders too.
	if _, err := MergeBatch(ctx, l, []Record{{MessageID: "sender-index.b@example.org", Sender: "batch.sender@example.org",
		Recipients: []string{"r3@example.net"}, Time: t2}}); err != nil {
		t.Fatal(err)
	}
	if got, err := l.LastSent(ctx, "batch.sender@example.org"); err != nil || !got.Equal(t2) {
		t.Fatalf("LastSent after MergeBatch = %v, %v; want %v", got, err, t2)
	}
	// A sending before the retention period is not kept.
	if err := l.Put(ctx, Record{MessageID: "sender-index.old@example.org", Sender: "old.sender@example.org",
		Recipients: []string{"r4@example.net"}, Time: now.Add(-31 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.LastSent(ctx, "old.sender@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LastSent of a sender that sent before the retention: %v, want ErrNotFound", err)
	}
}

// testSameMessageFromConcurrentWriters puts, in each round, sameMessageWriters
// records of one message at once: one Message-ID, each writer with its own
// queue id, sender and recipients (Postfix splits a message into several
// queue files, a message is re-sent, the milter and the log importer record
// the same message). However the Puts interleave, the one record of the
// Message-ID holds every recipient, every queue id finds a record with its
// own recipients, and every (sender, recipient) pair is known.
func testSameMessageFromConcurrentWriters(t *testing.T, l Ledger) {
	t.Helper()
	const writers, rounds, rcptsEach = 8, 30, 3
	ctx := context.Background()
	before, err := l.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for round := range rounds {
		mid := fmt.Sprintf("shared.%d.%d@example.org", round, base.UnixNano())
		recs := make([]Record, writers)
		for w := range writers {
			recs[w] = Record{
				MessageID: mid,
				QueueID:   fmt.Sprintf("4S%dR%dW%d", base.Unix()%1000, round, w),
				Sender:    fmt.Sprintf("sender%d@example.org", w),
				Time:      base.Add(time.Duration(w) * time.Second),
			}
			for i := range rcptsEach {
				recs[w].Recipients = append(recs[w].Recipients, fmt.Sprintf("r%d.w%d.%d@example.net", i, w, round))
			}
		}
		start := make(chan struct{})
		type result struct {
			c   Change
			err error
		}
		results := make(chan result, writers)
		var wg sync.WaitGroup
		for _, r := range recs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				c, err := l.Merge(ctx, r)
				results <- result{c, err}
			}()
		}
		close(start)
		wg.Wait()
		close(results)
		changes := map[Change]int{}
		for res := range results {
			if res.err != nil {
				t.Fatalf("round %d: concurrent Merge of one Message-ID: %v", round, res.err)
			}
			changes[res.c]++
		}
		if changes[ChangeAdded] != 1 || changes[ChangeMerged] != writers-1 {
			t.Fatalf("round %d: changes %v, want 1 added and %d merged", round, changes, writers-1)
		}

		got, err := l.ByMessageID(ctx, mid)
		if err != nil {
			t.Fatalf("round %d: ByMessageID(%s): %v", round, mid, err)
		}
		var want []string
		for _, r := range recs {
			want = append(want, r.Recipients...)
		}
		if missing := without(want, got.Recipients); len(missing) > 0 || len(got.Recipients) != len(want) {
			t.Fatalf("round %d: ByMessageID(%s) has %d recipients, want the %d of all %d writers; missing %q",
				round, mid, len(got.Recipients), len(want), writers, missing)
		}
		for _, r := range recs {
			byQ, err := l.ByQueueID(ctx, r.QueueID)
			if err != nil {
				t.Fatalf("round %d: ByQueueID(%s): %v", round, r.QueueID, err)
			}
			if missing := without(r.Recipients, byQ.Recipients); byQ.MessageID != mid || len(missing) > 0 {
				t.Fatalf("round %d: ByQueueID(%s) = Message-ID %s, recipients %q; want %s with %q",
					round, r.QueueID, byQ.MessageID, byQ.Recipients, mid, r.Recipients)
			}
			for _, rc := range r.Recipients {
				if ok, err := l.SentTo(ctx, r.Sender, rc); err != nil || !ok {
					t.Fatalf("round %d: SentTo(%s, %s) = %v, %v; want true", round, r.Sender, rc, ok, err)
				}
			}
		}
		if want := recs[writers-1].Time; !got.Time.Equal(want) {
			t.Fatalf("round %d: record time %v, want the latest, %v", round, got.Time, want)
		}
	}
	after, err := l.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if after.Records-before.Records != rounds {
		t.Fatalf("Stats.Records grew by %d over %d rounds of one message each, want %d", after.Records-before.Records, rounds, rounds)
	}
}

// testOneRecordPerMessage checks, one Put at a time, how the records of one
// message merge (see Ledger).
func testOneRecordPerMessage(t *testing.T, l Ledger) {
	t.Helper()
	ctx := context.Background()
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Millisecond)
	merge := func(r Record, want Change) {
		t.Helper()
		if c, err := l.Merge(ctx, r); err != nil || c != want {
			t.Fatalf("Merge(%+v) = %v, %v; want %v", r, c, err, want)
		}
	}
	lookup := func(id string, byQueueID bool) Record {
		t.Helper()
		var r Record
		var err error
		if byQueueID {
			r, err = l.ByQueueID(ctx, id)
		} else {
			r, err = l.ByMessageID(ctx, id)
		}
		if err != nil {
			t.Fatalf("lookup %s: %v", id, err)
		}
		return r
	}

	// A message re-sent an hour later in a second queue file: one record,
	// with the first queue id, both recipients, the later time; both queue
	// ids find it. Recording either again changes nothing.
	first := Record{MessageID: "resent@example.org", QueueID: "4RS1", Sender: "a@example.org", Recipients: []string{"b@example.net"}, Time: base}
	second := Record{MessageID: "<Resent@Example.org>", QueueID: "4RS2", Sender: "a@example.org", Recipients: []string{"c@example.net", "B@example.net"}, Time: base.Add(time.Hour)}
	merge(first, ChangeAdded)
	merge(second, ChangeMerged)
	merge(first, ChangeNone)
	merge(second, ChangeNone)
	for _, r := range []Record{lookup("resent@example.org", false), lookup("4RS1", true), lookup("4RS2", true)} {
		if r.QueueID != "4RS1" || !slices.Equal(r.Recipients, []string{"b@example.net", "c@example.net"}) || !r.Time.Equal(second.Time) {
			t.Fatalf("re-sent message: %+v, want queue id 4RS1, recipients b, c, time %v", r, second.Time)
		}
	}

	// The milter saw no Message-ID header; Postfix added one, which the log
	// shows: the record under the queue id alone and the log's record are
	// one message, found by either key, with the recipients of both.
	merge(Record{QueueID: "4NOMID", Sender: "a@example.org", Recipients: []string{"d@example.net"}, Time: base}, ChangeAdded)
	merge(Record{QueueID: "4NOMID", Sender: "a@example.org", Recipients: []string{"e@example.net"}, Time: base}, ChangeMerged)
	merge(Record{MessageID: "added-by-cleanup@example.org", QueueID: "4NOMID", Sender: "a@example.org", Recipients: []string{"f@example.net"}, Time: base}, ChangeMerged)
	for _, r := range []Record{lookup("added-by-cleanup@example.org", false), lookup("4NOMID", true)} {
		if r.MessageID != "added-by-cleanup@example.org" || !slices.Equal(r.Recipients, []string{"d@example.net", "e@example.net", "f@example.net"}) {
			t.Fatalf("record first kept under its queue id: %+v, want Message-ID added-by-cleanup@example.org, recipients d, e, f", r)
		}
	}
	// A later record of the queue file without the Message-ID joins it.
	merge(Record{QueueID: "4NOMID", Sender: "a@example.org", Recipients: []string{"g@example.net"}, Time: base}, ChangeMerged)
	if r := lookup("added-by-cleanup@example.org", false); !slices.Contains(r.Recipients, "g@example.net") {
		t.Fatalf("record by queue id alone, after the Message-ID is known: %+v, want g among the recipients", r)
	}

	// Postfix reuses a queue id: it moves to the new message; the old one
	// is still found by its Message-ID and pairs.
	merge(Record{MessageID: "old-user@example.org", QueueID: "4REUSE", Sender: "a@example.org", Recipients: []string{"h@example.net"}, Time: base}, ChangeAdded)
	merge(Record{MessageID: "new-user@example.org", QueueID: "4REUSE", Sender: "a@example.org", Recipients: []string{"i@example.net"}, Time: base.Add(time.Minute)}, ChangeAdded)
	if r := lookup("4REUSE", true); r.MessageID != "new-user@example.org" {
		t.Fatalf("reused queue id finds %+v, want new-user@example.org", r)
	}
	if r := lookup("old-user@example.org", false); !slices.Equal(r.Recipients, []string{"h@example.net"}) {
		t.Fatalf("message whose queue id was reused: %+v, want recipient h", r)
	}

	// A record holds at most MaxRecipients; the others are still known by
	// their pairs, and none recorded is dropped.
	many := Record{MessageID: "list@example.org", Sender: "list@example.org", Time: base}
	for i := range MaxRecipients + 5 {
		many.Recipients = append(many.Recipients, fmt.Sprintf("m%d@example.net", i))
	}
	merge(many, ChangeAdded)
	merge(Record{MessageID: "list@example.org", Sender: "list@example.org", Recipients: []string{"late@example.net"}, Time: base}, ChangeNone)
	r := lookup("list@example.org", false)
	if len(r.Recipients) != MaxRecipients || r.Recipients[0] != "m0@example.net" || r.Recipients[MaxRecipients-1] != fmt.Sprintf("m%d@example.net", MaxRecipients-1) {
		t.Fatalf("record of %d recipients keeps %d (first %q), want the first %d", MaxRecipients+5, len(r.Recipients), r.Recipients[:1], MaxRecipients)
	}
	for _, rc := range []string{"m0@example.net", fmt.Sprintf("m%d@example.net", MaxRecipients+4), "late@example.net"} {
		if ok, err := l.SentTo(ctx, "list@example.org", rc); err != nil || !ok {
			t.Fatalf("SentTo(list, %s) = %v, %v; want true", rc, ok, err)
		}
	}

	// A record older than the retention period is not stored, and says so.
	merge(Record{MessageID: "resent@example.org", Sender: "a@example.org", Recipients: []string{"z@example.net"}, Time: time.Now().Add(-40 * 24 * time.Hour)}, ChangeTooOld)
	if r := lookup("resent@example.org", false); slices.Contains(r.Recipients, "z@example.net") || !r.Time.Equal(second.Time) {
		t.Fatalf("a record past retention changed the record: %+v", r)
	}
}

// without returns the members of want that are not in have.
func without(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}
