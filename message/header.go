package message

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Field is one header field (RFC 5322 section 2.2). Name and Raw are slices
// of the message read: they are valid as long as it is, and must not be
// changed. The value is kept as it came, line breaks included, and unfolded
// only when read: most fields of a report (Received, DKIM-Signature) are
// never read.
type Field struct {
	Name []byte // the field name as written, without the colon
	Raw  []byte // the value as written, without surrounding blanks

	off    int  // where Raw starts in the header block
	folded bool // Raw spans more than one line
}

// Value returns the field's value unfolded (RFC 5322 section 2.2.3): each
// line break and the white space around it become one space.
func (f *Field) Value() []byte {
	if !f.folded {
		return f.Raw
	}
	return f.AppendValue(make([]byte, 0, len(f.Raw)))
}

// AppendValue appends the field's value unfolded (see Value) to out, for a
// reader that has memory of its own for it.
func (f *Field) AppendValue(out []byte) []byte {
	if !f.folded {
		return append(out, f.Raw...)
	}
	space := false
	for _, c := range f.Raw {
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

// Header is a header block, its fields in the order written.
type Header []Field

// Get returns the unfolded value of the first field called name (without
// regard to ASCII case), or nil.
func (h Header) Get(name string) []byte {
	for i := range h {
		if ascii.EqualFold(h[i].Name, name) {
			return h[i].Value()
		}
	}
	return nil
}

// getInto is Get that unfolds a folded value into room (an empty slice)
// instead of a new array: for a value that is read, not kept.
func (h Header) getInto(room []byte, name string) []byte {
	for i := range h {
		if ascii.EqualFold(h[i].Name, name) {
			if !h[i].folded {
				return h[i].Raw
			}
			return h[i].AppendValue(room)
		}
	}
	return nil
}

// GetString is Get as a string without surrounding white space.
func (h Header) GetString(name string) string {
	return string(bytes.TrimSpace(h.Get(name)))
}

// Count returns the number of fields called name.
func (h Header) Count(name string) int {
	n := 0
	for i := range h {
		if ascii.EqualFold(h[i].Name, name) {
			n++
		}
	}
	return n
}

// Has says whether a field called name is present.
func (h Header) Has(name string) bool {
	for i := range h {
		if ascii.EqualFold(h[i].Name, name) {
			return true
		}
	}
	return false
}

// ReadHeader reads the header block at the start of b (RFC 5322 section
// 2.2) and returns its fields and the body after the empty line that ends
// it. It is lenient, as mail in the wild needs: LF and CRLF line ends alike,
// a line of blanks taken for the empty line, a parameter on an unindented
// line after "type;" joined to its field (a broken fold seen in
// Content-Type), an mbox "From " line at the very start skipped. A line that
// is neither a field nor a continuation ends the block, as does
// MaxHeaderFields (truncated is then set): the rest is taken as the body.
// body is nil when b ends inside the header.
func ReadHeader(b []byte) (h Header, body []byte, truncated bool) {
	return readHeaderCap(b, 16)
}

// readHeaderCap is ReadHeader with room for n fields to start with: MIME
// part headers have a handful, message headers dozens.
func readHeaderCap(b []byte, n int) (h Header, body []byte, truncated bool) {
	return readHeaderInto(b, make(Header, 0, n))
}

// readHeaderInto is ReadHeader appending the fields to h (empty).
func readHeaderInto(b []byte, h Header) (_ Header, body []byte, truncated bool) {
	i := 0
	if bytes.HasPrefix(b, []byte("From ")) {
		_, i = ascii.NextLine(b, 0)
	}
	skipping := false // the current field is past MaxHeaderFields
	for i < len(b) {
		line, next := ascii.NextLine(b, i)
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
		if colon <= 0 || !IsFieldName(trimBlankRight(line[:colon])) {
			if n := len(h); n > 0 && !skipping && bytes.HasSuffix(h[n-1].Raw, []byte(";")) && bytes.IndexByte(line, '=') > 0 {
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
		h = append(h, Field{
			Name: trimBlankRight(line[:colon]),
			Raw:  trimBlankRight(v),
			off:  start,
		})
		i = next
	}
	return h, nil, truncated
}

// maxLeadingBlank is how many blank lines headerStart passes over before
// a header: a few stray line ends, not a body that happens to start with
// empty lines.
const maxLeadingBlank = 8

// headerStart returns where the header of a whole message starts in raw:
// after the empty or blank lines (spaces, tabs, a CR) at its start when a
// header field (or an mbox "From " line) follows them, else 0. A message
// saved with a stray line end on top is still a message; text that starts
// with empty lines and then no field is a body. Only a whole message gets
// this: in a MIME part, an empty line first means "no header".
func headerStart(raw []byte) int {
	j := 0
	for n := 0; j < len(raw) && n <= maxLeadingBlank; n++ {
		line, next := ascii.NextLine(raw, j)
		if len(bytes.TrimSpace(line)) != 0 {
			if j > 0 && (isFieldLine(line) || bytes.HasPrefix(line, []byte("From "))) {
				return j
			}
			return 0
		}
		j = next
	}
	return 0
}

// isFieldLine says whether line starts a header field: a field name, then a colon.
func isFieldLine(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	return colon > 0 && IsFieldName(trimBlankRight(line[:colon]))
}

// extend makes f's value run to end, the end of a continuation line in b.
func extend(f *Field, b []byte, end int) {
	f.Raw = trimBlankRight(b[f.off:end])
	f.folded = true
}

// IsFieldName says whether b is a header field name: printable ASCII
// without colon or space (RFC 5322 section 2.2), at most 76 bytes (longer
// ones are text that happens to hold a colon).
func IsFieldName(b []byte) bool {
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

// trimBlankRight is bytes.TrimRight(b, " \t") without building a cut set
// at each call (it ran several times per header line).
func trimBlankRight(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t') {
		n--
	}
	return b[:n]
}
