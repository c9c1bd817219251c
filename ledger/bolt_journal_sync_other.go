//go:build !linux

package ledger

import "os"

// fdatasync makes the data written to f durable: outside Linux, with
// File.Sync (fsync, or F_FULLFSYNC on macOS), which also writes the
// file's metadata.
func fdatasync(f *os.File) error {
	return f.Sync()
}

// journalSyncFlag is 0 outside Linux: the journal's writes are followed by
// fdatasync (File.Sync), which on macOS is F_FULLFSYNC, where O_DSYNC
// would not reach the disk's own cache.
const journalSyncFlag = 0
