package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// maxNameInText caps how much of an address or host name goes into an
// explanation: they come from the bounce, and the explanation may become a
// header (X-NDR-Explanation).
const maxNameInText = 200

// explain writes, in language lang, the sentence of the texts for a record's action, naming the
// recipient, the remote server and the cause: the explanation of a success,
// and of a rule written in the older form (a cause, no explanation).
// Everything taken from the message is made plain printable ASCII first.
func (e *Engine) explain(in *Input, action smtpcode.Action, cause string, lang int, v *slotValues) text {
	rcpt := sanitize(in.Recipient)
	remote := sanitize(namedRemote(in.RemoteMTA))
	t := e.textsFor(lang)
	*v = slotValues{slotRecipient: rcpt, slotRemote: remote, slotCause: cause}
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
			r, n := utf8.DecodeRuneInString(cause)
			v[slotCauseCapital] = string(unicode.ToUpper(r)) + cause[n:]
		}
	case remote != "":
		frame = textExplainRefused
	default:
		frame = textExplainUndelivered
	}
	return t[frame]
}

// sanitize makes text taken from the message plain printable ASCII on one
// line, cut at maxNameInText (see textclean.ASCII; Unicode white space at
// the ends goes first).
func sanitize(s string) string {
	return textclean.ASCII(strings.TrimSpace(s), maxNameInText)
}
