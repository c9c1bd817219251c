package ledger

import (
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A commit that writes pages past the end of the ledger file's written
// blocks makes the file system allocate blocks for them (a hole of the
// sparse file bbolt extends with ftruncate): its fdatasync then also
// commits the file system's journal, which costs about as much again as
// the write (on ext4, measured: 6 pages and fdatasync, 1.3 ms into a hole
// or an fallocated range, 0.67 ms into written blocks). A young ledger
// grows with every commit, so most record commits paid it twice (bbolt's
// two fdatasyncs), and bbolt's growth of the file added an ftruncate and
// an fsync.
//
// So the writer keeps zeros written (and flushed) ahead of bbolt's high
// water mark, at most zeroAhead bytes, topped up after a commit has been
// acknowledged, when fewer than zeroAhead/2 remain: a record's commit then
// writes into blocks that exist. bbolt never reads past its high water
// mark, and finds the file large enough, so it neither truncates nor
// syncs it to grow.
const zeroAhead = 2 << 20

// zeroChunk is what one write of zeros writes.
const zeroChunk = 256 << 10

// fillAhead writes zeros past the high water mark of the ledger file, up
// to zeroAhead bytes past it, when fewer than half remain, and flushes
// them. It runs inside a write transaction that it rolls back: no other
// transaction can move the high water mark meanwhile, and readers never
// read past it. A failure (a full disk) leaves things as they were: bbolt
// grows the file itself.
func (l *boltLedger) fillAhead() {
	if l.noZeroing {
		return
	}
	l.zeroMu.Lock()
	defer l.zeroMu.Unlock()
	if time.Now().Before(l.zeroRetry) {
		return // it failed lately (a full disk): bbolt grows the file itself
	}
	var hw int64
	_ = l.db.View(func(tx *bolt.Tx) error { hw = tx.Size(); return nil })
	if l.zeroed-hw >= zeroAhead/2 {
		return
	}
	tx, err := l.db.Begin(true)
	if err != nil {
		return
	}
	defer tx.Rollback()
	hw = tx.Size()
	from := max(l.zeroed, hw)
	if from-hw >= zeroAhead/2 {
		return
	}
	if err := writeZeros(l.db.Path(), from, hw+zeroAhead); err != nil {
		l.zeroRetry = time.Now().Add(zeroRetryAfter)
		return
	}
	l.zeroed = hw + zeroAhead
}

// zeroRetryAfter is how long fillAhead rests after a failure.
const zeroRetryAfter = time.Minute

// writeZeros writes zeros into the file at path from from to end, and
// flushes them.
func writeZeros(path string, from, end int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	zeros := make([]byte, zeroChunk)
	for off := from; off < end; off += zeroChunk {
		if _, err := f.WriteAt(zeros[:min(zeroChunk, end-off)], off); err != nil {
			return err
		}
	}
	return f.Sync()
}
