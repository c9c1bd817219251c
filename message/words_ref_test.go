package message

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// FuzzDecodeWordsAsBefore checks that DecodeWords, and AppendDecodedWords
// after a prefix, give what DecodeWords gave when it built its result in a
// strings.Builder and each word in a string of its own
// (decodeWordsReference, the code as it was): the append form is a change
// of memory, not of meaning.
func FuzzDecodeWordsAsBefore(f *testing.F) {
	for _, s := range []string{
		"plain", "=?UTF-8?Q?Quarterly_report_=E2=80=93_draft?=", "=?ISO-8859-1?Q?R=E9union?= du lundi",
		"=?utf-8?B?0J/RgNC40LI=?= =?utf-8?B?0LXRgg==?=", "a =?ISO-2022-JP?B?GyRCJDMkcyRLJEEkTxsoQg==?= b",
		"=?x-unknown?Q?abc?=", "=?utf-8?Q?broken", "=?=?utf-8?Q?x?=", "=?utf-8?q?a?=  \t =?x?q?b?= =?utf-8?b?/w==?=",
		"x =?Shift_JIS?B?g2WDWINn?=\xff", "=?UTF-8*en?Q?a?= =?US-ASCII?Q?b=ZZ?=",
		"=?utf-16?B?AGEAYgBj?=", "=?utf-16?B?2D0?=", "=?unicode-1-1-utf-7?Q?a+AGE-b?=", "=?euc-kr?B?x9GxuQ==?=",
		// Longer in UTF-8 than in its charset: the conversion grows its room.
		"=?iso-8859-1?Q?" + strings.Repeat("=E9", 200) + "?=", "=?iso-2022-jp?B?" + strings.Repeat("GyRCJDMkcyRLJEEkTxsoQg", 20) + "==?=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		want := decodeWordsReference(v)
		if got := DecodeWords(v); got != want {
			t.Fatalf("DecodeWords(%q) = %q, before %q", v, got, want)
		}
		var room [16]byte
		if got := AppendDecodedWords(append(room[:0], "pre"...), v); string(got) != "pre"+want {
			t.Fatalf("AppendDecodedWords(\"pre\", %q) = %q, want %q", v, got, "pre"+want)
		}
	})
}

// decodeWordsReference is DecodeWords as it was before AppendDecodedWords.
func decodeWordsReference(v string) string {
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
		if d, m, ok := referenceWord(v[k:]); ok {
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

// referenceWord decodes the encoded word at the start of s ("=?" charset "?"
// encoding "?" text "?="), returning the text in UTF-8 and the length read.
func referenceWord(s string) (string, int, bool) {
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
		raw = appendBase64(make([]byte, 0, len(text)*3/4), []byte(text))
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
