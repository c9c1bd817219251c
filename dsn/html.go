package dsn

import "bytes"

// stripTags turns an HTML body into text: tags go, <br>, <p>, <div>, <tr>
// and <li> end lines, script and style contents go, and the common entities
// are decoded.
func stripTags(b []byte) []byte {
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
			name := tagName(tag)
			switch string(name) {
			case "br", "p", "/p", "div", "/div", "tr", "/tr", "li", "/li", "/h1", "/h2", "/h3", "/table", "/td":
				out = append(out, '\n')
			case "td":
				out = append(out, ' ')
			case "script", "style":
				closing := []byte("</" + string(name))
				if k := bytes.Index(toLower(b[i+end:]), closing); k >= 0 {
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

// tagName returns the lower-case name of an HTML tag, with a leading "/".
func tagName(tag []byte) []byte {
	n := 0
	for n < len(tag) && (isAlpha(tag[n]) || isDigit(tag[n]) || n == 0 && tag[n] == '/') {
		n++
	}
	return toLower(tag[:n])
}

// entities are the HTML character references bounces use.
var entities = map[string]string{
	"lt": "<", "gt": ">", "amp": "&", "quot": `"`, "apos": "'", "nbsp": " ", "#39": "'", "#34": `"`, "#160": " ",
}
