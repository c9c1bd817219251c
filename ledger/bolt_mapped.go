package ledger

import (
	bolt "go.etcd.io/bbolt"
)

// bbolt reads the ledger through a shared, read-only memory map of its
// file: every page a transaction reads to change it stays mapped into the
// process, and counts in its resident set, until the process ends. A batch
// (an import of a day's log into a month's ledger) reads most pages of the
// indexes, whose keys (Message-IDs, queue ids, address pairs) are spread
// over the whole file: the import's resident set would grow with the
// ledger, not with what it holds in memory.
//
// releaseMapped hands the mapped pages back to the kernel after each
// transaction of a batch (madvise MADV_DONTNEED on Linux; elsewhere it does
// nothing). The pages stay in the page cache, clean once written, and the
// next read of one maps it again (a minor fault, no I/O); the data is never
// at risk: the map is of the file, read-only, and bbolt writes with
// pwrite. It runs inside a read transaction, which holds bbolt's map lock:
// the map cannot move under it.
//
// It costs CPU: the pages the next transaction reads fault in again. On
// the import of an 80,000-message log (make bench-import) it took about a
// fifth more CPU than keeping them mapped, for a peak resident set 6-8 MB
// lower; releasing only every other transaction gave up nearly all of
// those MB (one transaction reads most pages of a young ledger's
// indexes).
func (l *boltLedger) releaseMapped() {
	_ = l.db.View(func(tx *bolt.Tx) error {
		releasePages(l.db.Info().Data, tx.Size())
		return nil
	})
}
