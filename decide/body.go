package decide

import (
	"bytes"
	"strings"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/rules"
)

// summaryText is the short plain-text summary BodySummary puts at the top
// of a bounce, in language lang: lines of at most 76 characters where the
// words allow it. utf8 says that the part it goes into is UTF-8 and 8bit;
// otherwise the lines are ASCII: the words of a language written in Latin
// letters without their accents (asciiText), and no summary at all ("") for
// a language in another script, whose words would be lost.
func summaryText(shown []rules.Reading, j backscatter.Judgement, lang language.Tag, utf8 bool) string {
	english := lang == language.English || lang == language.Und
	if english {
		utf8 = false // English is ASCII, as it always was
	}
	if !english && !utf8 {
		if script, _ := lang.Script(); script.String() != "Latn" {
			return ""
		}
	}
	cat := catalog.Default()
	var b strings.Builder
	line := func(s string) {
		if !utf8 && !english {
			s = asciiText(s)
		}
		if !isASCII(s) && !utf8 {
			s = textclean.ASCII(s, maxText)
		}
		for _, l := range wrapBody(s) {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
	}
	line(cat.Text(lang, "body.heading"))
	for i, r := range shown {
		if i == 3 {
			line(cat.Text(lang, "body.more"))
			break
		}
		text := explanation(r, lang)
		if !utf8 && english && (!isASCII(text) || strings.Contains(text, "=?")) {
			// The part's charset is not known: plain ASCII, not encoded words.
			text = textclean.ASCII(textclean.Line(r.Recipient.Address+": "+r.Explanation, maxText), maxText)
		}
		line(text)
	}
	switch j.Verdict {
	case backscatter.Yes:
		line(cat.Text(lang, "body.backscatter_yes"))
	case backscatter.No:
		line(cat.Text(lang, "body.backscatter_no"))
	}
	b.WriteString("--\r\n\r\n")
	return b.String()
}

// wrapBody cuts a line of the body summary into lines of at most 76
// octets: at spaces, and between characters in a run without spaces too
// long for a line that is not ASCII (Japanese has no spaces between words;
// an ASCII word, such as a URL, is kept whole).
func wrapBody(s string) []string {
	const width = 76
	var lines []string
	for _, l := range strings.Split(fold("", s), "\n\t") {
		for len(l) > width && !strings.Contains(l, " ") && !isASCII(l) {
			cut := width
			for cut > 0 && !utf8RuneStart(l[cut]) {
				cut--
			}
			if cut == 0 {
				break
			}
			lines = append(lines, l[:cut])
			l = l[cut:]
		}
		lines = append(lines, l)
	}
	return lines
}

// asciiText writes the words of a language in Latin letters in ASCII, as
// its readers do without the letters: German umlauts and ß as ae, oe, ue,
// ss, other accents dropped (é as e), typographic quotes and dashes as
// their ASCII forms. What has no ASCII form is left for the caller.
func asciiText(s string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(s) {
		switch r {
		case 'ä':
			b.WriteString("ae")
		case 'ö':
			b.WriteString("oe")
		case 'ü':
			b.WriteString("ue")
		case 'Ä':
			b.WriteString("Ae")
		case 'Ö':
			b.WriteString("Oe")
		case 'Ü':
			b.WriteString("Ue")
		case 'ß':
			b.WriteString("ss")
		case '„', '“', '”', '«', '»':
			b.WriteByte('"')
		case '‚', '‘', '’':
			b.WriteByte('\'')
		case '–', '—':
			b.WriteByte('-')
		case '…':
			b.WriteString("...")
		case '\u00a0', '\u202f':
			b.WriteByte(' ')
		case 'œ':
			b.WriteString("oe")
		case '¿', '¡':
		default:
			if r < 0x80 {
				b.WriteRune(r)
				continue
			}
			for _, d := range norm.NFD.String(string(r)) {
				if !unicode.Is(unicode.Mn, d) {
					b.WriteRune(d)
				}
			}
		}
	}
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
// body) with the text write gives inserted at the top of its human-readable
// part (write is told whether that part is UTF-8 and 8bit): the body
// itself for a text/plain message, the first part of a multipart one when
// that part is text/plain. It returns nil when it cannot insert the text
// without breaking the message (base64 or quoted-printable part, HTML...)
// or when the message is too broken to be sure where that part starts, or
// write gives no text.
func withSummary(raw []byte, write func(utf8 bool) string) []byte {
	_, body, truncated := message.ReadHeader(raw)
	bodyStart := len(raw) - len(body)
	if truncated || body == nil || !endsAtEmptyLine(raw, bodyStart) {
		return nil
	}
	at, utf8, ok := textStart(raw, message.Read(raw))
	if !ok || at < bodyStart {
		return nil
	}
	text := write(utf8)
	if text == "" {
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
// front of it would not read as text; utf8 says that the part is UTF-8 and
// 8bit (RFC 6152), so that text that is not ASCII may go into it.
func textStart(raw []byte, m message.Message) (at int, utf8, ok bool) {
	if len(m.Parts) == 0 {
		return 0, false, false
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
			return 0, false, false
		}
	default:
		return 0, false, false
	}
	switch p.TransferEncoding {
	case "", "7bit", "8bit":
		return p.Offset, p.TransferEncoding == "8bit" && p.Charset == "utf-8", true
	}
	return 0, false, false
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
