package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The transcript of an SMTP session that a free-text report quotes, and
// Sendmail's summary lines. Sendmail ("----- Transcript of session follows
// -----") marks the commands it sent with ">>>" and the replies it got with
// "<<<"; MDaemon writes "-->" and "<--" after a time stamp; Postfix's
// notices to the postmaster write "In:" and "Out:" (from its SMTP server's
// side: "In:" is the client's command). The error reply belongs to the last
// command before it: that is the command the failure happened at.

// transcriptSide says which side of an SMTP session a transcript line is.
type transcriptSide int

const (
	notTranscript transcriptSide = iota
	clientSide                   // a command: ">>> RCPT To:<a@example.com>", "--> DATA", "In: DATA"
	serverSide                   // a reply: "<<< 550 5.1.1 ...", "<-- 550 ...", "Out: 550 ..."
)

// transcriptMarks are the lower-case marks in front of transcript lines.
var transcriptMarks = [...]struct {
	mark string
	side transcriptSide
}{
	{">>>", clientSide}, {"-->", clientSide}, {"in:", clientSide},
	{"<<<", serverSide}, {"<--", serverSide}, {"out:", serverSide},
}

// maxTimeStamp is how far into a line a transcript mark may come after a
// time stamp ("Tue 2024-07-02 09:05:15.334: --> RCPT To:<...>").
const maxTimeStamp = 48

// transcriptLine says whether a trimmed line t (lt in lower case) is a line
// of a session transcript, which side wrote it, and returns the text after
// the mark.
func transcriptLine(t, lt []byte) (transcriptSide, []byte) {
	if len(t) < 4 {
		return notTranscript, nil
	}
	at := 0
	switch lt[0] {
	case '>', '<', '-', 'i', 'o':
	default:
		// After a time stamp: digits in front, and ": " before the mark
		// ("Tue 2024-07-02 09:05:15.334: --> RCPT To:<...>").
		head := lt[:min(len(lt), maxTimeStamp)]
		k := bytes.IndexByte(head, ':')
		for k > 0 && k+3 < len(head) && !(head[k+1] == ' ' && isMarkByte(head[k+2])) {
			n := bytes.IndexByte(head[k+1:], ':')
			if n < 0 {
				return notTranscript, nil
			}
			k += 1 + n
		}
		if k <= 0 || k+3 >= len(head) || !hasDigit(head[:k]) {
			return notTranscript, nil
		}
		at = k + 2
	}
	for _, m := range transcriptMarks {
		if !bytes.HasPrefix(lt[at:], []byte(m.mark)) || at > 0 && (m.mark[0] == 'i' || m.mark[0] == 'o') {
			continue
		}
		rest := t[at+len(m.mark):]
		if len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		return m.side, bytes.TrimSpace(rest)
	}
	return notTranscript, nil
}

// isMarkByte says whether c starts a transcript mark that may follow a
// time stamp (">>>", "-->", "<<<", "<--").
func isMarkByte(c byte) bool { return c == '>' || c == '<' || c == '-' }

// hasDigit says whether b holds an ASCII digit.
func hasDigit(b []byte) bool {
	for _, c := range b {
		if '0' <= c && c <= '9' {
			return true
		}
	}
	return false
}

// clientCommand names the SMTP command of a client line (the text after
// its mark): "RCPT", "MAIL", "DATA" ("." and BDAT too: the message was
// sent), "EHLO"... "" when it is none.
func clientCommand(c []byte) string {
	w := c
	if i := bytes.IndexAny(w, " \t:"); i >= 0 {
		w = w[:i]
	}
	switch {
	case ascii.EqualFold(w, "RCPT"):
		return "RCPT"
	case ascii.EqualFold(w, "MAIL"):
		return "MAIL"
	case ascii.EqualFold(w, "DATA"), ascii.EqualFold(w, "BDAT"), string(w) == ".", ascii.EqualFold(w, "<CRLF>.<CRLF>"):
		return "DATA"
	case ascii.EqualFold(w, "EHLO"), ascii.EqualFold(w, "HELO"), ascii.EqualFold(w, "LHLO"):
		return "EHLO"
	case ascii.EqualFold(w, "STARTTLS"):
		return "STARTTLS"
	case ascii.EqualFold(w, "AUTH"):
		return "AUTH"
	case ascii.EqualFold(w, "QUIT"), ascii.EqualFold(w, "RSET"), ascii.EqualFold(w, "NOOP"):
		return "QUIT"
	}
	return ""
}

// rcptAddress reads the address of a client line "RCPT TO:<a@example.com>
// ORCPT=..." (the text after its mark); "" when it is no RCPT command.
func rcptAddress(c []byte) string {
	if !hasPrefixFoldBytes(c, "rcpt to:") {
		return ""
	}
	v := bytes.TrimSpace(c[8:])
	if len(v) > 0 && v[0] == '<' {
		if gt := bytes.IndexByte(v, '>'); gt > 0 {
			v = v[:gt+1]
		}
	} else if sp := bytes.IndexAny(v, " \t"); sp > 0 {
		v = v[:sp]
	}
	a := cleanAddress(view(v)) // a view of the text, which does not change during the Parse
	if !plausibleAddress(a) {
		return ""
	}
	return a
}

// replyClass returns the class digit of a server line's reply ('2', '4',
// '5'...), 0 when the line holds no reply code at its start.
func replyClass(r []byte) byte {
	if len(r) >= 3 && smtpcode.IsReply(string(r[:3])) && (len(r) == 3 || r[3] == ' ' || r[3] == '-') {
		return r[0]
	}
	return 0
}

// summaryLine reads Sendmail's line for one failed recipient, the error it
// reports to the sender after the transcript (sendmail's usrerr format,
// "reply [status] address... text"): "550 5.1.1 <bob@example.net>... User
// unknown", "554 dpierce@example.com... Service unavailable", "550
// jsmith... User unknown" (a local address: a local part alone). It returns
// the address as written (a local part alone for a local address), "" when
// the line is no such line, and the text after the address.
func summaryLine(t []byte) (string, []byte) {
	if len(t) < 9 || (t[0] != '4' && t[0] != '5') || !smtpcode.IsReply(string(t[:3])) || t[3] != ' ' && t[3] != '-' {
		return "", nil
	}
	rest := t[4:]
	if st := smtpcode.StatusPrefix(view(rest)); st != "" && len(rest) > len(st) && rest[len(st)] == ' ' {
		rest = rest[len(st)+1:]
	}
	return summaryTail(rest)
}

// codelessSummaryLine reads Sendmail's line for one failed recipient
// written without a reply code, as Sendmail V5 and the "Deferred" lines of
// later versions write it ("jsmith... User unknown", "<bob@example.net>...
// Deferred: Connection timed out"). Such a line is read only in the
// transcript section of a report ("----- Transcript of session follows
// -----"): elsewhere "word... text" is prose. The text after the address
// must hold a letter.
func codelessSummaryLine(t []byte) (string, []byte) {
	if len(t) < 6 || !ascii.IsAlpha(t[0]) && !ascii.IsDigit(t[0]) && t[0] != '<' {
		return "", nil
	}
	a, text := summaryTail(t)
	if a == "" || !hasLetter(text) {
		return "", nil
	}
	return a, text
}

// summaryTail reads the "address... text" that ends a summary line.
func summaryTail(rest []byte) (string, []byte) {
	dots := bytes.Index(rest, []byte("... "))
	if dots <= 0 {
		if !bytes.HasSuffix(rest, []byte("...")) {
			return "", nil
		}
		dots = len(rest) - 3
	}
	tok := rest[:dots]
	if bytes.ContainsAny(tok, " \t") {
		return "", nil
	}
	text := bytes.TrimSpace(rest[min(dots+4, len(rest)):])
	a := cleanAddress(view(tok)) // a view of the text, which does not change during the Parse
	if strings.IndexByte(a, '@') >= 0 {
		if !plausibleAddress(a) {
			return "", nil
		}
		return a, text
	}
	if !isLocalPart(a) {
		return "", nil
	}
	return a, text
}

// isLocalPart says whether s can be the local part of an address written
// alone (a screen name, a Unix user): address characters only, a letter
// among them, at most 64 bytes (RFC 5321 section 4.5.3.1.1), no dot at
// either end.
func isLocalPart(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAddrChar(c) || c == '/' || c == '|' {
			return false
		}
		if ascii.IsAlpha(c) {
			letter = true
		}
	}
	return letter
}
