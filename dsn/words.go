package dsn

import (
	"fmt"
	"io"
	"mime"
	"strings"
)

// wordDecoder decodes RFC 2047 encoded words in header values with the
// charsets of golang.org/x/text.
var wordDecoder = &mime.WordDecoder{
	CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
		enc := lookupCharset(strings.ToLower(charset))
		if enc == nil {
			return nil, fmt.Errorf("unknown charset %q", charset)
		}
		return enc.NewDecoder().Reader(input), nil
	},
}

// decodeWords decodes the RFC 2047 encoded words of a header value. A value
// that cannot be decoded is returned as it is.
func decodeWords(v string) string {
	if !strings.Contains(v, "=?") {
		return validUTF8(v)
	}
	d, err := wordDecoder.DecodeHeader(v)
	if err != nil {
		return validUTF8(v)
	}
	return validUTF8(d)
}
