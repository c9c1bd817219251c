package dsn

import (
	"encoding/binary"
	"unicode/utf8"
)

// ASCII byte tests: the formats dsn reads are ASCII in their structure,
// whatever the charset of their text.

// equalFoldASCII compares two strings without regard to ASCII case.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// isASCII says whether b has no byte above 0x7F, eight bytes at a time: a
// text of ASCII alone holds none of the phrases of a language written in
// other characters (failureStatedJa).
func isASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
