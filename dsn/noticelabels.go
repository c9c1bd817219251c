package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Labelled notices: the plain-text notices of security gateways and hosted
// filters, which state the refusal as "Label: value" lines under the
// recipient rather than as a relayed reply. Trend Micro Email Security and
// ScanMail ("Policy:", "Action:", "Reason:", "Remote server response:"),
// Sophos Email and PureMessage ("Reason:", "Rule:"), Barracuda ("Reason:"),
// Cisco Secure Email content filter bounces ("Reason:", "Filter:"),
// Mimecast's and Proofpoint's notifications ("Reason:", "Policy:"),
// Exchange's "Diagnostic information for administrators:" and "Remote
// Server returned '...'", Gmail's "The error that the other server
// returned was:". A labelled reply line gives the remote server's reply; a
// labelled cause ("Reason:", "Policy:", "Rule:") gives the notice's own
// cause. The sentence that opens such a notice ("The message you sent ...
// was blocked by the recipient organization's email policy:") is neither.

// noticeReplyLabels are lower-case labels after which a notice quotes the
// remote server's reply. "remote server returned" is Exchange's, which
// quotes the reply without a colon ("Remote Server returned '550 ...'").
var noticeReplyLabels = [...]string{
	"remote server response", "remote server reply", "remote server returned", "remote server said",
	"response from remote server", "server response", "smtp response", "smtp error",
	"the error that the other server returned was", "the response from the remote server was",
	"diagnostic information", "diagnostic code", "diagnostic-code", "error message",
}

// noticeCauseLabels are lower-case labels after which a notice states its
// own cause: the reason, and the policy, rule or filter that applied.
var noticeCauseLabels = [...]string{
	"reason", "policy", "policy name", "rule", "rule name", "filter", "content filter", "violation",
	"blocked attachment", "attachment", "file name", "filename", "threat",
}

// noticeOtherLabels are lower-case labels of lines of such notices that
// are neither reply nor cause ("Action: Delete entire message"): a header
// never has them, so a block holding them is no copied header.
var noticeOtherLabels = [...]string{"action", "action taken", "detected", "quarantine", "scan result"}

// labelKind says what a notice line's label introduces.
type labelKind int

const (
	labelNone  labelKind = iota
	labelReply           // the remote server's reply
	labelCause           // the notice's cause
	labelOther           // another line of a labelled notice
)

// noticeLabel reads a line of a notice (t, trimmed) as "Label: value": the
// kind of its label and the value, trimmed. labelNone when the line starts
// with none of the labels.
func noticeLabel(t []byte) (labelKind, []byte) {
	if len(t) < 4 {
		return labelNone, nil
	}
	head := t[:min(len(t), 48)]
	for _, set := range [...]struct {
		kind   labelKind
		labels []string
	}{{labelReply, noticeReplyLabels[:]}, {labelCause, noticeCauseLabels[:]}, {labelOther, noticeOtherLabels[:]}} {
		for _, l := range set.labels {
			if len(head) <= len(l) || !ascii.EqualFold(head[:len(l)], l) {
				continue
			}
			rest := bytes.TrimLeft(t[len(l):], " \t")
			switch {
			case len(rest) > 0 && rest[0] == ':':
				return set.kind, bytes.TrimSpace(rest[1:])
			case l == "remote server returned":
				return set.kind, bytes.TrimSpace(rest)
			}
		}
	}
	// The same labels in other languages (foreignlabels.go).
	return foreignNoticeLabel(t)
}

// isNoticeLabelLine says whether a line starts with a notice's label.
func isNoticeLabelLine(line []byte) bool {
	k, _ := noticeLabel(bytes.TrimSpace(line))
	return k != labelNone
}

// labelledDiagnostic reads the lines of a recipient's block (or of a
// notice without one) as a labelled notice: its causes, each "Label:
// value", then the remote server's reply, made one text. A line that is no
// label continues the value of the label above it (a reason folded on two
// lines). ok is false when no line gives a reply or a cause: the text is
// then read as before. A reply line whose value is empty takes the next
// line ("Diagnostic information for administrators:" then the reply).
func labelledDiagnostic(sc *scratch, buf []byte) (d string, ok bool) {
	// Gathered on the stack: most blocks have no labelled lines, and the
	// result is copied out of them.
	var causeRoom, replyRoom, lowRoom [256]byte
	causes, reply := causeRoom[:0], replyRoom[:0]
	last := labelNone
	for i := 0; i < len(buf); {
		line, next := ascii.NextLine(buf, i)
		i = next
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			last = labelNone
			continue
		}
		kind, v := noticeLabel(t)
		switch kind {
		case labelReply:
			if len(reply) == 0 {
				reply = append(reply, v...)
				last = labelReply
			} else {
				last = labelOther
			}
		case labelCause:
			if len(causes) > 0 {
				causes = append(causes, ". "...)
			}
			causes = append(causes, strings.TrimSpace(string(t[:len(t)-len(v)]))...)
			causes = append(causes, ' ')
			causes = append(causes, v...)
			last = labelCause
		case labelOther:
			last = labelOther
		default:
			switch {
			case last == labelReply:
				reply = appendLine(reply, t)
			case last == labelCause && (endsSentenceJa(causes) || contactWording(ascii.LowerInto(lowRoom[:0], t))):
				// A Japanese sentence ended, or the contact block
				// begins: the cause does not run on (contactblock.go).
				last = labelOther
			case last == labelCause:
				causes = append(append(causes, ' '), t...)
			case len(t) >= 3 && (t[0] == '4' || t[0] == '5') && smtpcode.IsReply(string(t[:3])) && len(reply) == 0:
				// An unlabelled reply among labelled lines.
				reply, last = append(reply, t...), labelReply
			}
		}
	}
	if len(causes) == 0 && (len(reply) == 0 || hasCodeBytes(reply)) {
		// Without a cause, a labelled reply that has its code needs
		// nothing here: Recipient.Reply is cut from its code on, and
		// the words around it name the host and the command.
		return "", false
	}
	// The result in the scratch (a copy, then made one line there).
	out := strings.TrimRight(collapseSpace(sc, sc.add(causes)), " .")
	if r := strings.Trim(collapseSpace(sc, sc.add(reply)), `'"`); r != "" {
		if out != "" {
			out = sc.concat(out, ". ", joinMultiline(sc, r))
		} else {
			out = joinMultiline(sc, r)
		}
	}
	out = foldWidth(out) // "（暗号化）ＺＩＰ" as "(暗号化)ZIP" (foreignlabels.go)
	if len(out) > maxBlockText {
		out = out[:maxBlockText]
	}
	return out, out != ""
}

// noticeSummary is the diagnostic of a recipient that has no block of its
// own: the labelled lines of the section when it has some, else the
// section made one line (sectionSummary).
func noticeSummary(sc *scratch, section []byte) string {
	if d, ok := labelledDiagnostic(sc, section); ok {
		return d
	}
	return sectionSummary(sc, section)
}
