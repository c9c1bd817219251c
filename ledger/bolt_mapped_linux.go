package ledger

import "syscall"

// releasePages drops the process's mapping of size bytes of a shared file
// map at addr (see releaseMapped). An error changes nothing: the pages stay
// mapped.
func releasePages(addr uintptr, size int64) {
	if addr == 0 || size <= 0 {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(size), syscall.MADV_DONTNEED)
}
