package dsn

// commandMarks map the phrases reports use to name the SMTP command a
// failure happened at to that command, surest first: Postfix's "in reply
// to RCPT TO command", Exim's "after RCPT TO", Sendmail's ">>> DATA",
// qmail's "does not like recipient", DragonFly's "did not like our final
// DATA".
var commandMarks = []struct{ mark, command string }{
	{"in reply to rcpt to command", "RCPT"},
	{"in reply to mail from command", "MAIL"},
	{"in reply to end of data command", "DATA"},
	{"in reply to data command", "DATA"},
	{"in reply to ehlo command", "EHLO"},
	{"in reply to helo command", "HELO"},
	{"in reply to starttls command", "STARTTLS"},
	{"in reply to auth", "AUTH"},
	{"after rcpt to", "RCPT"},
	{"after mail from", "MAIL"},
	{"after end of data", "DATA"},
	{"after data", "DATA"},
	{"after ehlo", "EHLO"},
	{"after helo", "HELO"},
	{"after starttls", "STARTTLS"},
	{"after initial connection", "CONN"},
	{">>> rcpt to", "RCPT"},
	{">>> mail from", "MAIL"},
	{">>> data", "DATA"},
	{">>> ehlo", "EHLO"},
	{">>> helo", "HELO"},
	{"did not like our rcpt to", "RCPT"},
	{"did not like our mail from", "MAIL"},
	{"did not like our final data", "DATA"},
	{"did not like our data", "DATA"},
	{"does not like recipient", "RCPT"},
	{"does not like sender", "MAIL"},
	{"didn't like the sender", "MAIL"},
	{"didn't like the recipient", "RCPT"},
	{"smtp:rcpt", "RCPT"},
	{"smtp:mail", "MAIL"},
	{"smtp:data", "DATA"},
	{"rcpt to:<", "RCPT"},
	{"rcpt to: <", "RCPT"},
	{"mail from:<", "MAIL"},
	{"mail from: <", "MAIL"},
	{"[rcpt_to]", "RCPT"},
	{"[mail_from]", "MAIL"},
	{"(rcpt)", "RCPT"},
	{"rcpt command", "RCPT"},
	{"mail command", "MAIL"},
	{"data command", "DATA"},
	{"end of data", "DATA"},
}

// findCommand returns the SMTP command a diagnostic says the failure
// happened at (RCPT, MAIL, DATA, EHLO, HELO, STARTTLS, AUTH, or CONN for
// the greeting), "" when it does not say. The answer is that of the first
// mark in commandMarks the text holds, wherever it is; the text is read
// once, trying at each byte only the marks that start with that byte
// (searching for each mark in turn read it dozens of times).
func findCommand(diag string) string {
	best := len(commandMarks)
	for i := 0; i < len(diag) && best > 0; i++ {
		for _, m := range marksByFirst[lowerTable[diag[i]]] {
			if int(m) >= best {
				break // the list is in mark order: the rest come later still
			}
			if hasPrefixFold(diag[i:], commandMarks[m].mark) {
				best = int(m)
				break
			}
		}
	}
	if best == len(commandMarks) {
		return ""
	}
	return commandMarks[best].command
}

// marksByFirst lists, for each byte, the indexes in commandMarks of the
// marks that start with it, in order.
var marksByFirst = func() (t [256][]uint8) {
	for i, m := range commandMarks {
		t[m.mark[0]] = append(t[m.mark[0]], uint8(i))
	}
	return t
}()

// hasPrefixFold says whether s starts with the lower-case ASCII prefix,
// without regard to the case of s.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for j := 0; j < len(prefix); j++ {
		if lowerTable[s[j]] != prefix[j] {
			return false
		}
	}
	return true
}

// indexFold is strings.Index(lowerString(s), sub) for a lower-case sub,
// without the lower-case copy.
func indexFold(s, sub string) int {
	if sub == "" {
		return 0
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if lowerTable[s[i]] == sub[0] && hasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}
