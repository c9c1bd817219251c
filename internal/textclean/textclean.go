// Package textclean makes untrusted text safe for the place it is written
// to. Every byte of a bounce is hostile: its addresses, host names and
// diagnostics go into header fields (X-NDR-*), plain ASCII explanations,
// a terminal (ndrmilter explain) and JSON, and each of those places has its
// own way of being broken: a CR LF that starts a new header field, an
// escape sequence that rewrites the screen, invalid UTF-8 that a JSON
// encoder turns into something else.
//
// It is the one home of those rules, used by dsn, rules, milter and the
// command. It is a package of its own, not part of package message, because
// it writes where message reads, and because rules and the command need it
// without a MIME reader.
package textclean

import (
	"mime"
	"strings"
	"unicode/utf8"
)

// UTF8 returns s with each run of invalid UTF-8 replaced by U+FFFD, so that
// JSON built from it says what was there (encoding/json would replace each
// byte on its own) and header values built from it stay well-formed.
func UTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Line makes s one line of printable text for a header field value (RFC
// 5322 section 2.2: no CR, LF or NUL may get through): each run of invalid
// UTF-8 becomes "?", every control character (C0, DEL, C1, and the Unicode
// line and paragraph separators) and every run of white space becomes one
// space, leading and trailing space go, and the result is cut to max bytes
// on a rune boundary. The result is valid UTF-8; Unstructured makes it a
// field value when it is not ASCII.
func Line(s string, max int) string {
	s = strings.ToValidUTF8(s, "?")
	var b strings.Builder
	b.Grow(min(len(s), max))
	space := true // drop leading space
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || r == ' ' {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
		space = false
	}
	return strings.TrimRight(b.String(), " ")
}

// Unstructured returns a line made by Line as the value of an unstructured
// header field (RFC 5322 section 3.2.5): as it is when it is ASCII, else as
// RFC 2047 encoded words in UTF-8 (each at most 75 octets, section 2).
func Unstructured(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] >= 0x80 {
			return mime.QEncoding.Encode("utf-8", line)
		}
	}
	return line
}

// ASCII makes s one line of printable ASCII, for explanation text that is
// read everywhere (a header, a plain-text body of unknown charset): each
// control byte and each space becomes a space and runs of them one space,
// each other byte outside printable ASCII becomes "?" (one "?" per UTF-8
// sequence: continuation bytes are dropped), leading and trailing space go,
// and the result is cut at max bytes.
func ASCII(s string, max int) string {
	clean := len(s) == 0 || s[0] != ' ' && s[len(s)-1] != ' '
	for i := 0; i < len(s) && clean; i++ {
		clean = ' ' <= s[i] && s[i] <= '~'
	}
	if clean && len(s) <= max && !strings.Contains(s, "  ") {
		return s
	}
	b := make([]byte, 0, min(len(s), max))
	space := false
	for i := 0; i < len(s) && len(b) < max; i++ {
		c := s[i]
		switch {
		case c < ' ' || c == 0x7f || c == ' ':
			if !space {
				b = append(b, ' ')
			}
			space = true
			continue
		case c > '~':
			if c&0xC0 == 0x80 {
				continue
			}
			c = '?'
		}
		b = append(b, c)
		space = false
	}
	return strings.TrimSpace(string(b))
}

// Terminal makes s safe to print on a terminal: every C0 control but
// newline and tab (ESC, which starts the escape sequences that move the
// cursor, set the title or write to the clipboard, and CR and backspace,
// which overwrite what was printed), DEL, every C1 control (U+0080 to
// U+009F: CSI and OSC on terminals that read them), and the Unicode
// bidirectional formatting characters (which reorder what follows them on
// the screen) are removed, and each run of invalid UTF-8 becomes U+FFFD,
// since a lone byte from 0x80 up is a C1 control to some terminals.
func Terminal(s string) string {
	if terminalSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	invalid := false // the last thing written was U+FFFD for invalid bytes
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n == 1 {
			if !invalid {
				b.WriteRune(utf8.RuneError)
				invalid = true
			}
			continue
		}
		invalid = false
		if !terminalRune(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// terminalRune says whether Terminal keeps r.
func terminalRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return true
	case r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0:
		return false
	case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
		return false
	}
	return true
}

// terminalSafe says whether Terminal would return s as it is.
func terminalSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			// Rare in explanations: check the runes.
			for j, r := range s[i:] {
				if r == utf8.RuneError && !strings.HasPrefix(s[i+j:], "\uFFFD") || !terminalRune(r) {
					return false
				}
			}
			return true
		}
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
