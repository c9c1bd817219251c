package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// A multi-line SMTP reply (RFC 5321 section 4.2.1: "550-5.7.26 ..." lines,
// then a last line "550 5.7.26 ...") is the whole of what the server said.
// Some MTAs put only its first line in the Diagnostic-Code of their DSN
// (Sendmail's deliver.c writes the first line of the reply it kept), and
// keep the whole reply in the notice's text: Sendmail's transcript quotes
// every line ("<<< 550-5.7.26 ..."), as Exim's and Postfix's notices do.
// Gmail's DMARC and authentication refusals, whose cause and help page are
// in their later lines, are read from their first line otherwise. A
// diagnostic that is the first line of a multi-line reply and no more is
// completed from the notice's text, when the text holds that reply.
//
// A notice about several recipients quotes several replies, and the
// completion must take the recipient's own. Two places in Sendmail's
// notice hold a reply (sendmail/savemail.c, errbody): the list "The
// following addresses had permanent fatal errors", where each address is
// followed by "(reason: ...)" with the one line Sendmail kept (q_rstatus),
// and the "Transcript of session follows" with the whole session per host
// ("... while talking to HOST.:", ">>> RCPT To:<addr>", "<<< 550-...").
// A reply quoted inside a parenthesis ends at the parenthesis: the lines
// after it are the next address of the list, not more of the reply. A
// reply in a transcript after a RCPT command belongs to the recipient that
// command names: a RCPT for another address makes it another recipient's.

// maxFullReply caps the part of the notice's text read for one reply, in
// bytes (Gmail's longest replies are about 600 bytes with their codes).
const maxFullReply = 2048

// unfinishedReply says whether a diagnostic (its type taken off, its
// white space collapsed) is a reply's continuation line without the last
// line: it starts "550-" (a code and a hyphen) and the same code never
// comes again followed by a space, as the last line of a reply starts.
func unfinishedReply(d string) bool {
	if len(d) < 8 || !smtpcode.IsReply(d[:3]) || d[3] != '-' {
		return false
	}
	code := d[:3]
	for i := 4; ; {
		k := strings.Index(d[i:], code)
		if k < 0 {
			return true
		}
		i += k + 3
		if i-3 > 0 && d[i-4] == ' ' && (i == len(d) || d[i] == ' ') {
			return false // "... 550 5.7.26 https://...": the last line is there
		}
	}
}

// completeReplies replaces the diagnostics of the recipients at idx (see
// unfinishedReply) with the whole reply when the notice's text quotes it.
func (p *parser) completeReplies(idx []int) {
	if len(idx) == 0 {
		return
	}
	p.loadText()
	cut := len(p.text)
	if !p.originalPart {
		cut = p.cut()
	}
	text := string(p.text[:cut])
	for _, i := range idx {
		if i >= len(p.rep.Recipients) {
			continue
		}
		rc := &p.rep.Recipients[i]
		if full := fullReply(text, rc.Diagnostic, rc.Address); full != "" {
			rc.Diagnostic = full
		}
	}
}

// fullReply returns the multi-line reply in text whose first line is the
// diagnostic d ("550 5.7.26 Unauthenticated email from ..." as
// cleanDiagnostic wrote it), joined as joinMultiline does, at most
// MaxDiagnostic bytes; "" when text does not hold it with more than its
// first line. A reply's lines are read as the notices quote them: each on
// a line of its own, after a transcript's "<<<" or "<--" mark (Sendmail,
// MDaemon) or indented (Exim), or wrapped anywhere with their codes inside
// the lines (Postfix). The reply ends at its last line, at a blank line,
// or at the next command of a transcript. A reply quoted inside a
// parenthesis (Sendmail's "(reason: 550-...)") or answering a RCPT for an
// address other than addr (when addr is known) is not read.
func fullReply(text, d, addr string) string {
	if len(d) < 5 || !smtpcode.IsReply(d[:3]) || d[3] != ' ' {
		return ""
	}
	code := d[:3]
	status := smtpcode.StatusPrefix(d[4:])
	words := strings.TrimSpace(d[4+len(status):])
	if len(words) < 8 {
		return "" // too little to tell this reply from another one
	}
	key := words
	if len(key) > 40 {
		key = key[:40]
	}
	first := code + "-" + status
	for from := 0; from < len(text); {
		k := strings.Index(text[from:], first)
		if k < 0 {
			return ""
		}
		at := from + k
		from = at + len(first)
		if at > 0 && !isLineSpace(text[at-1]) && text[at-1] != ':' {
			continue
		}
		if insideParenthesis(text, at) {
			continue // Sendmail's "(reason: 550-...)": its first line, and the next address after it
		}
		if addr != "" && !rcptIs(rcptBefore(text, at), addr) {
			continue // another recipient's reply in the transcript
		}
		reply := collapseSpace(nil, replyLines(text[at:min(len(text), at+maxFullReply)], code, status))
		if !strings.Contains(reply[len(first):], " "+code) {
			continue // the first line alone, as Sendmail's "(reason: ...)" repeats it
		}
		joined := joinMultiline(nil, reply)
		rest := strings.TrimSpace(strings.TrimPrefix(joined, code))
		rest = strings.TrimSpace(strings.TrimPrefix(rest, status))
		if !strings.HasPrefix(rest, key) || len(joined) <= len(d) {
			continue
		}
		if len(joined) > MaxDiagnostic {
			joined = joined[:MaxDiagnostic]
		}
		return strings.ToValidUTF8(joined, "")
	}
	return ""
}

// replyLines returns the lines of the reply that starts text, without the
// transcript marks before them, up to its last line (the one the code and
// a space start, or that holds them after a space), a blank line or a
// client's command ("<<<" replies end at ">>>").
func replyLines(text, code, status string) string {
	last := code + " "
	var b strings.Builder
	for n := 0; text != "" && n < maxReplyLines; n++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.Trim(line, lineSpace)
		if line == "" {
			break
		}
		if strings.HasPrefix(line, ">>>") || strings.HasPrefix(line, "-->") {
			break
		}
		line = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(line, "<<<"), "<--"), lineSpace)
		if n > 0 && smtpcode.IsReply(safePrefix(line, 3)) && !strings.HasPrefix(line, code) {
			break // another reply (Sendmail's own "554 5.0.0 Service unavailable")
		}
		b.WriteString(line)
		b.WriteByte(' ')
		if strings.HasPrefix(line, last) || status != "" && strings.Contains(line, " "+last+status) {
			break
		}
	}
	return b.String()
}

// safePrefix returns the first n bytes of s, or s when it is shorter.
func safePrefix(s string, n int) string {
	if len(s) < n {
		return s
	}
	return s[:n]
}

// insideParenthesis says whether the line of text that holds offset at has
// a parenthesis opened before at and not closed before it.
func insideParenthesis(text string, at int) bool {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	head := text[start:at]
	return strings.Count(head, "(") > strings.Count(head, ")")
}

// rcptBefore returns the address of the RCPT command that the transcript
// line at offset at answers: the last client line before it, when that is
// a RCPT ("" when the last client line is another command, or when there
// is none, or when a transcript's "... while talking to HOST" or a blank
// line comes between them).
func rcptBefore(text string, at int) string {
	end := strings.LastIndexByte(text[:at], '\n')
	for n := 0; end > 0 && n < maxReplyLines; n++ {
		start := strings.LastIndexByte(text[:end], '\n') + 1
		line := strings.Trim(text[start:end], lineSpace)
		end = start - 1
		if line == "" || strings.HasPrefix(line, "...") {
			return ""
		}
		if side, c := transcriptLine([]byte(line), bytes.ToLower([]byte(line))); side == clientSide {
			return rcptAddress(c)
		}
	}
	return ""
}

// rcptIs says whether the address a RCPT command names, rcpt, is addr or
// names no address ("" is no evidence of another recipient).
func rcptIs(rcpt, addr string) bool {
	return rcpt == "" || strings.EqualFold(rcpt, addr)
}
