package dsn

// commandMarks map the phrases reports use to name the SMTP command a
// failure happened at to that command, surest first: Postfix's "in reply
// to RCPT TO command", Exim's "after RCPT TO", Sendmail's ">>> DATA",
// qmail's "does not like recipient", DragonFly's "did not like our final
// DATA".
var commandMarks = []struct{ mark, key, command string }{
	{"in reply to rcpt to command", "rcpt", "RCPT"},
	{"in reply to mail from command", "mail", "MAIL"},
	{"in reply to end of data command", "data", "DATA"},
	{"in reply to data command", "data", "DATA"},
	{"in reply to ehlo command", "ehlo", "EHLO"},
	{"in reply to helo command", "helo", "HELO"},
	{"in reply to starttls command", "starttls", "STARTTLS"},
	{"in reply to auth", "auth", "AUTH"},
	{"after rcpt to", "rcpt", "RCPT"},
	{"after mail from", "mail", "MAIL"},
	{"after end of data", "data", "DATA"},
	{"after data", "data", "DATA"},
	{"after ehlo", "ehlo", "EHLO"},
	{"after helo", "helo", "HELO"},
	{"after starttls", "starttls", "STARTTLS"},
	{"after initial connection", "connection", "CONN"},
	{">>> rcpt to", "rcpt", "RCPT"},
	{">>> mail from", "mail", "MAIL"},
	{">>> data", "data", "DATA"},
	{">>> ehlo", "ehlo", "EHLO"},
	{">>> helo", "helo", "HELO"},
	{"did not like our rcpt to", "rcpt", "RCPT"},
	{"did not like our mail from", "mail", "MAIL"},
	{"did not like our final data", "data", "DATA"},
	{"did not like our data", "data", "DATA"},
	{"does not like recipient", "like", "RCPT"},
	{"does not like sender", "like", "MAIL"},
	{"didn't like the sender", "like", "MAIL"},
	{"didn't like the recipient", "like", "RCPT"},
	{"smtp:rcpt", "rcpt", "RCPT"},
	{"smtp:mail", "mail", "MAIL"},
	{"smtp:data", "data", "DATA"},
	{"rcpt to:<", "rcpt", "RCPT"},
	{"rcpt to: <", "rcpt", "RCPT"},
	{"mail from:<", "mail", "MAIL"},
	{"mail from: <", "mail", "MAIL"},
	{"[rcpt_to]", "rcpt", "RCPT"},
	{"[mail_from]", "mail", "MAIL"},
	{"(rcpt)", "rcpt", "RCPT"},
	{"rcpt command", "rcpt", "RCPT"},
	{"mail command", "mail", "MAIL"},
	{"data command", "data", "DATA"},
	{"end of data", "data", "DATA"},
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
	// Each mark holds a key word; a key word is looked for once, and only
	// the marks whose key word is there are tried.
	var state [len(commandKeys)]int8 // 0 unknown, 1 present, -1 absent
	for _, m := range commandMarks {
		k := keyIndex(m.key)
		if state[k] == 0 {
			state[k] = -1
			if containsString(lb, m.key) {
				state[k] = 1
			}
		}
		if state[k] == 1 && containsString(lb, m.mark) {
			return m.command
		}
	}
	return ""
}

// commandKeys are the key words of commandMarks.
var commandKeys = [...]string{"rcpt", "mail", "data", "ehlo", "helo", "starttls", "auth", "connection", "like"}

// keyIndex returns the index of key in commandKeys.
func keyIndex(key string) int {
	for i, k := range commandKeys {
		if k == key {
			return i
		}
	}
	return 0
}
