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
// the greeting), "" when it does not say.
func findCommand(diag string) string {
	if diag == "" {
		return ""
	}
	// Lower-case into a buffer on the stack: most diagnostics are short.
	var small [512]byte
	var lb []byte
	if len(diag) <= len(small) {
		lb = small[:len(diag)]
		for i := 0; i < len(diag); i++ {
			lb[i] = lowerTable[diag[i]]
		}
	} else {
		lb = toLower([]byte(diag))
	}
	// Every mark holds one of these words: most diagnostics hold none.
	if !containsString(lb, "rcpt") && !containsString(lb, "mail") && !containsString(lb, "data") &&
		!containsString(lb, "helo") && !containsString(lb, "ehlo") && !containsString(lb, "starttls") &&
		!containsString(lb, "connection") && !containsString(lb, "recipient") && !containsString(lb, "sender") &&
		!containsString(lb, "auth") {
		return ""
	}
	for _, m := range commandMarks {
		if containsString(lb, m.mark) {
			return m.command
		}
	}
	return ""
}
