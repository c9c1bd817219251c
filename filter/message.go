package filter

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// maxHeaderBytes bounds the header section kept to apply a decision. A
// longer header (only hostile or broken mail has one: Postfix's own
// header_size_limit is 100 KiB) passes unannotated, its X-NDR-* fields
// still removed as it streams (passTail).
const maxHeaderBytes = frontend.MaxHeaderBytes

// head is the start of a message as the filter keeps it to decide: the
// header section and, for a possible report, the body up to the parse cap.
// The rest of the message stays in the reader and streams through.
type head struct {
	raw    []byte  // what was read
	fields []field // the header fields, contiguous from raw[0] to raw[hdrEnd]
	hdrEnd int     // end of the header fields: the empty line or the first body line starts here
	bodyAt int     // start of the body (after the empty line, if there is one)
	// complete: raw holds the whole message.
	complete bool
	// oversize: the header did not end within maxHeaderBytes, or holding
	// more of it would have gone over the budget; raw holds its start, the
	// last field perhaps cut (lineOpen: in mid-line).
	oversize bool
	lineOpen bool
	// unread: holding the text for parsing would have gone over the
	// budget: the message passes unread (raw holds the header only).
	unread bool
	// autoReply: kept because its header marks it as an automatic reply
	// (keepsAutoReply), not as a possible report.
	autoReply bool
}

// field is one header field: raw[start:end], its lines and line endings.
type field struct {
	start, end int
	name       string // as sent, "" for a line that is not a field
}

// readHead reads the header section of a message from r and, when keep,
// the body too until raw holds parseCap bytes, within what hold may take of
// the budget: a header it cannot hold is oversize (passed on as it
// streams), a body it cannot hold is left unread.
func readHead(r *bufio.Reader, keep bool, parseCap int, hold *frontend.Hold) (*head, error) {
	// Room for a common header at once, rather than grown from a few bytes.
	h := &head{raw: make([]byte, 0, initialHeadBuffer), fields: make([]field, 0, initialHeadFields)}
	lineStart, inHeader := true, true
	for inHeader {
		if len(h.raw) >= maxHeaderBytes || !hold.Grow(len(h.raw)+r.Buffered()) {
			h.oversize, h.lineOpen = true, !lineStart
			h.hdrEnd, h.bodyAt = len(h.raw), len(h.raw)
			return h, nil
		}
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			if lineStart {
				kind, name := classifyLine(chunk)
				switch kind {
				case lineField:
					h.fields = append(h.fields, field{start: len(h.raw), name: name})
				case lineContinuation:
					if len(h.fields) == 0 {
						inHeader = false
					}
				default: // the empty line, or body without one
					inHeader = false
				}
				if !inHeader {
					h.hdrEnd = len(h.raw)
					if kind == lineEmpty {
						h.bodyAt = len(h.raw) + len(chunk)
					} else {
						h.bodyAt = len(h.raw)
					}
				}
			}
			h.raw = append(h.raw, chunk...)
			if inHeader {
				h.fields[len(h.fields)-1].end = len(h.raw)
			}
			lineStart = chunk[len(chunk)-1] == '\n'
		}
		switch {
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			if inHeader {
				h.hdrEnd, h.bodyAt = len(h.raw), len(h.raw)
			}
			h.complete = true
			return h, nil
		default:
			return nil, err
		}
	}
	if !keep {
		if _, err := r.Peek(1); errors.Is(err, io.EOF) {
			h.complete = true
		} else if err != nil {
			return nil, err
		}
		return h, nil
	}
	if err := h.keepBody(r, parseCap, hold); err != nil {
		return nil, err
	}
	return h, nil
}

// keepBody reads the body after the header readHead read, until raw holds
// parseCap bytes, within what hold may take of the budget (past it the
// message is unread).
func (h *head) keepBody(r *bufio.Reader, parseCap int, hold *frontend.Hold) error {
	if h.complete {
		return nil
	}
	for len(h.raw) < parseCap {
		// Grown as the text comes: a small report takes little.
		want := min(parseCap, max(2*len(h.raw), len(h.raw)+r.Buffered(), minReportBuffer))
		if !hold.Grow(want) {
			h.unread = true
			break
		}
		h.raw = growTo(h.raw, want)
		n, err := io.ReadFull(r, h.raw[len(h.raw):want])
		h.raw = h.raw[:len(h.raw)+n]
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			h.complete = true
			return nil
		case err != nil:
			return err
		}
	}
	if _, err := r.Peek(1); errors.Is(err, io.EOF) {
		h.complete = true
	} else if err != nil {
		return err
	}
	return nil
}

// initialHeadBuffer is what the header is read into at first: most
// headers (a few Received fields and the usual ones) fit.
const initialHeadBuffer = 4 << 10

// initialHeadFields is the number of fields there is room for at first.
const initialHeadFields = 24

// minReportBuffer is the least a report's text is grown to: most reports
// are a few kilobytes, read in one or two steps.
const minReportBuffer = 16 << 10

func growTo(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	nb := make([]byte, len(b), n)
	copy(nb, b)
	return nb
}

type lineKind int

const (
	lineField        lineKind = iota // "Name: value"
	lineContinuation                 // starts with white space: folded
	lineEmpty                        // ends the header
	lineOther                        // not a header line: the body starts here
)

// classifyLine says what a line starting the given bytes is in a header,
// as Postfix's cleanup reads it: a field name is printable ASCII other than
// ":", optionally followed by white space, then ":" (RFC 5322 section 2.2).
func classifyLine(b []byte) (lineKind, string) {
	switch {
	case len(b) == 0 || b[0] == '\n' || (b[0] == '\r' && len(b) > 1 && b[1] == '\n'):
		return lineEmpty, ""
	case b[0] == ' ' || b[0] == '\t':
		return lineContinuation, ""
	}
	i := 0
	for i < len(b) && b[i] > ' ' && b[i] < 0x7f && b[i] != ':' {
		i++
	}
	n := i
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if n == 0 || i >= len(b) || b[i] != ':' {
		return lineOther, ""
	}
	return lineField, fieldName(b[:n])
}

// fieldName is b as a string, without a copy for the names most fields
// have (every field of every message has its name read).
func fieldName(b []byte) string {
	switch string(b) { // compared without a conversion
	case "Received":
		return "Received"
	case "From":
		return "From"
	case "To":
		return "To"
	case "Cc":
		return "Cc"
	case "Date":
		return "Date"
	case "Subject":
		return "Subject"
	case "Message-Id":
		return "Message-Id"
	case "Message-ID":
		return "Message-ID"
	case "MIME-Version":
		return "MIME-Version"
	case "Content-Type":
		return "Content-Type"
	case "Content-Transfer-Encoding":
		return "Content-Transfer-Encoding"
	case "Return-Path":
		return "Return-Path"
	case "Reply-To":
		return "Reply-To"
	case "DKIM-Signature":
		return "DKIM-Signature"
	case "Authentication-Results":
		return "Authentication-Results"
	}
	return string(b)
}

// value returns a field's value: after the colon, leading white space and
// the final line ending removed, folding kept.
func (h *head) value(f field) string {
	v := h.raw[f.start:f.end]
	if i := bytes.IndexByte(v, ':'); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimRight(strings.TrimLeft(string(v), " \t"), "\r\n")
}

// messageID is the normalised first Message-ID of the header.
func (h *head) messageID() string {
	for _, f := range h.fields {
		if strings.EqualFold(f.name, "Message-ID") {
			return ledger.NormalizeMessageID(h.value(f))
		}
	}
	return ""
}

// facts gathers what decide.Inbound needs from the header and the kept
// text (the first parseCap bytes are what a report is read from).
func (h *head) facts(parseCap int) decide.Facts {
	var f decide.Facts
	counts := make(map[string]int)
	for _, fl := range h.fields {
		switch {
		case decide.IsNDRHeader(fl.name):
			l := strings.ToLower(fl.name)
			counts[l]++
			f.Incoming = append(f.Incoming, decide.Header{Name: fl.name, Index: counts[l]})
		case strings.EqualFold(fl.name, "Subject") && !f.HasSubject:
			f.Subject, f.HasSubject = h.value(fl), true
		}
	}
	f.Raw, f.Truncated = h.raw, !h.complete
	if len(f.Raw) > parseCap {
		f.Raw, f.Truncated = f.Raw[:parseCap], true
	}
	return f
}

// write writes the message start with the Outcome applied: fields deleted
// and changed in place, fields added at the end of the header, and the body
// replaced when out.Body is set (only for a complete message). Values in
// the Outcome are folded with "\n\t"; here lines end in CRLF.
func (h *head) write(w io.Writer, out *decide.Outcome) error {
	if len(out.Delete) == 0 && len(out.Change) == 0 && len(out.Add) == 0 && out.Body == nil {
		// Nothing to change (most mail): the fields run from raw[0] to
		// raw[hdrEnd], and the rest follows.
		_, err := w.Write(h.raw)
		return err
	}
	drop := make(map[int]bool)
	change := make(map[int]string)
	for _, d := range out.Delete {
		if i := h.nth(d.Name, d.Index); i >= 0 {
			drop[i] = true
		}
	}
	for _, c := range out.Change {
		if i := h.nth(c.Name, c.Index); i >= 0 {
			change[i] = c.Name + ": " + crlf(c.Value) + "\r\n"
		}
	}
	var b bytes.Buffer
	b.Grow(h.hdrEnd + 2048)
	for i, f := range h.fields {
		switch {
		case drop[i]:
		case change[i] != "":
			b.WriteString(change[i])
		default:
			b.Write(h.raw[f.start:f.end])
		}
	}
	if len(out.Add) > 0 {
		if n := b.Len(); n > 0 && b.Bytes()[n-1] != '\n' {
			b.WriteString("\r\n") // a last header line cut by the end of the message
		}
		for _, a := range out.Add {
			b.WriteString(a.Name + ": " + crlf(a.Value) + "\r\n")
		}
	}
	if out.Body != nil && h.complete && h.bodyAt > h.hdrEnd {
		b.Write(h.raw[h.hdrEnd:h.bodyAt])
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
		_, err := w.Write(out.Body)
		return err
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(h.raw[h.hdrEnd:])
	return err
}

// nth returns the index of the n-th field (from 1) named name, any case; -1
// when there is none.
func (h *head) nth(name string, n int) int {
	for i, f := range h.fields {
		if strings.EqualFold(f.name, name) {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}

func crlf(v string) string { return strings.ReplaceAll(v, "\n\t", "\r\n\t") }

// passOversize writes a message whose header did not end within
// maxHeaderBytes: no field is added or changed (the message is not read),
// but every X-NDR-* field is left out, those kept and those still to come.
func (h *head) passOversize(w io.Writer, r *bufio.Reader) error {
	dropping := false
	for _, f := range h.fields {
		dropping = decide.IsNDRHeader(f.name)
		if !dropping {
			if _, err := w.Write(h.raw[f.start:f.end]); err != nil {
				return err
			}
		}
	}
	return passTail(w, r, !h.lineOpen, dropping)
}

// passTail streams the rest of a header from r, leaving out X-NDR-* fields
// (dropping: the field in progress is one), then the body as it is.
func passTail(w io.Writer, r *bufio.Reader, lineStart, dropping bool) error {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			if lineStart {
				switch kind, name := classifyLine(chunk); kind {
				case lineField:
					dropping = decide.IsNDRHeader(name)
				case lineContinuation:
				default:
					if _, err := w.Write(chunk); err != nil {
						return err
					}
					_, err := r.WriteTo(w)
					return err
				}
			}
			if !dropping {
				if _, err := w.Write(chunk); err != nil {
					return err
				}
			}
			lineStart = chunk[len(chunk)-1] == '\n'
		}
		switch {
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
