package dsn

import (
	"bytes"
	"strings"
)

// part is one leaf of a message's MIME tree (RFC 2045, RFC 2046), still
// encoded. Parts of type message/rfc822 are leaves too: their header is read
// for the original message, their body is not walked.
type part struct {
	mediaType string // lower case, "text/plain" when the part has no Content-Type
	params    ctParams
	cte       string // Content-Transfer-Encoding, lower case
	hdr       header
	body      []byte
	depth     int
}

// ctParams are the Content-Type parameters Parse cares about.
type ctParams struct {
	boundary   string
	charset    string // lower case
	reportType string // lower case
}

// parseContentType reads a Content-Type value (RFC 2045 section 5.1): the
// media type in lower case and the parameters Parse needs. A missing or
// unreadable value gives "text/plain".
func parseContentType(v []byte) (mediaType string, p ctParams) {
	v = bytes.TrimSpace(v)
	semi := bytes.IndexByte(v, ';')
	t := v
	if semi >= 0 {
		t = v[:semi]
	}
	t = bytes.TrimSpace(t)
	if sp := bytes.IndexAny(t, " \t"); sp > 0 {
		// "text/plain charset=x": a writer forgot the semicolon.
		t = t[:sp]
		semi = sp
	}
	if len(t) == 0 || bytes.IndexByte(t, '/') < 0 {
		mediaType = "text/plain"
	} else {
		mediaType = internFold(t, knownMediaTypes)
	}
	for semi >= 0 {
		v = v[semi+1:]
		// name
		eq := bytes.IndexByte(v, '=')
		if eq < 0 {
			break
		}
		name := bytes.TrimSpace(v[:eq])
		if k := bytes.LastIndexByte(name, ';'); k >= 0 {
			// An empty parameter ("a=b;; c=d").
			name = bytes.TrimSpace(name[k+1:])
		}
		v = bytes.TrimLeft(v[eq+1:], " \t")
		var val []byte
		if len(v) > 0 && v[0] == '"' {
			end := 1
			var buf []byte
			for end < len(v) && v[end] != '"' {
				if v[end] == '\\' && end+1 < len(v) {
					end++
				}
				buf = append(buf, v[end])
				end++
			}
			val = buf
			if end < len(v) {
				end++
			}
			v = v[end:]
			semi = bytes.IndexByte(v, ';')
		} else {
			semi = bytes.IndexByte(v, ';')
			if semi >= 0 {
				val = v[:semi]
			} else {
				val = v
			}
			val = bytes.TrimSpace(val)
		}
		switch {
		case equalFoldString(name, "boundary"):
			p.boundary = string(val)
		case equalFoldString(name, "charset"):
			p.charset = internFold(bytes.Trim(val, "'\" "), knownCharsets)
		case equalFoldString(name, "report-type"):
			p.reportType = lowerString(string(val))
		}
	}
	return mediaType, p
}

// mimeWalker walks a message's MIME tree into a flat list of leaf parts.
type mimeWalker struct {
	parts     []part
	truncated bool
	fields    *fieldArena // where the parts' headers go; nil allocates
}

// walk adds the leaves of the entity with header h and body b. Entities
// deeper than MaxDepth, and parts beyond MaxParts, are not read.
func (w *mimeWalker) walk(h header, b []byte, depth int) {
	if w.parts == nil && w.fields != nil {
		w.parts = w.fields.parts[:0]
	}
	if depth > MaxDepth || len(w.parts) >= MaxParts {
		w.truncated = true
		return
	}
	mt, params := parseContentType(h.get("Content-Type"))
	cte := internFold(bytes.TrimSpace(h.get("Content-Transfer-Encoding")), knownEncodings)
	if strings.HasPrefix(mt, "multipart/") {
		if params.boundary == "" {
			// RFC 2046 section 5.1.1 requires a boundary; read the body as text.
			mt = "text/plain"
		} else {
			subs, complete := splitMultipart(b, params.boundary)
			if !complete {
				w.truncated = true
			}
			if len(subs) > 0 {
				for _, s := range subs {
					sh, sb, tr := w.fields.parseHeader(s, 4)
					if tr {
						w.truncated = true
					}
					w.walk(sh, sb, depth+1)
				}
				return
			}
			// No boundary found at all: read the body as text.
			mt = "text/plain"
		}
	}
	w.parts = append(w.parts, part{mediaType: mt, params: params, cte: cte, hdr: h, body: b, depth: depth})
}

// splitMultipart cuts the body of a multipart entity at its boundary
// delimiters (RFC 2046 section 5.1.1) and returns the body parts. complete is
// false when the close delimiter is missing; the last part then runs to the
// end of the body.
func splitMultipart(b []byte, boundary string) (parts [][]byte, complete bool) {
	delim := make([]byte, 0, len(boundary)+2)
	delim = append(delim, "--"...)
	delim = append(delim, boundary...)
	start := -1 // start of the current part's content
	i := 0
	for i < len(b) {
		k := bytes.Index(b[i:], delim)
		if k < 0 {
			break
		}
		k += i
		if k > 0 && b[k-1] != '\n' {
			// Not at the start of a line.
			i = k + len(delim)
			continue
		}
		after := k + len(delim)
		closing := bytes.HasPrefix(b[after:], []byte("--"))
		// The rest of the delimiter line is transport padding.
		_, next := nextLine(b, after)
		if start >= 0 {
			end := k
			// The line end before the delimiter belongs to it.
			if end > start && b[end-1] == '\n' {
				end--
				if end > start && b[end-1] == '\r' {
					end--
				}
			}
			parts = append(parts, b[start:end])
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
		parts = append(parts, b[start:])
	}
	return parts, false
}

// knownMediaTypes and knownCharsets are the common values, returned
// without allocating by internFold.
var (
	knownMediaTypes = []string{
		"text/plain", "text/html", "multipart/mixed", "multipart/report", "multipart/alternative",
		"multipart/related", "message/delivery-status", "message/rfc822", "text/rfc822-headers",
		"message/global-delivery-status", "message/global", "message/global-headers",
		"message/feedback-report", "message/disposition-notification", "application/octet-stream",
	}
	knownEncodings = []string{"7bit", "8bit", "base64", "quoted-printable", "binary"}
	knownCharsets  = []string{
		"us-ascii", "utf-8", "iso-8859-1", "iso-2022-jp", "shift_jis", "euc-jp", "windows-1252",
		"iso-8859-15", "koi8-r", "windows-1251", "gb2312", "big5", "ks_c_5601-1987",
	}
)

// internFold returns the entry of known equal to b without regard to
// case, or b in lower case.
func internFold(b []byte, known []string) string {
	for _, k := range known {
		if equalFoldString(b, k) {
			return k
		}
	}
	return string(toLower(b))
}
