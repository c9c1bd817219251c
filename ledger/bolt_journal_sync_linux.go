package ledger

import (
	"os"
	"syscall"
)

// fdatasync makes the data written to f durable, and of its metadata only
// what reading the data back needs (fdatasync(2)): the journal's writes
// are overwrites of written blocks, so that is their data alone.
func fdatasync(f *os.File) error {
	return syscall.Fdatasync(int(f.Fd()))
}

// journalSyncFlag opens the journal for writes that return once their data
// is durable (O_DSYNC, open(2)): on Linux a write to such a file ends with
// the flush fdatasync would do, of the range written, so that a group of
// records costs one system call, not a write and an fdatasync.
const journalSyncFlag = syscall.O_DSYNC
