package dsn

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// field is one header field (RFC 5322 section 2.2). Its value is kept as
// it came, line breaks included, and unfolded only when read: most fields
// of a report (Received, DKIM-Signature) are never read.
type field struct {
	name   []byte
	raw    []byte // the value as written, a slice of the input
	off    int    // where raw starts in the header block
	folded bool   // raw spans more than one line
}

// value returns the field's value unfolded (RFC 5322 section 2.2.3): each
// line break and the white space around it become one space.
func (f *field) value() []byte {
	if !f.folded {
		return f.raw
	}
	out := make([]byte, 0, len(f.raw))
	space := false
	for _, c := range f.raw {
		if c == '\r' || c == '\n' {
			space = true
			continue
		}
		if space {
			if c == ' ' || c == '\t' {
				continue
			}
			out = trimBlankRight(out)
			out = append(out, ' ')
			space = false
		}
		out = append(out, c)
	}
	return out
}

// header is a header block in the order of its fields.
type header []field

// get returns the value of the first field called name (case-insensitive), or nil.
func (h header) get(name string) []byte {
	for i := range h {
		if equalFoldString(h[i].name, name) {
			return h[i].value()
		}
	}
	return nil
}

// getString is get as a string with surrounding white space removed.
func (h header) getString(name string) string {
	return string(bytes.TrimSpace(h.get(name)))
}

// count returns the number of fields called name.
func (h header) count(name string) int {
	n := 0
	for i := range h {
		if equalFoldString(h[i].name, name) {
			n++
		}
	}
	return n
}

// has says whether a field called name is present.
func (h header) has(name string) bool {
	for i := range h {
		if equalFoldString(h[i].name, name) {
			return true
		}
	}
	return false
}

// nextLine returns the line of b that starts at i without its line end
// (LF or CRLF), and the index of the next line.
func nextLine(b []byte, i int) (line []byte, next int) {
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

// parseHeader reads the header block at the start of b (RFC 5322 section
// 2.2) and returns its fields and the body after the empty line. A line that
// is neither a field nor a continuation ends the block, as does the cap on
// fields: the rest is taken as the body. An mbox "From " line at the very
// start is skipped.
func parseHeader(b []byte) (h header, body []byte, truncated bool) {
	return parseHeaderCap(b, 16)
}

// parseHeaderCap is parseHeader with room for n fields to start with: MIME
// part headers have a handful, message headers dozens.
func parseHeaderCap(b []byte, n int) (h header, body []byte, truncated bool) {
	return parseHeaderInto(b, make(header, 0, n))
}

// parseHeaderInto is parseHeader appending the fields to h (empty).
func parseHeaderInto(b []byte, h header) (_ header, body []byte, truncated bool) {
	i := 0
	if bytes.HasPrefix(b, []byte("From ")) {
		_, i = nextLine(b, 0)
	}
	skipping := false // the current field is past MaxHeaderFields
	for i < len(b) {
		line, next := nextLine(b, i)
		if len(line) == 0 {
			return h, b[next:], truncated
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(h) == 0 {
				// A continuation without a field: not a header block.
				return h, b[i:], truncated
			}
			if len(bytes.TrimSpace(line)) == 0 {
				// A line of blanks: many writers mean it as the end of the block.
				return h, b[next:], truncated
			}
			// Folding (RFC 5322 section 2.2.3): the value runs on.
			if !skipping {
				extend(&h[len(h)-1], b, i+len(line))
			}
			i = next
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isFieldName(trimBlankRight(line[:colon])) {
			if n := len(h); n > 0 && !skipping && bytes.HasSuffix(h[n-1].raw, []byte(";")) && bytes.IndexByte(line, '=') > 0 {
				// A parameter on an unindented line after "type;": a broken
				// fold (seen in Content-Type); join it to the field.
				extend(&h[n-1], b, i+len(line))
				i = next
				continue
			}
			return h, b[i:], truncated
		}
		if len(h) >= MaxHeaderFields {
			truncated, skipping = true, true
			i = next
			continue
		}
		skipping = false
		v := line[colon+1:]
		start := i + colon + 1
		for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
			v, start = v[1:], start+1
		}
		h = append(h, field{
			name: trimBlankRight(line[:colon]),
			raw:  trimBlankRight(v),
			off:  start,
		})
		i = next
	}
	return h, nil, truncated
}

// extend makes f's value run to end, the end of a continuation line in b.
func extend(f *field, b []byte, end int) {
	f.raw = trimBlankRight(b[f.off:end])
	f.folded = true
}

// isFieldName says whether b is a field name: printable ASCII without
// colon or space (RFC 5322 section 2.2).
func isFieldName(b []byte) bool {
	if len(b) == 0 || len(b) > 76 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	return true
}

// equalFoldString compares b and an ASCII string s without regard to case.
func equalFoldString(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c, d := b[i], s[i]
		if c != d && lower(c) != lower(d) {
			return false
		}
	}
	return true
}

// lower is ASCII lower case of one byte.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// lowerTable maps each byte to its ASCII lower case.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = lower(byte(i))
	}
	return t
}()

// toLower returns an ASCII lower-case copy of b. It works on eight bytes
// at a time: for each byte below 0x80, adding 0x3f sets the high bit from
// 'A' up, adding 0x25 sets it above 'Z'; the difference marks the capitals,
// which get 0x20 added. Bytes from 0x80 up (UTF-8) are left alone.
func toLower(b []byte) []byte {
	return lowerInto(nil, b)
}

// lowerInto is toLower writing into dst's array (its contents are lost)
// when it has room; b and dst may be the same slice.
func lowerInto(dst, b []byte) []byte {
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

// lowerString is strings.ToLower for ASCII, cheap when s is already lower case.
func lowerString(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			// One copy, not two ([]byte(s), then string of it): s is
			// only read, and out is not changed after it becomes a string.
			out := lowerInto(make([]byte, len(s)), unsafe.Slice(unsafe.StringData(s), len(s)))
			return unsafe.String(unsafe.SliceData(out), len(out))
		}
	}
	return s
}

// trimBlankRight is bytes.TrimRight(b, " \t") without building a cut set
// at each call (it ran several times per header line).
func trimBlankRight(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t') {
		n--
	}
	return b[:n]
}
