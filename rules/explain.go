package rules

import "strings"

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

// sanitize makes s safe for a one-line ASCII text: control bytes (CR, LF...)
// become spaces, other non-ASCII bytes '?', runs of space one space, and the
// result is cut at maxNameInText.
func sanitize(s string) string {
	s = strings.TrimSpace(s)
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			clean = false
			break
		}
	}
	if clean && len(s) <= maxNameInText && !strings.Contains(s, "  ") {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s) && len(b) < maxNameInText; i++ {
		c := s[i]
		switch {
		case c < ' ' || c == 0x7f || c == ' ':
			if !space {
				b = append(b, ' ')
			}
			space = true
			continue
		case c > '~':
			// One '?' per UTF-8 sequence: skip continuation bytes.
			if c&0xC0 == 0x80 {
				continue
			}
			c = '?'
		}
		b = append(b, c)
		space = false
	}
	return strings.TrimSpace(string(b))
}
