package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// maxNameInText caps how much of an address or host name goes into an
// explanation: they come from the bounce, and the explanation may become a
// header (X-NDR-Explanation).
const maxNameInText = 200

// explain writes the explanation of a record: the rule's template when it has
// one, else the sentence of the texts for the record's action, naming the
// recipient, the remote server and the cause. Everything taken from the
// message is made plain printable ASCII first.
func (e *Engine) explain(template string, in Input, action smtpcode.Action, status, cause string) string {
	rcpt := sanitize(in.Recipient)
	remote := sanitize(in.RemoteMTA)
	t := e.texts
	if template != "" {
		r := strings.NewReplacer("{recipient}", orWord(rcpt, t[textUnnamedRecipient].plain()), "{remote}", orWord(remote, t[textUnnamedRemote].plain()),
			"{reporting}", orWord(sanitize(in.ReportingMTA), t[textUnnamedReporting].plain()), "{status}", status, "{cause}", cause)
		return r.Replace(template)
	}
	v := slotValues{slotRecipient: rcpt, slotRemote: remote, slotCause: cause}
	var frame textKey
	switch {
	case action == smtpcode.ActionDelayed:
		frame = textExplainDelayed
	case action == smtpcode.ActionDelivered:
		frame = textExplainDelivered
	case action == smtpcode.ActionRelayed:
		frame = textExplainRelayed
	case action == smtpcode.ActionExpanded:
		frame = textExplainExpanded
	case rcpt == "" && remote == "":
		// A bare code (ndrmilter code): the cause alone, as a sentence.
		frame = textExplainCause
		if cause != "" {
			v[slotCauseCapital] = strings.ToUpper(cause[:1]) + cause[1:]
		}
	case remote != "":
		frame = textExplainRefused
	default:
		frame = textExplainUndelivered
	}
	return t[frame].render(&v)
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// sanitize makes text taken from the message plain printable ASCII on one
// line, cut at maxNameInText (see textclean.ASCII; Unicode white space at
// the ends goes first).
func sanitize(s string) string {
	return textclean.ASCII(strings.TrimSpace(s), maxNameInText)
}
