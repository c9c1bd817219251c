package decide

import (
	"bytes"
	"mime"
	"net/mail"
	"strings"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/rules"
)

// summaryText is the short plain-text summary BodySummary puts at the top
// of a bounce: ASCII lines of at most 76 characters.
func summaryText(shown []rules.Reading, j backscatter.Judgement) string {
	var b strings.Builder
	b.WriteString("[ndrmilter] What this bounce means:\r\n")
	for i, r := range shown {
		if i == 3 {
			b.WriteString("(more recipients: see the X-NDR-Explanation headers)\r\n")
			break
		}
		text := explanation(r)
		if !isASCII(text) || strings.Contains(text, "=?") {
			text = asciiOnly(cleanText(r.Recipient.Address+": "+r.Explanation, maxText))
		}
		for _, line := range strings.Split(fold("", text), "\n\t") {
			b.WriteString(line)
			b.WriteString("\r\n")
		}
	}
	switch j.Verdict {
	case backscatter.Yes:
		b.WriteString("This bounce is for a message that was not sent from here (backscatter).\r\n")
	case backscatter.No:
		b.WriteString("The message it refers to was sent from here.\r\n")
	}
	b.WriteString("--\r\n\r\n")
	return b.String()
}

func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x80 {
			return '?'
		}
		return r
	}, s)
}

// withSummary returns the body of the message in raw (header and complete
// body) with text inserted at the top of its human-readable part: the body
// itself for a text/plain message, the first part of a multipart one when
// that part is text/plain. It returns nil when it cannot insert the text
// without breaking the message (base64 or quoted-printable part, HTML...).
func withSummary(raw []byte, text string) []byte {
	h, bodyStart, ok := splitHeader(raw)
	if !ok {
		return nil
	}
	body := raw[bodyStart:]
	insertAt, ok := textStart(h, body)
	if !ok {
		return nil
	}
	out := make([]byte, 0, len(body)+len(text))
	out = append(out, body[:insertAt]...)
	out = append(out, text...)
	return append(out, body[insertAt:]...)
}

// splitHeader parses the header at the start of b and returns it with the
// offset of the body (after the empty line).
func splitHeader(b []byte) (mail.Header, int, bool) {
	end := -1
	for i := 0; i < len(b); {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			break
		}
		line := b[i : i+nl]
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			end = i + nl + 1
			break
		}
		i += nl + 1
	}
	if end < 0 {
		return nil, 0, false
	}
	msg, err := mail.ReadMessage(bytes.NewReader(b[:end]))
	if err != nil {
		return nil, 0, false
	}
	return msg.Header, end, true
}

// textStart finds where the human-readable text starts in body, given its header.
func textStart(h mail.Header, body []byte) (int, bool) {
	ct := h.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if ct == "" {
		mt, err = "text/plain", nil
	}
	if err != nil {
		return 0, false
	}
	switch {
	case mt == "text/plain":
		cte := strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding")))
		return 0, cte == "" || cte == "7bit" || cte == "8bit"
	case strings.HasPrefix(mt, "multipart/"):
		boundary := params["boundary"]
		if boundary == "" {
			return 0, false
		}
		delim := []byte("--" + boundary)
		i := bytes.Index(body, delim)
		if i < 0 || (i > 0 && body[i-1] != '\n') {
			return 0, false
		}
		partStart := i + len(delim)
		nl := bytes.IndexByte(body[partStart:], '\n')
		if nl < 0 {
			return 0, false
		}
		partStart += nl + 1
		ph, off, ok := splitHeader(body[partStart:])
		if !ok {
			return 0, false
		}
		if pct := ph.Get("Content-Type"); pct != "" {
			if pmt, _, err := mime.ParseMediaType(pct); err != nil || pmt != "text/plain" {
				return 0, false
			}
		}
		if _, ok := textStart(ph, nil); !ok {
			return 0, false
		}
		return partStart + off, true
	}
	return 0, false
}
