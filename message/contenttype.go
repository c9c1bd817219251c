package message

import (
	"bytes"
	"unsafe"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// ContentType is what a Content-Type field says (RFC 2045 section 5.1), as
// far as a reader of the text needs.
type ContentType struct {
	MediaType string // type/subtype in lower case, "text/plain" when the field is missing or unreadable
	Boundary  string // the multipart boundary (RFC 2046 section 5.1.1), as written
	Charset   string // lower case, "" when not given
}

// ParseContentType reads a Content-Type value leniently: a missing value,
// or one without a type/subtype, gives "text/plain" (RFC 2045 section 5.2);
// a missing semicolon before the parameters, empty parameters ("a=b;; c=d")
// and quotes around a charset are accepted.
func ParseContentType(v []byte) ContentType {
	ct, boundary := parseContentType(v)
	ct.Boundary = string(boundary)
	return ct
}

// parseContentType is ParseContentType with the boundary parameter
// returned apart, as a slice of v (or of a copy when it had quoted pairs),
// not copied into ct: a multipart's boundary is used while splitting it,
// then dropped (see walker.walk).
func parseContentType(v []byte) (ct ContentType, boundary []byte) {
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
		ct.MediaType = "text/plain"
	} else {
		ct.MediaType = internFold(t, knownMediaTypes)
	}
	for semi >= 0 {
		v = v[semi+1:]
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
			// A quoted-string (RFC 2045 section 5.1, RFC 5322 section 3.2.4).
			end := 1
			quotedPair := false
			for end < len(v) && v[end] != '"' {
				if v[end] == '\\' && end+1 < len(v) {
					end++
					quotedPair = true
				}
				end++
			}
			// Without a quoted pair, the value is the text between the
			// quotes: no copy.
			val = v[1:min(end, len(v))]
			if quotedPair {
				var buf []byte
				for k := 1; k < len(v) && v[k] != '"'; k++ {
					if v[k] == '\\' && k+1 < len(v) {
						k++
					}
					buf = append(buf, v[k])
				}
				val = buf
			}
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
		case ascii.EqualFold(name, "boundary"):
			boundary = val
		case ascii.EqualFold(name, "charset"):
			ct.Charset = internFold(bytes.Trim(val, "'\" "), knownCharsets)
		}
	}
	return ct, boundary
}

// knownMediaTypes, knownEncodings and knownCharsets are the common values,
// returned without allocating by internFold.
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
		if ascii.EqualFold(b, k) {
			return k
		}
	}
	low := ascii.ToLower(b) // its own array, which becomes the string
	return unsafe.String(unsafe.SliceData(low), len(low))
}
