package ledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// journalRecord is a record of the journal tests.
func journalRecord(i int) Record {
	return Record{MessageID: fmt.Sprintf("j%d@example.org", i), QueueID: fmt.Sprintf("4J%04d", i), Sender: "j@example.org",
		Recipients: []string{fmt.Sprintf("r%d@example.net", i)}, Time: time.Now().Add(-time.Minute).Truncate(time.Second)}
}

// journalFrames returns the frames of recs, numbered from first.
func journalFrames(t *testing.T, first uint64, recs ...Record) []byte {
	t.Helper()
	var buf []byte
	for i, r := range recs {
		p, err := json.Marshal(r.Normalize(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		buf = appendFrame(buf, first+uint64(i), p)
	}
	return buf
}

// writeJournal leaves data at the start of the journal of the ledger at
// path, as a crash would, the rest of the file zeros.
func writeJournal(t *testing.T, path string, data []byte) {
	t.Helper()
	buf := make([]byte, journalSize)
	copy(buf, data)
	if err := os.WriteFile(path+"-journal", buf, 0o640); err != nil {
		t.Fatal(err)
	}
}

// newLedgerFile creates an empty ledger at path and closes it.
func newLedgerFile(t *testing.T, path string) {
	t.Helper()
	l, err := openBolt(path, Options{}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// Records left in the journal by a crash (synced, acknowledged, not yet in
// bbolt) are in the ledger once it is open again, and the journal starts
// over: the next open replays nothing.
func TestBoltOpenReplaysTheJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	newLedgerFile(t, path)
	recs := []Record{journalRecord(1), journalRecord(2), journalRecord(3)}
	writeJournal(t, path, journalFrames(t, 1, recs...))

	l := openTestBolt(t, path, Options{})
	if l.replayed != 3 || l.journalTail != nil {
		t.Errorf("open replayed %d records (tail: %v), want 3 and no damage", l.replayed, l.journalTail)
	}
	for _, r := range recs {
		got, err := l.ByQueueID(context.Background(), r.QueueID)
		if err != nil || got.MessageID != r.MessageID || !got.Time.Equal(r.Time) {
			t.Errorf("ByQueueID(%s) after replay = %+v, %v; want the journalled record", r.QueueID, got, err)
		}
	}
	if err := l.Put(context.Background(), journalRecord(4)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openTestBolt(t, path, Options{})
	defer l.Close()
	if l.replayed != 0 {
		t.Errorf("the second open replayed %d records, want 0: the first open's are in bbolt", l.replayed)
	}
	if st, err := l.Stats(context.Background()); err != nil || st.Records != 4 {
		t.Errorf("Stats = %+v, %v; want 4 records", st, err)
	}
}

// A record is written into bbolt once: a frame that bbolt holds already
// (its sequence number is at most the one bbolt marks applied) is not
// applied again at open. Merging it again would move its queue id back
// from the later message that reused it.
func TestBoltOpenDoesNotReplayAppliedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	older := Record{MessageID: "older@example.org", QueueID: "4REUSED", Sender: "a@example.org", Recipients: []string{"b@example.net"}}
	newer := Record{MessageID: "newer@example.org", QueueID: "4REUSED", Sender: "a@example.org", Recipients: []string{"c@example.net"}}
	l := openTestBolt(t, path, Options{})
	for _, r := range []Record{older, newer} {
		if err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	// The journal as a crash could leave it: older's frame (sequence 1)
	// where newer's frame (2) was not written over it.
	older.Time = time.Now().Add(-time.Second)
	writeJournal(t, path, journalFrames(t, 1, older))

	l = openTestBolt(t, path, Options{})
	defer l.Close()
	if l.replayed != 0 {
		t.Errorf("open replayed %d records, want 0: bbolt holds the journal's", l.replayed)
	}
	if got, err := l.ByQueueID(ctx, "4REUSED"); err != nil || got.MessageID != "newer@example.org" {
		t.Errorf("ByQueueID(4REUSED) = %+v, %v; want newer@example.org, the message the queue id last named", got, err)
	}
}

// A torn or damaged end of the journal (what follows is garbage, a frame
// cut short, a frame whose CRC does not check) is ignored and reported;
// the records before it are replayed, and the ledger works on.
func TestBoltOpenIgnoresATornJournalTail(t *testing.T) {
	good := []Record{journalRecord(1), journalRecord(2)}
	torn := journalRecord(3)
	for _, tc := range []struct {
		name   string
		tail   func(frame []byte) []byte
		reason string
	}{
		{"garbage", func([]byte) []byte { return []byte("\x7fELF garbage after the last record: not a frame at all") }, "a frame of"},
		{"cut short", func(f []byte) []byte { return f[:len(f)-7] }, "CRC-32C"}, // zeros follow it
		{"bad CRC", func(f []byte) []byte {
			f = bytes.Clone(f)
			f[len(f)-3] ^= 0x20
			return f
		}, "CRC-32C"},
		{"length 0", func(f []byte) []byte {
			f = bytes.Clone(f)
			binary.BigEndian.PutUint32(f, 0)
			return f
		}, "length 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			newLedgerFile(t, path)
			data := append(journalFrames(t, 1, good...), tc.tail(journalFrames(t, 3, torn))...)
			writeJournal(t, path, data)
			l := openTestBolt(t, path, Options{})
			defer l.Close()
			var tail errJournalTail
			if !errors.As(l.journalTail, &tail) || !strings.Contains(tail.reason, tc.reason) {
				t.Errorf("journal tail: %v, want an errJournalTail saying %q", l.journalTail, tc.reason)
			}
			if l.replayed != len(good) {
				t.Errorf("replayed %d records, want the %d before the damage", l.replayed, len(good))
			}
			ctx := context.Background()
			for _, r := range good {
				if _, err := l.ByMessageID(ctx, r.MessageID); err != nil {
					t.Errorf("%s, before the damage: %v", r.MessageID, err)
				}
			}
			if _, err := l.ByMessageID(ctx, torn.MessageID); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s, the damaged frame: %v, want ErrNotFound", torn.MessageID, err)
			}
			if err := l.Put(ctx, journalRecord(9)); err != nil {
				t.Fatalf("Put after a damaged journal: %v", err)
			}
			if _, err := l.ByMessageID(ctx, journalRecord(9).MessageID); err != nil {
				t.Errorf("a record put after a damaged journal: %v", err)
			}
		})
	}
}

// A fragment shorter than a frame header at the end of the file is a torn
// tail too; zeros there are the journal's end.
func TestJournalFragmentAtTheEndOfTheFileIsATornTail(t *testing.T) {
	one := appendFrame(nil, 1, []byte(`{"MessageID":"a@example.org"}`))
	n := 0
	end, err := readFrames(append(bytes.Clone(one), 0, 0, 0, 9, 1, 2, 3, 4, 5), func(uint64, []byte) { n++ })
	var tail errJournalTail
	if n != 1 || end != len(one) || !errors.As(err, &tail) || !strings.Contains(tail.reason, "shorter than a frame header") {
		t.Errorf("a 9-byte fragment at the end: %d frames, end %d, %v; want 1, %d, a torn tail", n, end, err, len(one))
	}
	n = 0
	end, err = readFrames(append(bytes.Clone(one), make([]byte, 9)...), func(uint64, []byte) { n++ })
	if n != 1 || end != len(one) || err != nil {
		t.Errorf("9 zeros at the end: %d frames, end %d, %v; want 1, %d, no error", n, end, err, len(one))
	}
}

// Frames of an earlier pass over the file (numbered below the ones before
// them, after a checkpoint) end the journal quietly: they are not damage.
func TestJournalEndsAtAFrameOfAnEarlierPass(t *testing.T) {
	data := appendFrame(appendFrame(nil, 5, []byte(`{"QueueID":"4E"}`)), 6, []byte(`{"QueueID":"4F"}`))
	current := len(data)
	data = appendFrame(data, 2, []byte(`{"QueueID":"4B"}`))
	var seqs []uint64
	end, err := readFrames(data, func(seq uint64, _ []byte) { seqs = append(seqs, seq) })
	if len(seqs) != 2 || seqs[0] != 5 || seqs[1] != 6 || end != current || err != nil {
		t.Errorf("frames 5, 6, then 2: read %v, end %d, %v; want [5 6], %d, no error", seqs, end, err, current)
	}
}

// When bbolt does not take records (here: its write lock is held, as a
// long transaction or a failing disk would), Puts go on into the journal
// until it is full, and then wait: the journal never grows past its size,
// and every record is in the ledger once bbolt takes them again.
func TestBoltJournalFullWaitsForBbolt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	l := openTestBolt(t, path, Options{})
	defer l.Close()
	ctx := context.Background()
	rcpts := make([]string, MaxRecipients) // about 30 kB a record
	for i := range rcpts {
		rcpts[i] = fmt.Sprintf("a-long-enough-recipient-%04d@example.net", i)
	}
	big := func(i int) Record {
		return Record{MessageID: fmt.Sprintf("big%d@example.org", i), Sender: "b@example.org", Recipients: rcpts}
	}
	p, _ := json.Marshal(big(0).Normalize(time.Now()))
	fit := journalSize / (frameHeader + len(p)) // records the journal holds

	l.applyMu.Lock() // the applier, and every read, wait: bbolt takes nothing
	returned := make(chan int, 2*fit)
	go func() {
		for i := range fit + 10 {
			if err := l.Put(ctx, big(i)); err != nil {
				t.Errorf("Put %d: %v", i, err)
			}
			returned <- i
		}
		close(returned)
	}()
	// Puts return until the journal is full; then none does (for half a
	// second after the last, or 30 s in all on a slow machine).
	n := 0
	deadline := time.After(30 * time.Second)
wait:
	for {
		quiet := time.After(time.Hour)
		if n >= fit-1 {
			quiet = time.After(500 * time.Millisecond)
		}
		select {
		case _, ok := <-returned:
			if !ok {
				break wait
			}
			n++
		case <-quiet:
			break wait
		case <-deadline:
			break wait
		}
	}
	if n < fit-1 || n > fit {
		t.Errorf("%d Puts of %d-byte records returned while bbolt took nothing, want the %d the journal holds", n, len(p), fit)
	}
	if l.journal.end > journalSize || l.pendingN.Load() > int64(fit) {
		t.Errorf("journal end %d, %d records pending; want at most %d bytes, %d records", l.journal.end, l.pendingN.Load(), journalSize, fit)
	}
	if fi, err := os.Stat(path + "-journal"); err != nil || fi.Size() != journalSize {
		t.Errorf("journal file: %v, %v; want %d bytes", fi, err, journalSize)
	}
	l.applyMu.Unlock()
	for range returned {
		n++
	}
	if n != fit+10 {
		t.Fatalf("%d Puts returned once bbolt took records again, want %d", n, fit+10)
	}
	for i := range fit + 10 {
		if _, err := l.ByMessageID(ctx, big(i).MessageID); err != nil {
			t.Fatalf("record %d of %d: %v", i, fit+10, err)
		}
	}
}

// Merge returns what bbolt's commit of the record changed, and the
// record's Change is the same whether other records were journalled
// before it or not.
func TestBoltMergeReportsTheChangeAfterJournalledPuts(t *testing.T) {
	l := openTestBolt(t, filepath.Join(t.TempDir(), "ledger.db"), Options{})
	defer l.Close()
	ctx := context.Background()
	r := journalRecord(1)
	if err := l.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	if c, err := l.Merge(ctx, r); err != nil || c != ChangeNone {
		t.Errorf("Merge of what a Put journalled = %v, %v; want none", c, err)
	}
	r.Recipients = append(r.Recipients, "more@example.net")
	if c, err := l.Merge(ctx, r); err != nil || c != ChangeMerged {
		t.Errorf("Merge of a new recipient = %v, %v; want merged", c, err)
	}
	if c, err := l.Merge(ctx, journalRecord(2)); err != nil || c != ChangeAdded {
		t.Errorf("Merge of a new message = %v, %v; want added", c, err)
	}
}

// A record too large for the journal goes to bbolt directly, after the
// records journalled before it.
func TestBoltRecordLargerThanTheJournalIsWritten(t *testing.T) {
	l := openTestBolt(t, filepath.Join(t.TempDir(), "ledger.db"), Options{})
	defer l.Close()
	ctx := context.Background()
	r := Record{MessageID: "huge@example.org", Sender: "h@example.org"}
	for i := range MaxRecipients {
		r.Recipients = append(r.Recipients, fmt.Sprintf("%04d%s@example.net", i, strings.Repeat("x", journalSize/MaxRecipients)))
	}
	if err := l.Put(ctx, journalRecord(1)); err != nil {
		t.Fatal(err)
	}
	if c, err := l.Merge(ctx, r); err != nil || c != ChangeAdded {
		t.Fatalf("Merge of a record larger than the journal = %v, %v; want added", c, err)
	}
	for _, id := range []string{"huge@example.org", journalRecord(1).MessageID} {
		if _, err := l.ByMessageID(ctx, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	var applied uint64
	l.db.View(func(tx *bolt.Tx) error {
		applied = binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(metaJournalApplied))
		return nil
	})
	if applied != 1 {
		t.Errorf("bbolt marks journal record %d applied, want 1 (the huge one is not journalled)", applied)
	}
}

// FuzzJournalFrames: whatever the journal holds, reading it never panics,
// stops within the data, and returns only frames that check, numbered in
// sequence, whose bytes are the frame appendFrame writes.
func FuzzJournalFrames(f *testing.F) {
	one := appendFrame(nil, 1, []byte(`{"MessageID":"a@example.org"}`))
	two := appendFrame(bytes.Clone(one), 2, []byte(`{"QueueID":"4Q"}`))
	f.Add([]byte{})
	f.Add(one)
	f.Add(two)
	f.Add(append(bytes.Clone(two), make([]byte, frameHeader)...))
	f.Add(append(bytes.Clone(two), one...))
	f.Add(two[:len(two)-1])
	f.Add(append(bytes.Clone(one), 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, data []byte) {
		var rebuilt []byte
		var prev uint64
		end, err := readFrames(data, func(seq uint64, payload []byte) {
			if prev != 0 && seq != prev+1 || seq == 0 {
				t.Fatalf("frame %d after %d", seq, prev)
			}
			prev = seq
			rebuilt = appendFrame(rebuilt, seq, payload)
		})
		if end < 0 || end > len(data) {
			t.Fatalf("end %d outside the %d bytes", end, len(data))
		}
		if !bytes.Equal(rebuilt, data[:end]) {
			t.Fatalf("the frames read are not the %d bytes before the end", end)
		}
		var tail errJournalTail
		if err != nil && (!errors.As(err, &tail) || tail.off != end) {
			t.Fatalf("error %v at %d, want an errJournalTail at the end %d", err, tail.off, end)
		}
	})
}
