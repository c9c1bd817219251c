package message

//go:generate go test -count=1 -run ^TestCharsetTableGenerated$ . -update

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// lookupCharset finds an encoding by its MIME charset name, nil if unknown.
// A name is looked for as golang.org/x/text's htmlindex.Get looks (the
// WHATWG Encoding Standard's labels) and, when that has none, as its
// ianaindex.MIME.Encoding looks (the IANA Character Sets registry's names
// and aliases, RFC 2978): spaces trimmed, case folded by strings.ToLower.
//
// The two indexes are not imported: each fills a map of every name when
// the program starts (ianaindex 1,517 names, about 55 kB), which every
// ndrmilter command paid for, and a message with a charset reads one
// name. charset_gen.go holds the names both accept, sorted, with the
// encoding each gives (go generate ./message writes it from the two
// indexes; a test fails when it is stale and compares the lookups over
// every name of both).
func lookupCharset(name string) encoding.Encoding {
	key := strings.ToLower(strings.TrimSpace(name))
	i, ok := slices.BinarySearchFunc(charsets[:], key, func(e charsetEntry, key string) int { return strings.Compare(e.name, key) })
	if !ok {
		return nil
	}
	return charsetEncoding(charsets[i].id)
}

// asciiEncoding is US-ASCII (RFC 2046 section 4.1.2): a byte above 0x7F
// decodes to U+FFFD, as ianaindex's US-ASCII encoding decodes it (which is
// not exported). htmlindex reads the US-ASCII labels as windows-1252; the
// IANA aliases it does not know ("iso646-us", "csascii", "us"...) come
// here.
var asciiEncoding encoding.Encoding = asciiCharset{}

// asciiCharset is the type of asciiEncoding.
type asciiCharset struct{}

// NewDecoder returns a decoder of US-ASCII into UTF-8.
func (asciiCharset) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: asciiDecoder{}}
}

// NewEncoder returns an encoder of UTF-8 into US-ASCII: a character
// US-ASCII cannot hold is an error (encoding.ReplaceUnsupported replaces it
// by encoding.ASCIISub).
func (asciiCharset) NewEncoder() *encoding.Encoder {
	return &encoding.Encoder{Transformer: asciiEncoder{}}
}

// asciiDecoder decodes US-ASCII, a byte above 0x7F into U+FFFD.
type asciiDecoder struct{ transform.NopResetter }

// Transform implements transform.Transformer.
func (asciiDecoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for _, c := range src {
		if c >= utf8.RuneSelf {
			if nDst+utf8.RuneLen(utf8.RuneError) > len(dst) {
				return nDst, nSrc, transform.ErrShortDst
			}
			nDst += utf8.EncodeRune(dst[nDst:], utf8.RuneError)
			nSrc++
			continue
		}
		if nDst >= len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		dst[nDst] = c
		nDst++
		nSrc++
	}
	return nDst, nSrc, nil
}

// asciiEncoder encodes UTF-8 into US-ASCII; a character above U+007F is
// errNotASCII.
type asciiEncoder struct{ transform.NopResetter }

// Transform implements transform.Transformer.
func (asciiEncoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		c := src[nSrc]
		if c >= utf8.RuneSelf {
			return nDst, nSrc, errNotASCII
		}
		if nDst >= len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		dst[nDst] = c
		nDst++
		nSrc++
	}
	return nDst, nSrc, nil
}

// errNotASCII is the error of encoding a character above U+007F in
// US-ASCII. Its Replacement method is what encoding.ReplaceUnsupported
// asks a repertoire error for.
var errNotASCII error = notASCIIError{}

// notASCIIError is the type of errNotASCII.
type notASCIIError struct{}

func (notASCIIError) Error() string { return "US-ASCII: the character is above U+007F" }

// Replacement returns encoding.ASCIISub, the byte that stands for a
// character US-ASCII cannot hold.
func (notASCIIError) Replacement() byte { return encoding.ASCIISub }
