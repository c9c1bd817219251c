package decide

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// Header names ndrmilter writes; every incoming X-NDR-* header is removed
// (IsNDRHeader).
const (
	hdrPrefix      = "x-ndr-"
	hdrExplanation = "X-NDR-Explanation"
	hdrOwner       = "X-NDR-Owner"
	hdrBackscatter = "X-NDR-Backscatter"
	hdrStatus      = "X-NDR-Status"
)

// foldWidth is where lines are folded when there is white space (RFC 5322
// section 2.1.1 recommends 78); maxLine is the hard limit of that section.
const (
	foldWidth = 78
	maxLine   = 998
	// maxText bounds one piece of bounce text put in a header, in bytes.
	maxText = 600
	// maxWord is the longest word fold keeps whole: with a header name of up
	// to 90 octets the first line stays within maxLine.
	maxWord = 900
)

// fold folds the value of header name at white space so that lines stay
// within foldWidth where possible, and cuts any word that would make a line
// longer than maxLine. The result uses "\n\t" between lines, as the milter
// protocol expects, and contains no other control characters.
func fold(name, value string) string {
	var words []string
	for _, w := range strings.Fields(value) {
		// A word longer than a line may be is cut (only hostile input gets here).
		for len(w) > maxWord {
			words = append(words, w[:maxWord])
			w = w[maxWord:]
		}
		words = append(words, w)
	}
	var b strings.Builder
	lineLen := len(name) + 2 // "Name: "
	for i, w := range words {
		if i > 0 {
			if lineLen+1+len(w) > foldWidth {
				b.WriteString("\n\t")
				lineLen = 1
			} else {
				b.WriteByte(' ')
				lineLen++
			}
		}
		b.WriteString(w)
		lineLen += len(w)
	}
	return b.String()
}

// tokenChar reports whether c may appear in an unquoted parameter value of
// X-NDR-Status: RFC 2045 token characters plus "@", which addresses need and
// Authentication-Results allows in property values.
func tokenChar(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>,;:\"/[]?=`, rune(c))
}

// paramValue returns v as a token if it is one, else as an RFC 5322
// quoted-string with non-ASCII characters replaced by "?".
func paramValue(v string) string {
	v = textclean.Line(v, 320)
	tok := v != ""
	for i := 0; i < len(v) && tok; i++ {
		tok = tokenChar(v[i])
	}
	if tok {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x80:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// statusValue formats the X-NDR-Status parameters in the order given.
func statusValue(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(paramValue(kv[i+1]))
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// unfold joins a folded header value into one line.
func unfold(v string) string {
	v = strings.ReplaceAll(v, "\r", "")
	v = strings.ReplaceAll(v, "\n", "")
	return strings.ReplaceAll(v, "\x00", "")
}
