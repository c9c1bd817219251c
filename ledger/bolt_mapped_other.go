//go:build !linux

package ledger

// releasePages does nothing outside Linux: the mapped pages of the ledger
// stay in the resident set (see releaseMapped).
func releasePages(addr uintptr, size int64) {}
