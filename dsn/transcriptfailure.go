package dsn

import (
	"iter"
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

// MDaemon's session transcript ("--- Session Transcript ---" ... "---
// End Transcript ---") writes each line after a time stamp ("Thu
// 2026-04-16 10:02:41.491: "), and its own notes after "*  ": the
// connection it attempts, the MX and A records it found, and, when no
// server ever replied, why the attempt failed ("*  Connection timed out
// (10060)", "*  Socket connection failed [192.0.2.61 : 25]", "No more MX
// hosts to try"). Its progress lines ("Resolving MX records for [...]",
// "Attempting SMTP connection to [...]") are no error: read as one, they
// made the whole notice a "rejected" by the words "MX records for".

// minStampedLines is how many time-stamped lines make a diagnostic an
// MDaemon transcript.
const minStampedLines = 3

// transcriptNotes returns, of a diagnostic d that quotes an MDaemon
// session transcript with no error reply, the notes at its end that say
// why the last attempt failed, one a line, without their time stamps and
// marks; "" when d quotes no such transcript or it ends in a progress line.
func transcriptNotes(d string) string {
	var lines []string
	n := 0
	for text := range stampedNotes(d) {
		if k := strings.Index(text, "--- End Transcript"); k >= 0 {
			text = text[:k]
		}
		text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "*"))
		n++
		if progressNote(text) {
			lines = lines[:0]
		} else if text != "" && len(lines) < maxReplyLines {
			lines = append(lines, text)
		}
	}
	if n < minStampedLines || len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n")
}

// progressNote says whether a line of an MDaemon transcript (without its
// time stamp and "*") reports progress, not a failure: the message it
// parses and its headers, the records it resolved, the connection it
// attempts or made, a command or a reply.
func progressNote(t string) bool {
	for _, p := range [...]string{"parsing message", "from:", "to:", "subject:", "size", "message-id:",
		"attempting ", "resolving ", "waiting for ", "connection established", "p=", "d=", "-->", "<--"} {
		if ascii.HasPrefixFold(t, p) {
			return true
		}
	}
	return false
}

// nextStamp returns the offset just after the next MDaemon time stamp in
// d from at on ("Thu 2026-04-16 10:02:41.491: ", "Sat 2010-07-24
// 14:56:31: "), -1 when there is none.
func nextStamp(d string, at int) int {
	for i := at; i+19 <= len(d); i++ {
		// "2026-04-16 10:02:41": the cheap test of the separators first,
		// then the date and the clock as sessionstamp.go reads them.
		if d[i+4] != '-' || d[i+10] != ' ' || d[i+13] != ':' || !isDate(d[i:i+10]) || !isClock(d[i+11:i+19]) {
			continue
		}
		if i < 4 || d[i-1] != ' ' || !ascii.IsAlpha(d[i-2]) || !ascii.IsAlpha(d[i-3]) || !ascii.IsAlpha(d[i-4]) {
			continue
		}
		j := i + 19
		if j < len(d) && d[j] == '.' {
			j++
			for j < len(d) && ascii.IsDigit(d[j]) {
				j++
			}
		}
		if j < len(d) && d[j] == ':' {
			return j + 1
		}
	}
	return -1
}

// stampStart returns the offset of the weekday of the time stamp that
// ends at end (as nextStamp returned it).
func stampStart(d string, end int) int {
	i := end - 1 // the colon
	for i > 0 && d[i-1] != ' ' {
		i--
	}
	// i is at the time; the date and the weekday come before it.
	return max(0, i-len("Thu 2026-04-16 "))
}

// transcriptRecipient returns the one recipient an MDaemon session
// transcript names in its opening notes ("*  To: user@example.org", the
// message it parses before it connects), "" when it names none, or more
// than one: a session refused before its RCPT command (at the greeting,
// "<-- 554 5.7.1 ... blocked using zen.spamhaus.org", or at MAIL) names
// its recipient nowhere else when the notice does not attach the message.
func transcriptRecipient(text string) string {
	found := ""
	n := 0
	for line := range stampedNotes(text) {
		if n++; n > maxTranscriptNotes {
			break
		}
		if k := strings.IndexByte(line, '\n'); k >= 0 {
			line = line[:k]
		}
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "*"); ok {
			if rest = strings.TrimSpace(rest); ascii.HasPrefixFold(rest, "to:") {
				a := cleanAddress(strings.TrimSpace(rest[len("to:"):]))
				switch {
				case !plausibleAddress(a):
					return ""
				case found == "":
					found = a
				case !strings.EqualFold(found, a):
					return ""
				}
			}
		}
	}
	return found
}

// stampedNotes yields the time-stamped notes of an MDaemon transcript in
// d, each from its time stamp's end to the next stamp (or the end of d),
// in the order they come (transcriptNotes, transcriptRecipient).
func stampedNotes(d string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := nextStamp(d, 0); i >= 0; {
			end := nextStamp(d, i)
			note := d[i:]
			if end >= 0 {
				note = d[i:stampStart(d, end)]
			}
			if !yield(note) {
				return
			}
			i = end
		}
	}
}

// maxTranscriptNotes bounds the time-stamped lines transcriptRecipient reads.
const maxTranscriptNotes = 256
