package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// The failure a quoted session transcript shows. A failure notice that
// quotes the SMTP session (MDaemon's "--> RCPT To:<...>" / "<-- 554 ..."
// and "Session Transcript:" blocks, Sendmail's ">>> RCPT To:<...>" /
// "<<< 550 ..." after "... while talking to host:", hMailServer's
// "hMailServer sent: RCPT TO:<...>" / "Remote server replied: 550 ...")
// holds positive replies too: the greeting, the EHLO capabilities, "220
// 2.0.0 Ready to start TLS", "250 2.1.0 Ok". Those are never the result of
// a failed recipient (RFC 5321 section 4.2.1: 2yz and 3yz replies are
// positive). The result is the last error reply (4yz or 5yz), and the
// command it answered is the last command sent before it.
//
// The diagnostic may still have its line ends, or be one line already
// (a block's text is collapsed): the session is cut at its marks and at
// line ends, and a reply's continuation lines, whose codes a collapsed
// text has lost, are the unmarked text up to the next mark.

// maxServerLabel caps how far before "replied:" the word "server" may
// come ("Remote server replied: 550 ...", "Remote server (192.0.2.1)
// replied: ...").
const maxServerLabel = 40

// transcriptFailure returns, of a diagnostic d that quotes an SMTP
// session, the last error reply (its continuation lines included, one a
// line, without their marks) and the
// command it answered ("" when the transcript does not show it). It
// returns "", "" when d quotes no session with an error reply.
func transcriptFailure(d string) (reply, command string) {
	if !strings.Contains(d, "<--") && !strings.Contains(d, "<<<") && indexFold(d, "replied:") < 0 {
		return "", ""
	}
	lastCmd := ""
	var lines []string // the lines of the last error reply, without their marks
	start := -1        // the offset of its first line in d
	inError := false   // the last server segment was an error reply, and no command came since
	_, at, side := nextSessionMark(d, 0)
	for at < len(d) {
		markAt, next, nextSide := nextSessionMark(d, at)
		seg := strings.Trim(d[at:markAt], lineSpace+"\n")
		segAt := at + strings.Index(d[at:markAt], seg)
		if seg == "" {
			at, side = next, nextSide
			continue
		}
		switch side {
		case clientSide:
			if cmd := clientCommand([]byte(seg)); cmd != "" {
				lastCmd = cmd
			}
			inError = false
		case serverSide:
			// The next line's time stamp is the transcript's, not the
			// reply's (sessionstamp.go).
			seg = trailingStamp(seg)
			switch class := replyClass([]byte(seg)); {
			case class == '4' || class == '5':
				if !inError || d[start:start+3] != seg[:3] {
					start, command, lines = segAt, lastCmd, lines[:0]
				}
				lines, inError = appendReplyLine(lines, seg), true
			case class == 0 && inError:
				lines = appendReplyLine(lines, seg) // a continuation line whose code a collapsed text lost
			default:
				inError = false
			}
		}
		// Unmarked text (a time stamp, Sendmail's summary line) leaves
		// the reply open: its next line may follow.
		at, side = next, nextSide
	}
	switch len(lines) {
	case 0:
		return "", ""
	case 1:
		return lines[0], command
	}
	return strings.Join(lines, "\n"), command
}

// maxReplyLines caps the lines kept of one multi-line reply.
const maxReplyLines = 32

// appendReplyLine adds a line of a reply, up to maxReplyLines.
func appendReplyLine(lines []string, line string) []string {
	if len(lines) >= maxReplyLines {
		return lines
	}
	return append(lines, line)
}

// nextSessionMark finds the next session line from d[from] on: it returns
// the offset of its mark or label, that of its text (after the mark) and
// its side; a line end gives notTranscript (unmarked text). len(d) when
// there is none.
func nextSessionMark(d string, from int) (mark, text int, side transcriptSide) {
	for i := from; i < len(d); i++ {
		switch c := d[i]; {
		case c == '\n':
			return i, i + 1, notTranscript
		case (c == '<' || c == '>' || c == '-') && i+3 < len(d) && (d[i+3] == ' ' || d[i+3] == '\t') && (i == 0 || isLineSpace(d[i-1])):
			switch d[i : i+3] {
			case ">>>", "-->":
				return i, i + 3, clientSide
			case "<<<", "<--":
				return i, i + 3, serverSide
			}
		case c|0x20 == 'r' && ascii.HasPrefixFold(d[i:], "replied:") && indexFold(d[max(0, i-maxServerLabel):i], "server") >= 0:
			return i, i + len("replied:"), serverSide
		case c|0x20 == 's' && i >= 2 && d[i-1] == ' ' && ascii.IsAlpha(d[i-2]) && ascii.HasPrefixFold(d[i:], "sent:"):
			return i, i + len("sent:"), clientSide
		}
	}
	return len(d), len(d), notTranscript
}

// lineSpace is the white space, line ends aside, around a session line.
const lineSpace = " \t\r\v\f"

// isLineSpace says whether c is white space or a line end.
func isLineSpace(c byte) bool { return c == '\n' || strings.IndexByte(lineSpace, c) >= 0 }

// sessionFailureLine says whether line is a command of a quoted session or
// an error reply (4yz, 5yz): the lines transcriptFailure reads.
func sessionFailureLine(line []byte) bool {
	d := view(line)
	_, at, side := nextSessionMark(d, 0)
	switch side {
	case clientSide:
		return true
	case serverSide:
		class := replyClass([]byte(strings.TrimLeft(d[at:], lineSpace)))
		return class == '4' || class == '5'
	}
	return false
}

// capDiagnostic cuts a diagnostic to maxBlockText, or to maxSessionText
// when it quotes a session whose error reply comes after maxBlockText: a
// long transcript's failure is at its end.
func capDiagnostic(d string) string {
	if len(d) <= maxBlockText {
		return d
	}
	if r, _ := transcriptFailure(d[:min(len(d), maxSessionText)]); r != "" {
		if r, _ := transcriptFailure(d[:maxBlockText]); r == "" {
			return d[:min(len(d), maxSessionText)]
		}
	}
	return d[:maxBlockText]
}
