package message

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// DecodeWords decodes the RFC 2047 encoded words of a header value
// ("=?iso-2022-jp?B?...?="), in any charset golang.org/x/text knows, in Q or
// B encoding, with or without an RFC 2231 language suffix. White space
// between two encoded words goes (RFC 2047 section 6.2). A word that cannot
// be decoded (unknown charset, broken syntax) stays as it is, and so does
// the text around the words. The result is valid UTF-8 (invalid bytes
// become U+FFFD).
func DecodeWords(v string) string {
	if !strings.Contains(v, "=?") {
		return textclean.UTF8(v)
	}
	var b strings.Builder
	b.Grow(len(v))
	prevWord := false  // the last thing written was a decoded word
	pendingSpace := "" // white space after a decoded word, dropped if another follows
	for len(v) > 0 {
		k := strings.Index(v, "=?")
		if k < 0 {
			break
		}
		text, decoded, n := v[:k], "", 0
		if d, m, ok := decodeWord(v[k:]); ok {
			decoded, n = d, m
		}
		if n == 0 {
			// Not a word: keep "=?" and go on after it.
			b.WriteString(pendingSpace)
			b.WriteString(text)
			b.WriteString("=?")
			pendingSpace, prevWord = "", false
			v = v[k+2:]
			continue
		}
		if prevWord && strings.TrimSpace(text) == "" {
			text = "" // between two encoded words
		} else {
			b.WriteString(pendingSpace)
		}
		b.WriteString(text)
		b.WriteString(decoded)
		pendingSpace, prevWord = "", true
		v = v[k+n:]
		// Hold the white space that follows: it goes if a word comes next.
		sp := 0
		for sp < len(v) && (v[sp] == ' ' || v[sp] == '\t') {
			sp++
		}
		pendingSpace, v = v[:sp], v[sp:]
	}
	b.WriteString(pendingSpace)
	b.WriteString(v)
	return textclean.UTF8(b.String())
}

// maxWordLength bounds one encoded word; RFC 2047 section 2 allows 75
// characters, real writers exceed that, garbage should not make us scan far.
const maxWordLength = 1024

// decodeWord decodes the encoded word at the start of s ("=?" charset "?"
// encoding "?" text "?="), returning the text in UTF-8 and the length read.
func decodeWord(s string) (string, int, bool) {
	if !strings.HasPrefix(s, "=?") {
		return "", 0, false
	}
	rest := s[2:]
	if len(rest) > maxWordLength {
		rest = rest[:maxWordLength]
	}
	q1 := strings.IndexByte(rest, '?')
	if q1 <= 0 || q1+2 >= len(rest) || rest[q1+2] != '?' {
		return "", 0, false
	}
	charset, enc := rest[:q1], rest[q1+1]
	if star := strings.IndexByte(charset, '*'); star >= 0 {
		charset = charset[:star] // RFC 2231 language suffix
	}
	body := rest[q1+3:]
	end := strings.Index(body, "?=")
	if end < 0 {
		return "", 0, false
	}
	text := body[:end]
	var raw []byte
	switch enc {
	case 'B', 'b':
		raw = decodeBase64([]byte(text))
	case 'Q', 'q':
		raw = make([]byte, 0, len(text))
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case c == '_':
				raw = append(raw, ' ')
			case c == '=' && i+2 < len(text):
				h, ok1 := ascii.Unhex(text[i+1])
				l, ok2 := ascii.Unhex(text[i+2])
				if ok1 && ok2 {
					raw = append(raw, h<<4|l)
					i += 2
					continue
				}
				raw = append(raw, c)
			default:
				raw = append(raw, c)
			}
		}
	default:
		return "", 0, false
	}
	cs := ascii.LowerString(charset)
	switch cs {
	case "utf-8", "utf8", "us-ascii", "ascii":
	default:
		e := lookupCharset(cs)
		if e == nil {
			return "", 0, false
		}
		out, err := e.NewDecoder().Bytes(raw)
		if err != nil {
			return "", 0, false
		}
		raw = out
	}
	return string(raw), 2 + q1 + 3 + end + 2, true
}
