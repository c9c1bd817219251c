package message

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Message is a message read into its header and the leaves of its MIME tree
// (RFC 2045, RFC 2046). Its slices point into the bytes read, and into the
// Arena that read it, if any: they are valid until the Arena is released.
type Message struct {
	Header Header
	// Parts are the leaves of the MIME tree in the order written: the
	// message itself when it is not multipart, else the parts of its
	// multiparts, depth first. A part of type message/rfc822 is a leaf: its
	// body is not walked.
	Parts []Part
	// Truncated is set when a cap (MaxDepth, MaxParts, MaxHeaderFields) or a
	// missing close delimiter cut the reading short.
	Truncated bool
}

// Part is one leaf of a message's MIME tree, still encoded.
type Part struct {
	// ContentType is the part's, except that a multipart that cannot be
	// split (no boundary parameter, or no delimiter in its body) is read as
	// text: its MediaType is then "text/plain", as RFC 2045 section 5.2
	// reads an unusable Content-Type.
	ContentType
	TransferEncoding string // Content-Transfer-Encoding in lower case, "" when not given
	Header           Header // the part's own header; the message's for a single-part message
	Body             []byte // the body as written (see Decode), a slice of the message
	Offset           int    // where Body starts in the message
	Depth            int    // 0 for the message itself, 1 for the parts of its multipart...
}

// Read reads raw (an RFC 5322 message, LF or CRLF line ends) into its
// header and MIME tree, leniently: see ReadHeader for the header, and
// Message.Truncated for a multipart without its close delimiter, whose last
// part then runs to the end. Empty or blank lines before the header are
// passed over when a header field follows them. It copies nothing: the
// bodies are slices of raw, decoded on demand by Part.Decode.
func Read(raw []byte) Message {
	return (*Arena)(nil).Read(raw)
}

// Read is the package's Read with the fields and parts in the arena (a nil
// Arena allocates).
func (a *Arena) Read(raw []byte) Message {
	var m Message
	n := 16
	if a != nil {
		// Room for a message header in the arena's array; its spare room
		// is where the parts' fields go.
		n = 48
	}
	h, body, truncated := a.readHeader(raw[headerStart(raw):], n)
	m.Header = h
	w := walker{arena: a}
	if a != nil {
		w.parts = a.parts[:0]
	}
	w.walk(h, body, len(raw)-len(body), 0)
	if a != nil {
		a.parts = w.parts // the grown array, for the next message
	}
	m.Parts, m.Truncated = w.parts, truncated || w.truncated
	return m
}

// walker walks a message's MIME tree into a flat list of leaf parts.
type walker struct {
	parts     []Part
	truncated bool
	arena     *Arena // where the parts' headers go; nil allocates
}

// walk adds the leaves of the entity with header h and body b, which starts
// at off in the message. Entities deeper than MaxDepth, and parts beyond
// MaxParts, are not read.
func (w *walker) walk(h Header, b []byte, off, depth int) {
	if depth > MaxDepth || len(w.parts) >= MaxParts {
		w.truncated = true
		return
	}
	// A folded Content-Type is unfolded on the stack: what ct keeps is
	// copied (or a known value), the boundary is used here and dropped.
	var ctRoom [256]byte
	ct, boundary := parseContentType(h.getInto(ctRoom[:0], "Content-Type"))
	cte := internFold(bytes.TrimSpace(h.Get("Content-Transfer-Encoding")), knownEncodings)
	if strings.HasPrefix(ct.MediaType, "multipart/") {
		if len(boundary) == 0 {
			// RFC 2046 section 5.1.1 requires a boundary; read the body as text.
			ct.MediaType = "text/plain"
		} else {
			// A multipart has a few parts: their places stay on the stack.
			var room [8]span
			spans, complete := splitMultipart(room[:0], b, boundary)
			if !complete {
				w.truncated = true
			}
			if len(spans) > 0 {
				for _, s := range spans {
					pb := b[s.start:s.end]
					sh, sb, tr := w.arena.readHeader(pb, 4)
					if tr {
						w.truncated = true
					}
					w.walk(sh, sb, off+s.end-len(sb), depth+1)
				}
				return
			}
			// No boundary found at all: read the body as text.
			ct.MediaType = "text/plain"
		}
	}
	ct.Boundary = string(boundary) // a leaf: rarely one
	w.parts = append(w.parts, Part{ContentType: ct, TransferEncoding: cte, Header: h, Body: b, Offset: off, Depth: depth})
}

// span is a body part's place in a multipart body: [start, end).
type span struct{ start, end int }

// splitMultipart cuts the body of a multipart entity at its boundary
// delimiters (RFC 2046 section 5.1.1) and appends to parts where the body
// parts are.
// A delimiter counts only at the start of a line; the rest of its line is
// transport padding. complete is false when the close delimiter is missing;
// the last part then runs to the end of the body. At most MaxParts parts are
// returned (complete is then false).
func splitMultipart(parts []span, b []byte, boundary []byte) (_ []span, complete bool) {
	// RFC 2046 section 5.1.1: a boundary has at most 70 characters.
	var room [72]byte
	delim := append(room[:0], "--"...)
	delim = append(delim, boundary...)
	// The delimiter is looked for by the boundary without its leading
	// dashes: a search looks for the first byte of what it is given
	// first, and a dash starts every delimiter and many lines of a body
	// (rules, "-----Original Message-----"), while the rest of a boundary
	// is rare (issue 14: a tenth of parsing, most of it in false starts).
	core := bytes.TrimLeft(delim, "-")
	off := len(delim) - len(core)
	start := -1 // start of the current part's content
	i := 0
	for i < len(b) {
		k := indexDelimiter(b, i, delim, core, off)
		if k < 0 {
			break
		}
		if k > 0 && b[k-1] != '\n' {
			// Not at the start of a line.
			i = k + len(delim)
			continue
		}
		after := k + len(delim)
		closing := bytes.HasPrefix(b[after:], []byte("--"))
		_, next := ascii.NextLine(b, after)
		if start >= 0 {
			end := k
			// The line end before the delimiter belongs to it.
			if end > start && b[end-1] == '\n' {
				end--
				if end > start && b[end-1] == '\r' {
					end--
				}
			}
			parts = append(parts, span{start, end})
			if len(parts) >= MaxParts {
				return parts, false
			}
		}
		if closing {
			return parts, true
		}
		start = next
		i = next
	}
	if start >= 0 && start <= len(b) {
		parts = append(parts, span{start, len(b)})
	}
	return parts, false
}

// indexDelimiter returns the index of the first delim in b at or after i,
// -1 when there is none. core is delim without its first off bytes, all
// dashes; when it is empty delim is looked for whole.
func indexDelimiter(b []byte, i int, delim, core []byte, off int) int {
	if len(core) == 0 {
		if k := bytes.Index(b[i:], delim); k >= 0 {
			return k + i
		}
		return -1
	}
	for from := i + off; from < len(b); {
		j := bytes.Index(b[from:], core)
		if j < 0 {
			return -1
		}
		k := from + j - off
		if bytes.HasPrefix(b[k:], delim) {
			return k
		}
		from += j + 1
	}
	return -1
}
