package dsn

import (
	"strings"
	"unsafe"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// indexString is bytes.Index with a string pattern. It views b as a string
// without copying it, so that the pattern tables stay strings and the
// search is strings.Index's; b is not changed while the view is in use.
func indexString(b []byte, s string) int {
	if len(b) == 0 {
		if len(s) == 0 {
			return 0
		}
		return -1
	}
	return strings.Index(unsafe.String(unsafe.SliceData(b), len(b)), s)
}

// containsString is bytes.Contains with a string pattern.
func containsString(b []byte, s string) bool { return indexString(b, s) >= 0 }

// lower is the ASCII lower case of c (codes.go's equalFoldASCII uses it).
func lower(c byte) byte { return ascii.Lower(c) }
