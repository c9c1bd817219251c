//go:build !linux

package ledger

import "os"

// fdatasync makes the data written to f durable: outside Linux, with
// File.Sync (fsync, or F_FULLFSYNC on macOS), which also writes the
// file's metadata.
func fdatasync(f *os.File) error {
	return f.Sync()
}
