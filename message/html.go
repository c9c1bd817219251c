package message

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// HTMLText turns an HTML body into text for reading, not for display:
// tags go, <br>, <p>, <div>, <tr>, <li> and the ends of headings and tables
// end lines, the contents of <script> and <style> go, and the character
// references bounces use are decoded. It is not an HTML parser: a tag left
// open at the end ends the text.
func HTMLText(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '<':
			end := bytes.IndexByte(b[i:], '>')
			if end < 0 {
				return out
			}
			tag := b[i+1 : i+end]
			var nameBuf [16]byte
			name := tagName(nameBuf[:0], tag)
			switch string(name) {
			case "br", "p", "/p", "div", "/div", "tr", "/tr", "li", "/li", "/h1", "/h2", "/h3", "/table", "/td":
				out = append(out, '\n')
			case "td":
				out = append(out, ' ')
			case "script", "style":
				if k := indexCloseTag(b[i+end:], string(name)); k >= 0 {
					i += end + k
					if e := bytes.IndexByte(b[i:], '>'); e >= 0 {
						i += e
					}
					continue
				}
			}
			i += end
		case '&':
			semi := bytes.IndexByte(b[i:], ';')
			if semi > 1 && semi < 10 {
				if r, ok := entities[string(b[i+1:i+semi])]; ok {
					out = append(out, r...)
					i += semi
					continue
				}
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// tagName appends to dst the lower-case name of an HTML tag, with a
// leading "/" (dst has room for the names HTMLText acts on, so it need not
// allocate).
func tagName(dst, tag []byte) []byte {
	n := 0
	for n < len(tag) && (ascii.IsAlpha(tag[n]) || ascii.IsDigit(tag[n]) || n == 0 && tag[n] == '/') {
		n++
	}
	for _, c := range tag[:n] {
		dst = append(dst, ascii.Lower(c))
	}
	return dst
}

// indexCloseTag returns the index in b of the closing tag "</name" in any
// case (name in lower case), or -1. It reads b in place: lower-casing the
// rest of the body for each <style> made a copy of it each time.
func indexCloseTag(b []byte, name string) int {
	for from := 0; ; {
		k := bytes.Index(b[from:], []byte("</"))
		if k < 0 {
			return -1
		}
		k += from
		if ascii.HasPrefixFold(string(b[k+2:min(len(b), k+2+len(name))]), name) {
			return k
		}
		from = k + 2
	}
}

// entities are the HTML character references bounces use.
var entities = map[string]string{
	"lt": "<", "gt": ">", "amp": "&", "quot": `"`, "apos": "'", "nbsp": " ", "#39": "'", "#34": `"`, "#160": " ",
}
