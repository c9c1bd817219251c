package ledger

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A record's commit writes into blocks the ledger file already has: the
// writer keeps written zeros ahead of bbolt's high water mark, so that
// the file system allocates no block (a journal commit) in the commit
// that acknowledges a record. The file stays a valid ledger: reopened, it
// holds every record.
func TestBoltPutKeepsWrittenBlocksAheadOfTheLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := openBolt(path, Options{}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 3000 // several MB: bbolt grows the file several times
	for i := int64(499); i < n; i += 500 {
		// 500 records from 10 writers, as a busy milter's sessions write.
		var wg sync.WaitGroup
		for w := range int64(10) {
			wg.Go(func() {
				for j := i - 499 + w; j <= i; j += 10 {
					if err := l.Put(ctx, benchRecord(j+1)); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		var hw int64
		if err := l.db.View(func(tx *bolt.Tx) error { hw = tx.Size(); return nil }); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Size() < hw+zeroAhead/2 {
			t.Errorf("after %d records: the file has %d bytes, the ledger %d: want at least %d bytes written ahead", i+1, fi.Size(), hw, zeroAhead/2)
		}
		if allocated := st.Blocks * 512; allocated < fi.Size() {
			t.Errorf("after %d records: %d of the file's %d bytes have blocks: the file has holes", i+1, allocated, fi.Size())
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = openBolt(path, Options{}, time.Now)
	if err != nil {
		t.Fatalf("reopening the ledger: %v", err)
	}
	defer l.Close()
	for _, i := range []int64{1, n / 2, n} {
		want := benchRecord(i).Normalize(time.Now())
		if r, err := l.ByMessageID(ctx, want.MessageID); err != nil || r.QueueID != want.QueueID {
			t.Errorf("record %d after reopening: %+v, %v", i, r, err)
		}
	}
	if st, err := l.Stats(ctx); err != nil || st.Records != n {
		t.Errorf("Stats after reopening: %+v, %v; want %d records", st, err, n)
	}
}
