package ledger

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// batchSequence returns records whose merges, in order, show every rule of
// "one record per message" (see Ledger), their Message-IDs and queue ids
// marked with tag, and the Change each merge must report.
func batchSequence(tag string, base time.Time) ([]Record, []Change) {
	id := func(s string) string { return tag + "." + s + "@example.org" }
	q := func(s string) string { return "4" + tag + s }
	list := Record{MessageID: id("list"), QueueID: q("LIST"), Sender: "list@example.org", Time: base}
	for i := range MaxRecipients + 2500 {
		list.Recipients = append(list.Recipients, fmt.Sprintf("m%d.%s@example.net", i, tag))
		if i%100 == 0 { // duplicates, before and past the cap
			list.Recipients = append(list.Recipients, fmt.Sprintf("m%d.%s@example.net", i/2, tag))
		}
	}
	recs := []Record{
		{MessageID: id("resent"), QueueID: q("RS1"), Sender: "a@example.org", Recipients: []string{"b@example.net"}, Time: base},
		{MessageID: "<" + id("RESENT") + ">", QueueID: q("RS2"), Sender: "a@example.org", Recipients: []string{"c@example.net", "B@example.net"}, Time: base.Add(time.Hour)},
		{MessageID: id("resent"), QueueID: q("RS1"), Sender: "a@example.org", Recipients: []string{"b@example.net"}, Time: base},
		{QueueID: q("NOMID"), Sender: "a@example.org", Recipients: []string{"d@example.net"}, Time: base},
		{MessageID: id("cleanup"), QueueID: q("NOMID"), Sender: "a@example.org", Recipients: []string{"f@example.net"}, Time: base},
		{MessageID: id("old-user"), QueueID: q("REUSE"), Sender: "a@example.org", Recipients: []string{"h@example.net"}, Time: base},
		{MessageID: id("new-user"), QueueID: q("REUSE"), Sender: "a@example.org", Recipients: []string{"i@example.net"}, Time: base.Add(time.Minute)},
		{MessageID: id("resent"), Sender: "a@example.org", Recipients: []string{"z@example.net"}, Time: time.Now().Add(-40 * 24 * time.Hour)},
		list,
		{MessageID: id("list"), Sender: "list@example.org", Recipients: []string{"late." + tag + "@example.net"}, Time: base},
		{Sender: "pairs." + tag + "@example.org", Recipients: []string{"only@example.net"}, Time: base},
	}
	want := []Change{ChangeAdded, ChangeMerged, ChangeNone, ChangeAdded, ChangeMerged, ChangeAdded, ChangeAdded, ChangeTooOld, ChangeAdded, ChangeNone, ChangeAdded}
	return recs, want
}

// checkBatchSequence checks what the ledger finds after batchSequence's
// records were merged.
func checkBatchSequence(t *testing.T, l Ledger, tag string, base time.Time) {
	t.Helper()
	ctx := context.Background()
	id := func(s string) string { return NormalizeMessageID(tag + "." + s + "@example.org") }
	q := func(s string) string { return "4" + tag + s }
	find := func(key string, byQueueID bool) Record {
		t.Helper()
		var r Record
		var err error
		if byQueueID {
			r, err = l.ByQueueID(ctx, key)
		} else {
			r, err = l.ByMessageID(ctx, key)
		}
		if err != nil {
			t.Fatalf("%s: lookup %s: %v", tag, key, err)
		}
		return r
	}
	for _, r := range []Record{find(id("resent"), false), find(q("RS1"), true), find(q("RS2"), true)} {
		if r.QueueID != q("RS1") || !slices.Equal(r.Recipients, []string{"b@example.net", "c@example.net"}) || !r.Time.Equal(base.Add(time.Hour)) {
			t.Errorf("%s: re-sent message: %+v, want queue id %s, recipients b, c, the later time", tag, r, q("RS1"))
		}
	}
	for _, r := range []Record{find(id("cleanup"), false), find(q("NOMID"), true)} {
		if r.MessageID != id("cleanup") || !slices.Equal(r.Recipients, []string{"d@example.net", "f@example.net"}) {
			t.Errorf("%s: record first kept under its queue id: %+v, want %s with d, f", tag, r, id("cleanup"))
		}
	}
	if r := find(q("REUSE"), true); r.MessageID != id("new-user") {
		t.Errorf("%s: reused queue id finds %+v, want %s", tag, r, id("new-user"))
	}
	if r := find(id("old-user"), false); !slices.Equal(r.Recipients, []string{"h@example.net"}) {
		t.Errorf("%s: message whose queue id was reused: %+v", tag, r)
	}
	list := find(id("list"), false)
	if len(list.Recipients) != MaxRecipients || list.Recipients[0] != NormalizeAddress("m0."+tag+"@example.net") ||
		list.Recipients[MaxRecipients-1] != NormalizeAddress(fmt.Sprintf("m%d.%s@example.net", MaxRecipients-1, tag)) {
		t.Errorf("%s: list of %d recipients keeps %d (first %q, last %q), want its first %d distinct ones",
			tag, MaxRecipients+2500, len(list.Recipients), list.Recipients[:1], list.Recipients[len(list.Recipients)-1:], MaxRecipients)
	}
	for _, p := range [][2]string{
		{"list@example.org", "m0." + tag + "@example.net"},
		{"list@example.org", fmt.Sprintf("m%d.%s@example.net", MaxRecipients+2499, tag)},
		{"list@example.org", "late." + tag + "@example.net"},
		{"pairs." + tag + "@example.org", "only@example.net"},
		{"a@example.org", "i@example.net"},
	} {
		if ok, err := l.SentTo(ctx, p[0], p[1]); err != nil || !ok {
			t.Errorf("%s: SentTo(%s, %s) = %v, %v; want true", tag, p[0], p[1], ok, err)
		}
	}
	if r := find(id("resent"), false); slices.Contains(r.Recipients, "z@example.net") {
		t.Errorf("%s: a record past retention changed the record: %+v", tag, r)
	}
}

// testMergeBatch checks that MergeBatch gives what a Merge of each record in
// turn gives, in one batch and in batches of one, and that it rejects a
// batch holding a record it cannot look up.
func testMergeBatch(t *testing.T, l Ledger) {
	t.Helper()
	ctx := context.Background()
	base := time.Now().Add(-3 * time.Hour).Truncate(time.Millisecond)
	before, err := l.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}

	// The reference: Merge, one record after the other.
	recs, want := batchSequence("M", base)
	for i, r := range recs {
		if c, err := l.Merge(ctx, r); err != nil || c != want[i] {
			t.Fatalf("Merge of record %d: %v, %v; want %v", i, c, err, want[i])
		}
	}
	checkBatchSequence(t, l, "M", base)

	// The same in one batch.
	recs, want = batchSequence("B", base)
	changes, err := MergeBatch(ctx, l, recs)
	if err != nil || !slices.Equal(changes, want) {
		t.Fatalf("MergeBatch: %v, %v; want %v", changes, err, want)
	}
	checkBatchSequence(t, l, "B", base)

	// Again, in batches of two: nothing changes but the reused queue id,
	// which moves to each message in turn.
	recs, _ = batchSequence("B", base)
	want = []Change{ChangeNone, ChangeNone, ChangeNone, ChangeNone, ChangeNone, ChangeMerged, ChangeMerged, ChangeTooOld, ChangeNone, ChangeNone, ChangeAdded}
	for i := 0; i < len(recs); i += 2 {
		changes, err := MergeBatch(ctx, l, recs[i:min(i+2, len(recs))])
		if err != nil {
			t.Fatalf("MergeBatch again, from record %d: %v", i, err)
		}
		if w := want[i:min(i+2, len(recs))]; !slices.Equal(changes, w) {
			t.Errorf("MergeBatch again, records %d and on: %v, want %v", i, changes, w)
		}
	}
	checkBatchSequence(t, l, "B", base)

	after, err := l.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	// 6 messages added by each sequence, and the record of pairs alone
	// (new each time) once more.
	if got := after.Records - before.Records; got != 13 {
		t.Errorf("Stats.Records grew by %d, want 13", got)
	}

	// A record with nothing to find it by: the batch is refused whole.
	bad := []Record{{MessageID: "never-written.B@example.org", Sender: "a@example.org", Recipients: []string{"b@example.net"}}, {Time: base}}
	if changes, err := MergeBatch(ctx, l, bad); err == nil || len(changes) != 0 {
		t.Errorf("MergeBatch with an empty record: %v, %v; want an error and nothing written", changes, err)
	}
	if _, err := l.ByMessageID(ctx, "never-written.B@example.org"); err != ErrNotFound {
		t.Errorf("a refused batch wrote its first record: %v", err)
	}
	if changes, err := MergeBatch(ctx, l, nil); err != nil || len(changes) != 0 {
		t.Errorf("MergeBatch of nothing: %v, %v", changes, err)
	}
}

// testRecordPairs checks the pairs recorded without a record.
func testRecordPairs(t *testing.T, l Ledger) {
	t.Helper()
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	var rcpts []string
	for i := range 10000 {
		rcpts = append(rcpts, fmt.Sprintf("<R%d@Example.NET>", i))
	}
	if err := RecordPairs(ctx, l, "<Big@Example.org>", rcpts, base); err != nil {
		t.Fatalf("RecordPairs: %v", err)
	}
	for _, i := range []int{0, 4095, 4096, 9999} {
		if ok, err := l.SentTo(ctx, "big@example.org", fmt.Sprintf("r%d@example.net", i)); err != nil || !ok {
			t.Errorf("SentTo(big, r%d) after RecordPairs = %v, %v; want true", i, ok, err)
		}
	}
	if _, err := l.ByMessageID(ctx, "big@example.org"); err != ErrNotFound {
		t.Errorf("RecordPairs made a record: %v", err)
	}
	if err := RecordPairs(ctx, l, "", []string{"x@example.net"}, base); err != nil {
		t.Errorf("RecordPairs with the null sender: %v, want nothing done", err)
	}
	if err := RecordPairs(ctx, l, "old@example.org", []string{"x@example.net"}, time.Now().Add(-40*24*time.Hour)); err != nil {
		t.Errorf("RecordPairs past retention: %v", err)
	}
	if ok, _ := l.SentTo(ctx, "old@example.org", "x@example.net"); ok {
		t.Errorf("a pair past retention was recorded")
	}
}
