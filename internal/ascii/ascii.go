// Package ascii holds the byte-level text helpers the message readers share
// (packages message and dsn): ASCII case folding that neither allocates nor
// builds cut sets, line splitting for LF and CRLF text, and hex digits. Mail
// is read as bytes, not runes: bytes from 0x80 up (UTF-8, or an 8-bit
// charset not yet decoded) are left as they are.
package ascii

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// lowerTable maps each byte to its ASCII lower case.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		t[i] = c
	}
	return t
}()

// Lower is the ASCII lower case of c.
func Lower(c byte) byte { return lowerTable[c] }

// IsAlpha says whether c is an ASCII letter.
func IsAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// IsDigit says whether c is an ASCII digit.
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// EqualFold compares b and an ASCII string s without regard to case.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c, d := b[i], s[i]
		if c != d && lowerTable[c] != lowerTable[d] {
			return false
		}
	}
	return true
}

// HasPrefixFold says whether s starts with the lower-case ASCII prefix,
// without regard to the case of s.
func HasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for j := 0; j < len(prefix); j++ {
		if lowerTable[s[j]] != prefix[j] {
			return false
		}
	}
	return true
}

// ToLower returns an ASCII lower-case copy of b.
func ToLower(b []byte) []byte {
	return LowerInto(nil, b)
}

// LowerInto is ToLower writing into dst's array (its contents are lost)
// when it has room; b and dst may be the same slice. It works on eight
// bytes at a time: for each byte below 0x80, adding 0x3f sets the high bit
// from 'A' up, adding 0x25 sets it above 'Z'; the difference marks the
// capitals, which get 0x20 added. Bytes from 0x80 up are left alone.
func LowerInto(dst, b []byte) []byte {
	var out []byte
	if dst != nil && cap(dst) >= len(b) {
		out = dst[:len(b)]
	} else {
		out = make([]byte, len(b))
	}
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		h := w & 0x7f7f7f7f7f7f7f7f
		upper := (h + 0x3f3f3f3f3f3f3f3f) &^ (h + 0x2525252525252525) &^ w & 0x8080808080808080
		binary.LittleEndian.PutUint64(out[i:], w|upper>>2)
	}
	for ; i < len(b); i++ {
		out[i] = lowerTable[b[i]]
	}
	return out
}

// LowerString is strings.ToLower for ASCII, cheap when s is already lower case.
func LowerString(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			// One copy, not two ([]byte(s), then string of it): s is
			// only read, and out is not changed after it becomes a string.
			out := LowerInto(make([]byte, len(s)), unsafe.Slice(unsafe.StringData(s), len(s)))
			return unsafe.String(unsafe.SliceData(out), len(out))
		}
	}
	return s
}

// NextLine returns the line of b that starts at i without its line end
// (LF or CRLF), and the index of the next line.
func NextLine(b []byte, i int) (line []byte, next int) {
	j := bytes.IndexByte(b[i:], '\n')
	if j < 0 {
		line, next = b[i:], len(b)
	} else {
		line, next = b[i:i+j], i+j+1
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, next
}

// Unhex is the value of the hexadecimal digit c, in either case.
func Unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
