package decide

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// RFC 2047 encoded words for header values that are not ASCII.
//
// An explanation in German or Japanese is not ASCII, and a header field must
// be (RFC 5322 section 2.2). Its words that are not ASCII become encoded
// words (RFC 2047 section 2), "=?utf-8?q?f=C3=BCr?=": each at most 75
// octets, never split inside a UTF-8 sequence (section 5, rule 3), in the Q
// encoding, which keeps mostly-Latin text readable, unless B is less than
// two thirds of its length (Japanese: B is under half of Q). Words that are ASCII stay
// as they are, so that an address or a code in the text stays readable and
// searchable. Adjacent words that need encoding are encoded as one run, the
// space between them inside the encoded text: white space between two
// encoded words is dropped by a decoder (section 6.2), white space between
// an encoded word and plain text is kept.
//
// The value is folded as it is built: an encoded word is cut to what fits on
// the line, so that every line stays within foldWidth (78) octets, the
// header name included on the first line. Only a plain word longer than a
// line (hostile input) makes a line longer, and fold's maxWord still keeps
// it within maxLine (998).

const (
	maxEncodedWord = 75 // RFC 2047 section 2
	// wordOverhead is "=?utf-8?q?" and "?=".
	wordOverhead = len("=?utf-8?q?") + len("?=")
	// minEncodedRoom is the room worth starting an encoded word in, at the
	// end of a line: less, and the word starts on the next line.
	minEncodedRoom = wordOverhead + 12
)

// encodeValue returns text, one line of printable UTF-8, as the value of the
// unstructured header field name (RFC 5322 section 3.2.5), folded with "\n\t"
// between lines. tail, when not empty, follows text after a space as it is:
// a value already in header form, such as the Subject a bounce came with.
// ASCII text is folded exactly as fold folds it.
func encodeValue(name, text, tail string) string {
	words := strings.Fields(text)
	plain := true
	for _, w := range words {
		if needsEncoding(w) {
			plain = false
			break
		}
	}
	if plain {
		if tail != "" {
			return fold(name, strings.TrimSpace(text+" "+tail))
		}
		return fold(name, text)
	}
	tailWords := strings.Fields(tail)
	l := lineWriter{lineLen: len(name) + 2}
	for i := 0; i < len(words); {
		if !needsEncoding(words[i]) {
			l.plain(words[i])
			i++
			continue
		}
		j := i + 1
		for j < len(words) && needsEncoding(words[j]) {
			j++
		}
		run := strings.Join(words[i:j], " ")
		if j == len(words) && len(tailWords) > 0 && strings.HasPrefix(tailWords[0], "=?") {
			// The tail starts with an encoded word: the space between our
			// last encoded word and it would be dropped, so it goes inside.
			run += " "
		}
		l.encoded(run)
		i = j
	}
	for _, w := range tailWords {
		l.plain(w)
	}
	return l.b.String()
}

// needsEncoding reports whether a word of a header value must be an encoded
// word: it is not ASCII, or it would read as one ("=?...?=").
func needsEncoding(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return true
		}
	}
	return strings.Contains(w, "=?")
}

// lineWriter lays out the words of a header value on folded lines.
type lineWriter struct {
	b       strings.Builder
	lineLen int  // octets on the current line, the header name included
	started bool // a word is on the current line
}

// space starts the next word: on this line after a space when n more
// octets fit within foldWidth, else on a new line.
func (l *lineWriter) space(n int) {
	if !l.started && l.b.Len() == 0 {
		return
	}
	if l.lineLen+1+n > foldWidth {
		l.b.WriteString("\n\t")
		l.lineLen = 1
		return
	}
	l.b.WriteByte(' ')
	l.lineLen++
}

// plain writes an ASCII word, cut into pieces of maxWord as fold cuts it.
func (l *lineWriter) plain(w string) {
	for len(w) > maxWord {
		l.plain(w[:maxWord])
		w = w[maxWord:]
	}
	l.space(len(w))
	l.b.WriteString(w)
	l.lineLen += len(w)
	l.started = true
}

// encoded writes run as one or more encoded words, each cut to the room
// left on its line.
func (l *lineWriter) encoded(run string) {
	// Q unless B is much shorter: Q keeps Latin text readable.
	b := 2*qLen(run) > 3*bLen(len(run))
	prefix := "=?utf-8?q?"
	if b {
		prefix = "=?utf-8?b?"
	}
	for run != "" {
		room := foldWidth - l.lineLen - 1
		if !l.started && l.b.Len() == 0 {
			room = foldWidth - l.lineLen
		}
		if room < minEncodedRoom && (l.started || l.b.Len() > 0) {
			l.b.WriteString("\n\t")
			l.lineLen, room = 1, foldWidth-1
		} else if l.started || l.b.Len() > 0 {
			l.b.WriteByte(' ')
			l.lineLen++
		}
		room = min(room, maxEncodedWord) - wordOverhead
		n := fitting(run, room, b)
		var word string
		if b {
			word = prefix + base64.StdEncoding.EncodeToString([]byte(run[:n])) + "?="
		} else {
			word = prefix + qEncode(run[:n]) + "?="
		}
		l.b.WriteString(word)
		l.lineLen += len(word)
		l.started = true
		run = run[n:]
	}
}

// fitting returns how many bytes of s, whole runes and at least one, encode
// within room octets.
func fitting(s string, room int, b bool) int {
	n, size := 0, 0
	for n < len(s) {
		_, w := utf8.DecodeRuneInString(s[n:])
		next := size
		if b {
			next = bLen(n + w)
		} else {
			next += qLen(s[n : n+w])
		}
		if next > room && n > 0 {
			break
		}
		n += w
		size = next
	}
	return n
}

// bLen is the length of n bytes in base64.
func bLen(n int) int { return (n + 2) / 3 * 4 }

// qLen is the length of s in the Q encoding.
func qLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if qSafe(s[i]) || s[i] == ' ' {
			n++
		} else {
			n += 3
		}
	}
	return n
}

// qSafe reports whether c stands for itself in the Q encoding of an
// unstructured field (RFC 2047 section 4.2): printable ASCII but "=", "?"
// and "_".
func qSafe(c byte) bool {
	return c > ' ' && c <= '~' && c != '=' && c != '?' && c != '_'
}

// qEncode writes s in the Q encoding: a space as "_", other bytes that are
// not qSafe as "=XX".
func qEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('_')
		case qSafe(c):
			b.WriteByte(c)
		default:
			b.WriteByte('=')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
