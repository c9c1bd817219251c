package message

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Decode returns the body of p decoded from its transfer encoding (RFC 2045
// section 6: base64 and quoted-printable) and converted to UTF-8 from its
// charset (any golang.org/x/text knows), cut at limit bytes; cut says
// whether it was. Only as much of the encoded body as limit needs is read.
// Decoding is lenient: characters outside the base64 alphabet are skipped,
// a malformed quoted-printable escape is kept as it is, and text in an
// unknown charset, or that its charset cannot decode, is passed through as
// it is: a best-effort reading beats none. The result may be a slice of the
// message; it must not be changed.
func (p *Part) Decode(limit int) (b []byte, cut bool) {
	b = p.Body
	switch p.TransferEncoding {
	case "base64":
		if n := limit*4/3 + 4096; len(b) > n {
			b, cut = b[:n], true
		}
		b = appendBase64(make([]byte, 0, len(b)*3/4), b)
	case "quoted-printable":
		if n := 3*limit + 4096; len(b) > n {
			b, cut = b[:n], true
		}
		b = decodeQP(b)
	}
	if len(b) > limit {
		b, cut = b[:limit], true
	}
	return toUTF8(b, p.Charset), cut
}

// appendBase64 appends base64 text b, decoded leniently, to out:
// characters outside the alphabet (line ends, white space, garbage) are
// skipped and decoding stops at the padding.
func appendBase64[T string | []byte](out []byte, b T) []byte {
	var acc uint32
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		var v byte
		switch {
		case 'A' <= c && c <= 'Z':
			v = c - 'A'
		case 'a' <= c && c <= 'z':
			v = c - 'a' + 26
		case '0' <= c && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			// Padding ends a group; what follows may be a new stream of
			// concatenated base64 from a broken writer, keep reading.
			switch n {
			case 2:
				out = append(out, byte(acc>>4))
			case 3:
				out = append(out, byte(acc>>10), byte(acc>>2))
			}
			acc, n = 0, 0
			continue
		default:
			continue
		}
		acc = acc<<6 | uint32(v)
		n++
		if n == 4 {
			out = append(out, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(acc>>4))
	case 3:
		out = append(out, byte(acc>>10), byte(acc>>2))
	}
	return out
}

// decodeQP decodes quoted-printable (RFC 2045 section 6.7) leniently: a
// malformed escape is kept as it is.
func decodeQP(b []byte) []byte {
	if bytes.IndexByte(b, '=') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '=' {
			// Copy the plain run up to the next "=" whole.
			k := bytes.IndexByte(b[i:], '=')
			if k < 0 {
				out = append(out, b[i:]...)
				break
			}
			out = append(out, b[i:i+k]...)
			i += k
		}
		c := b[i] // '='
		// Soft line break: "=" then optional white space and the line end.
		j := i + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		if j < len(b) && (b[j] == '\n' || b[j] == '\r') {
			if b[j] == '\r' && j+1 < len(b) && b[j+1] == '\n' {
				j++
			}
			i = j
			continue
		}
		if j == len(b) {
			i = j
			continue
		}
		if i+2 < len(b) {
			h, ok1 := ascii.Unhex(b[i+1])
			l, ok2 := ascii.Unhex(b[i+2])
			if ok1 && ok2 {
				out = append(out, h<<4|l)
				i += 2
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// toUTF8 converts b from charset to UTF-8 through golang.org/x/text. ASCII
// text, UTF-8 and unknown charsets are returned as they are (an unknown
// charset is most often a mislabelled ASCII or UTF-8 text).
func toUTF8(b []byte, charset string) []byte {
	switch charset {
	case "", "us-ascii", "utf-8", "utf8", "ascii":
		return b
	}
	if !needsConversion(b) {
		return b
	}
	enc := lookupCharset(charset)
	if enc == nil {
		return b
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return b
	}
	return out
}

// needsConversion says whether b has bytes that a charset could change:
// 8-bit bytes, or the escape that starts ISO-2022 shifts.
func needsConversion(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 || c == 0x1b {
			return true
		}
	}
	return false
}
