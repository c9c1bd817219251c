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
