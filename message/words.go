package message

import (
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"

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
	// The result is built in one array that becomes the string: nothing
	// else refers to it.
	b := AppendDecodedWords(make([]byte, 0, len(v)), v)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// AppendDecodedWords appends DecodeWords(v) to dst and returns the
// extended slice, for a reader with memory of its own (a buffer on the
// stack, a scratch array): it allocates only to grow dst and for a word in
// a charset other than UTF-8 and US-ASCII (the charset's decoder).
func AppendDecodedWords(dst []byte, v string) []byte {
	start := len(dst)
	prevWord := false  // the last thing written was a decoded word
	pendingSpace := "" // white space after a decoded word, dropped if another follows
	for len(v) > 0 {
		k := strings.Index(v, "=?")
		if k < 0 {
			break
		}
		text := v[:k]
		// Between two encoded words, white space goes; otherwise the
		// text before the word is written before it, decoded or not.
		between := prevWord && strings.TrimSpace(text) == ""
		mark := len(dst)
		if !between {
			dst = append(dst, pendingSpace...)
			dst = append(dst, text...)
		}
		out, n := appendWord(dst, v[k:])
		if n == 0 {
			// Not a word: keep "=?" and go on after it.
			dst = append(dst[:mark], pendingSpace...)
			dst = append(dst, text...)
			dst = append(dst, "=?"...)
			pendingSpace, prevWord = "", false
			v = v[k+2:]
			continue
		}
		dst = out
		prevWord = true
		v = v[k+n:]
		// Hold the white space that follows: it goes if a word comes next.
		sp := 0
		for sp < len(v) && (v[sp] == ' ' || v[sp] == '\t') {
			sp++
		}
		pendingSpace, v = v[:sp], v[sp:]
	}
	dst = append(dst, pendingSpace...)
	dst = append(dst, v...)
	if !utf8.Valid(dst[start:]) {
		fixed := textclean.UTF8(string(dst[start:]))
		dst = append(dst[:start], fixed...)
	}
	return dst
}

// maxWordLength bounds one encoded word; RFC 2047 section 2 allows 75
// characters, real writers exceed that, garbage should not make us scan far.
const maxWordLength = 1024

// appendWord appends the text of the encoded word at the start of s ("=?"
// charset "?" encoding "?" text "?="), in UTF-8, to dst, and returns the
// extended slice and the length read; n is 0 when s starts with no word
// that can be decoded, and out is then dst.
func appendWord(dst []byte, s string) (out []byte, n int) {
	if !strings.HasPrefix(s, "=?") {
		return dst, 0
	}
	rest := s[2:]
	if len(rest) > maxWordLength {
		rest = rest[:maxWordLength]
	}
	q1 := strings.IndexByte(rest, '?')
	if q1 <= 0 || q1+2 >= len(rest) || rest[q1+2] != '?' {
		return dst, 0
	}
	charset, enc := rest[:q1], rest[q1+1]
	if star := strings.IndexByte(charset, '*'); star >= 0 {
		charset = charset[:star] // RFC 2231 language suffix
	}
	body := rest[q1+3:]
	end := strings.Index(body, "?=")
	if end < 0 {
		return dst, 0
	}
	text := body[:end]
	at := len(dst)
	switch enc {
	case 'B', 'b':
		out = appendBase64(dst, text)
	case 'Q', 'q':
		out = dst
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case c == '_':
				out = append(out, ' ')
			case c == '=' && i+2 < len(text):
				h, ok1 := ascii.Unhex(text[i+1])
				l, ok2 := ascii.Unhex(text[i+2])
				if ok1 && ok2 {
					out = append(out, h<<4|l)
					i += 2
					continue
				}
				out = append(out, c)
			default:
				out = append(out, c)
			}
		}
	default:
		return dst, 0
	}
	if !utf8Charset(charset) {
		e := lookupCharset(charset)
		if e == nil {
			return dst, 0
		}
		var ok bool
		if out, ok = appendConverted(out, at, e); !ok {
			return dst, 0
		}
	}
	return out, 2 + q1 + 3 + end + 2
}

// utf8Charset says whether an encoded word's charset names UTF-8 or
// US-ASCII, whose text is taken as it is, without regard to ASCII case.
func utf8Charset(cs string) bool {
	for _, name := range [...]string{"utf-8", "utf8", "us-ascii", "ascii"} {
		if len(cs) == len(name) && ascii.HasPrefixFold(cs, name) {
			return true
		}
	}
	return false
}

// convertBufs are the buffers appendConverted converts a word in.
type convertBufs struct{ src, dst []byte }

// convertPool keeps convertBufs from one word to the next.
var convertPool = sync.Pool{New: func() any { return new(convertBufs) }}

// maxPooledConvert is the largest buffer convertPool keeps.
const maxPooledConvert = 4 << 10

// appendConverted replaces out[at:], text in the charset e, by its UTF-8,
// as e.NewDecoder().Bytes(out[at:]) gives it (the loop of
// transform.Bytes); ok is false where Bytes returns an error. It converts
// in pooled buffers: Bytes allocates its result, and out, given to the
// decoder (an interface), would move the caller's buffer to the heap.
func appendConverted(out []byte, at int, e encoding.Encoding) (_ []byte, ok bool) {
	bufs := convertPool.Get().(*convertBufs)
	src := append(bufs.src[:0], out[at:]...)
	dst := bufs.dst[:cap(bufs.dst)]
	if len(dst) < max(len(src), 64) {
		dst = make([]byte, max(len(src), 64))
	}
	d := e.NewDecoder()
	d.Reset()
	pDst, pSrc := 0, 0
	var err error
	for {
		var nDst, nSrc int
		nDst, nSrc, err = d.Transform(dst[pDst:], src[pSrc:], true)
		pDst += nDst
		pSrc += nSrc
		if err != transform.ErrShortDst {
			break
		}
		if nDst == 0 {
			// No progress: more room (what transform.Bytes does).
			grown := make([]byte, 2*len(dst))
			copy(grown, dst[:pDst])
			dst = grown
		}
	}
	if err == nil {
		out = append(out[:at], dst[:pDst]...)
	}
	if cap(src) <= maxPooledConvert && cap(dst) <= maxPooledConvert {
		bufs.src, bufs.dst = src[:0], dst[:0]
		convertPool.Put(bufs)
	}
	return out, err == nil
}
