package decide

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/message"
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
			// The part's charset is not known: plain ASCII, not encoded words.
			text = textclean.ASCII(textclean.Line(r.Recipient.Address+": "+r.Explanation, maxText), maxText)
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

// isASCII says whether s is ASCII only.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// withSummary returns the body of the message in raw (header and complete
// body) with text inserted at the top of its human-readable part: the body
// itself for a text/plain message, the first part of a multipart one when
// that part is text/plain. It returns nil when it cannot insert the text
// without breaking the message (base64 or quoted-printable part, HTML...)
// or when the message is too broken to be sure where that part starts.
func withSummary(raw []byte, text string) []byte {
	_, body, truncated := message.ReadHeader(raw)
	bodyStart := len(raw) - len(body)
	if truncated || body == nil || !endsAtEmptyLine(raw, bodyStart) {
		return nil
	}
	at, ok := textStart(raw, message.Read(raw))
	if !ok || at < bodyStart {
		return nil
	}
	out := make([]byte, 0, len(body)+len(text))
	out = append(out, raw[bodyStart:at]...)
	out = append(out, text...)
	return append(out, raw[at:]...)
}

// textStart returns where in raw, read into m, the text a reader sees first
// starts: the body of a text/plain message, or that of the first part of a
// multipart one when that part is text/plain. The part must be right under
// the top multipart: the first leaf of a nested multipart/alternative is not
// what a mail reader shows. ok is false when there is no such text, or when
// it is not written as it is (base64, quoted-printable), so that text put in
// front of it would not read as text.
func textStart(raw []byte, m message.Message) (at int, ok bool) {
	if len(m.Parts) == 0 {
		return 0, false
	}
	p := &m.Parts[0]
	switch top := message.ParseContentType(m.Header.Get("Content-Type")).MediaType; {
	case top == "text/plain":
		// p is the message itself.
	case strings.HasPrefix(top, "multipart/"):
		// The part as declared, not as the lenient reader falls back to
		// text for a multipart it cannot split.
		declared := message.ParseContentType(p.Header.Get("Content-Type")).MediaType
		if p.Depth != 1 || declared != "text/plain" || !endsAtEmptyLine(raw, p.Offset) {
			return 0, false
		}
	default:
		return 0, false
	}
	switch p.TransferEncoding {
	case "", "7bit", "8bit":
		return p.Offset, true
	}
	return 0, false
}

// endsAtEmptyLine says whether the header block that ends at end in b (where
// the reader found the body) ended at an empty line. The reader is lenient:
// it also ends a header at the first line that is not a field, or at a line
// of blanks, and a rewrite must not take such a line for the start of the
// body.
func endsAtEmptyLine(b []byte, end int) bool {
	head := b[:end]
	for _, empty := range [...]string{"\n", "\r\n"} {
		if string(head) == empty || bytes.HasSuffix(head, []byte("\n"+empty)) {
			return true
		}
	}
	return false
}
