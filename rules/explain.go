package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// maxNameInText caps how much of an address or host name goes into an
// explanation: they come from the bounce, and the explanation may become a
// header (X-NDR-Explanation).
const maxNameInText = 200

// explain writes the explanation of a record: the rule's template when it has
// one, else a sentence naming the recipient, the remote server and the cause.
// Everything taken from the message is made plain printable ASCII first.
func explain(template string, in Input, action, status, cause string) string {
	rcpt := sanitize(in.Recipient)
	remote := sanitize(in.RemoteMTA)
	if template != "" {
		r := strings.NewReplacer("{recipient}", orWord(rcpt, "the recipient"), "{remote}", orWord(remote, "the receiving server"),
			"{reporting}", orWord(sanitize(in.ReportingMTA), "the reporting server"), "{status}", status, "{cause}", cause)
		return r.Replace(template)
	}
	var b strings.Builder
	switch {
	case action == "delayed":
		b.WriteString("Delivery of the message")
		if rcpt != "" {
			b.WriteString(" to " + rcpt)
		}
		b.WriteString(" is delayed")
		if remote != "" {
			b.WriteString(" at " + remote)
		}
		b.WriteString(" because " + cause + "; the sending server keeps trying.")
	case action == "delivered" || action == "relayed" || action == "expanded":
		b.WriteString("The message")
		if rcpt != "" {
			b.WriteString(" to " + rcpt)
		}
		b.WriteString(" was " + action)
		if remote != "" {
			b.WriteString(" by " + remote)
		}
		b.WriteString(".")
	case rcpt == "" && remote == "":
		// A bare code (ndrmilter code): the cause alone, as a sentence.
		if cause != "" {
			b.WriteString(strings.ToUpper(cause[:1]) + cause[1:] + ".")
		}
	default:
		b.WriteString("The message")
		if rcpt != "" {
			b.WriteString(" to " + rcpt)
		}
		if remote != "" {
			b.WriteString(" was refused by " + remote)
		} else {
			b.WriteString(" could not be delivered")
		}
		b.WriteString(" because " + cause + ".")
	}
	return b.String()
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
