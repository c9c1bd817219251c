package ledger

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func openTestBolt(t *testing.T, path string, o Options) *boltLedger {
	t.Helper()
	l, err := OpenBolt(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return l.(*boltLedger)
}

func TestBoltConformance(t *testing.T) {
	l := openTestBolt(t, filepath.Join(t.TempDir(), "ledger.db"), Options{})
	defer l.Close()
	testLedger(t, l)
}

func TestBoltOpenViaSpec(t *testing.T) {
	dir := t.TempDir()
	l, err := Open("", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Put(context.Background(), Record{MessageID: "spec@example.org", Sender: "a@example.org", Recipients: []string{"b@example.net"}}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err != nil {
		t.Fatalf("Open(\"\", dir) did not create dir/ledger.db: %v", err)
	}
	// A second process (here: a second open) cannot take the file while it is held.
	l1 := openTestBolt(t, filepath.Join(dir, "ledger.db"), Options{})
	defer l1.Close()
	if _, err := OpenBolt(filepath.Join(dir, "ledger.db"), Options{}); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("second open of a held ledger: err = %v, want a 'locked' error", err)
	}
}

func TestBoltReopenKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	l := openTestBolt(t, path, Options{})
	for i := range 50 {
		if err := l.Put(ctx, Record{MessageID: fmt.Sprintf("m%d@example.org", i), QueueID: fmt.Sprintf("Q%d", i),
			Sender: "a@example.org", Recipients: []string{"b@example.net"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Put(ctx, Record{MessageID: "late@example.org"}); err == nil {
		t.Fatal("Put after Close succeeded, want an error")
	}
	l = openTestBolt(t, path, Options{})
	defer l.Close()
	for i := range 50 {
		if _, err := l.ByQueueID(ctx, fmt.Sprintf("Q%d", i)); err != nil {
			t.Fatalf("after reopen, Q%d: %v", i, err)
		}
	}
}

// TestBoltSweepExpires checks that the sweep deletes expired records and their
// index entries, and keeps index entries a later record still needs.
func TestBoltSweepExpires(t *testing.T) {
	ctx := context.Background()
	base := time.Now()
	var later atomic.Bool
	clock := func() time.Time {
		if later.Load() {
			return base.Add(20 * time.Minute)
		}
		return time.Now()
	}
	l, err := openBolt(filepath.Join(t.TempDir(), "ledger.db"), Options{Retention: time.Hour, SweepInterval: time.Hour}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	put := func(r Record) {
		t.Helper()
		if err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	put(Record{MessageID: "a@example.org", QueueID: "QA", Sender: "s@example.org", Recipients: []string{"x@example.net"}, Time: base.Add(-50 * time.Minute)})
	put(Record{MessageID: "b@example.org", QueueID: "QB", Sender: "s@example.org", Recipients: []string{"x@example.net", "y@example.net"}, Time: base.Add(-10 * time.Minute)})
	put(Record{MessageID: "c@example.org", QueueID: "QA", Sender: "s@example.org", Recipients: []string{"z@example.net"}, Time: base.Add(-55 * time.Minute)})

	// Twenty minutes later, records older than base-40m are past retention.
	later.Store(true)
	if n := l.sweep(); n != 2 {
		t.Fatalf("sweep deleted %d records, want 2", n)
	}
	st, _ := l.Stats(ctx)
	if st.Records != 1 {
		t.Fatalf("after sweep, %d records, want 1", st.Records)
	}
	if _, err := l.ByMessageID(ctx, "a@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired a: %v, want ErrNotFound", err)
	}
	if ok, _ := l.SentTo(ctx, "s@example.org", "x@example.net"); !ok {
		t.Fatal("pair (s, x) was sent again by b within retention: SentTo = false, want true")
	}
	if ok, _ := l.SentTo(ctx, "s@example.org", "z@example.net"); ok {
		t.Fatal("pair (s, z) expired: SentTo = true")
	}
	err = l.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMsgID).Get([]byte("a@example.org")) != nil || tx.Bucket(bucketQueueID).Get([]byte("QA")) != nil {
			return errors.New("index entries of expired records remain")
		}
		if tx.Bucket(bucketPair).Get(pairKey("s@example.org", "z@example.net")) != nil {
			return errors.New("expired pair entry remains")
		}
		if tx.Bucket(bucketPair).Get(pairKey("s@example.org", "x@example.net")) == nil {
			return errors.New("live pair entry was deleted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBoltSweepExpiresMergedRecords: a record merged from several queue
// files and senders, and one that absorbed a record kept under its queue
// id alone, leave no index entry and no pair behind once expired.
func TestBoltSweepExpiresMergedRecords(t *testing.T) {
	ctx := context.Background()
	base := time.Now()
	var later atomic.Bool
	clock := func() time.Time {
		if later.Load() {
			return base.Add(20 * time.Minute)
		}
		return time.Now()
	}
	l, err := openBolt(filepath.Join(t.TempDir(), "ledger.db"), Options{Retention: time.Hour, SweepInterval: time.Hour}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, r := range []Record{
		{MessageID: "m@example.org", QueueID: "QA", Sender: "s1@example.org", Recipients: []string{"x@example.net"}, Time: base.Add(-50 * time.Minute)},
		{MessageID: "m@example.org", QueueID: "QB", Sender: "s2@example.org", Recipients: []string{"y@example.net"}, Time: base.Add(-45 * time.Minute)},
		{QueueID: "QC", Sender: "s3@example.org", Recipients: []string{"z@example.net"}, Time: base.Add(-50 * time.Minute)},
		{MessageID: "n@example.org", Sender: "s3@example.org", Recipients: []string{"w@example.net"}, Time: base.Add(-50 * time.Minute)},
		{MessageID: "n@example.org", QueueID: "QC", Sender: "s3@example.org", Recipients: []string{"v@example.net"}, Time: base.Add(-50 * time.Minute)},
	} {
		if err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := l.Stats(ctx); st.Records != 2 {
		t.Fatalf("%d records of two messages, want 2", st.Records)
	}
	later.Store(true)
	if n := l.sweep(); n != 2 {
		t.Fatalf("sweep deleted %d records, want 2", n)
	}
	err = l.db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRecords, bucketTime, bucketMsgID, bucketQueueID, bucketPair} {
			if k, _ := tx.Bucket(b).Cursor().First(); k != nil {
				return fmt.Errorf("bucket %s still holds %q after every record expired", b, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The kill -9 test: a child process writes records as fast as it can from
// several goroutines and prints each Message-ID once Put has returned; the
// parent kills it with SIGKILL mid-stream, reopens the file, and checks that
// every acknowledged record is there and the file is consistent. A Put
// returns once its record is in the journal: the records bbolt lacked at
// the kill are found because the open replays them.
const killChildEnv = "NDR_BOLT_KILL_CHILD"

func TestBoltKillChild(t *testing.T) {
	path := os.Getenv(killChildEnv)
	if path == "" {
		t.Skip("helper process for TestBoltKill9")
	}
	l, err := OpenBolt(path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1_000_000; i++ {
				id := fmt.Sprintf("k%d.%d@example.org", w, i)
				if err := l.Put(context.Background(), Record{MessageID: id, QueueID: fmt.Sprintf("K%dQ%d", w, i),
					Sender: "k@example.org", Recipients: []string{fmt.Sprintf("r%d@example.net", w)}}); err != nil {
					mu.Lock()
					fmt.Fprintln(out, "error", err)
					out.Flush()
					mu.Unlock()
					return
				}
				mu.Lock()
				fmt.Fprintln(out, "ack", id)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	os.Exit(0)
}

func TestBoltKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBoltKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked []string
		sc := bufio.NewScanner(stdout)
		target := 300 + 200*round
		for sc.Scan() {
			line := sc.Text()
			if id, ok := strings.CutPrefix(line, "ack "); ok {
				acked = append(acked, id)
				if len(acked) == target {
					break
				}
			} else if strings.HasPrefix(line, "error") {
				t.Fatalf("child: %s", line)
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Acknowledgements already written to the pipe before the kill count too.
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				acked = append(acked, id)
			}
		}
		cmd.Wait()
		if len(acked) < target {
			t.Fatalf("round %d: child acknowledged only %d records", round, len(acked))
		}
		// bbolt's own consistency check, on the file alone (the ledger's
		// sweeper would write concurrently with it).
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
		if err != nil {
			t.Fatalf("round %d: reopening after kill -9: %v", round, err)
		}
		err = db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		})
		db.Close()
		if err != nil {
			t.Fatalf("round %d: consistency check after kill -9: %v", round, err)
		}
		l := openTestBolt(t, path, Options{})
		for _, id := range acked {
			if _, err := l.ByMessageID(context.Background(), id); err != nil {
				t.Fatalf("round %d: acknowledged record %s lost after kill -9: %v", round, id, err)
			}
		}
		st, _ := l.Stats(context.Background())
		t.Logf("round %d: %d acknowledged before kill, %d records in the file, %d of them replayed from the journal (its tail: %v)",
			round, len(acked), st.Records, l.replayed, l.journalTail)
		l.Close()
	}
}

// Stats reports the size of the bbolt file's data: more than nothing, at
// most the file's size, and more once records are added.
func TestBoltStatsReportsTheDatabaseSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l := openTestBolt(t, path, Options{Retention: time.Hour})
	defer l.Close()
	ctx := context.Background()
	empty, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		id := fmt.Sprintf("size-%d@example.org", i)
		if err := l.Put(ctx, Record{MessageID: id, Sender: "s@example.org", Recipients: []string{"r@example.net"}, Time: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	full, err := l.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Bytes <= 0 || full.Bytes <= empty.Bytes || full.Bytes > fi.Size() {
		t.Errorf("Stats.Bytes: %d empty, %d with 200 records, file %d bytes; want 0 < empty < full <= file", empty.Bytes, full.Bytes, fi.Size())
	}
}

// A ledger file written before the sender index existed gets the index
// built from its pairs at the first open, and begins (Since) at its oldest
// record: every sender of the retention period is found.
func TestBoltSenderIndexIsBuiltForAnOlderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := OpenBolt(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	oldest := time.Now().Add(-20 * 24 * time.Hour).Truncate(time.Millisecond)
	latest := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for _, r := range []Record{
		{MessageID: "a.1@example.org", Sender: "alice@example.org", Recipients: []string{"b@example.net"}, Time: oldest},
		{MessageID: "a.2@example.org", Sender: "alice@example.org", Recipients: []string{"c@example.net"}, Time: latest},
		{MessageID: "z.1@example.org", Sender: "zed@example.org", Recipients: []string{"d@example.net"}, Time: oldest},
	} {
		if err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	// Take the index away, as a file of an older version lacks it.
	db, err := bolt.Open(path, 0o640, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketSender); err != nil {
			return err
		}
		return tx.DeleteBucket(bucketMeta)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	l, err = OpenBolt(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got, err := l.LastSent(ctx, "alice@example.org"); err != nil || !got.Equal(latest) {
		t.Fatalf("LastSent(alice) = %v, %v; want %v", got, err, latest)
	}
	if got, err := l.LastSent(ctx, "zed@example.org"); err != nil || !got.Equal(oldest) {
		t.Fatalf("LastSent(zed) = %v, %v; want %v", got, err, oldest)
	}
	if since, err := l.Since(ctx); err != nil || !since.Equal(oldest) {
		t.Fatalf("Since = %v, %v; want the oldest record's time %v", since, err, oldest)
	}
}

// A sender whose latest sending leaves the retention window is swept from
// the index.
func TestBoltSweepExpiresSenders(t *testing.T) {
	var clock atomic.Int64 // unix ns: the sweeper reads it too
	now := time.Now()
	clock.Store(now.UnixNano())
	l, err := openBolt(filepath.Join(t.TempDir(), "ledger.db"), Options{Retention: time.Hour, SweepInterval: time.Hour}, func() time.Time { return time.Unix(0, clock.Load()) })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if err := l.Put(ctx, Record{MessageID: "s.1@example.org", Sender: "s@example.org", Recipients: []string{"r@example.net"}, Time: now}); err != nil {
		t.Fatal(err)
	}
	clock.Store(now.Add(2 * time.Hour).UnixNano())
	l.sweep()
	if _, err := l.LastSent(ctx, "s@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LastSent after the retention: %v, want ErrNotFound", err)
	}
	n := 0
	l.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucketSender).Stats().KeyN; return nil })
	if n != 0 {
		t.Fatalf("%d senders left in the index after the sweep, want 0", n)
	}
}
