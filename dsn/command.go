package dsn

import "strings"

// findCommand returns the SMTP command a diagnostic says the failure
// happened at: "in reply to RCPT TO command" (Postfix), "after RCPT TO"
// (Exim), ">>> DATA" (Sendmail), "end of data". "" when it does not say.
func findCommand(diag string) string {
	if diag == "" {
		return ""
	}
	l := lowerString(diag)
	switch {
	case strings.Contains(l, "rcpt to"), strings.Contains(l, "rcpt command"), strings.Contains(l, "recipient address rejected"):
		return "RCPT"
	case strings.Contains(l, "mail from"), strings.Contains(l, "mail command"), strings.Contains(l, "sender address rejected"):
		return "MAIL"
	case strings.Contains(l, "end of data"), strings.Contains(l, "data command"), strings.Contains(l, "after data"), strings.Contains(l, ">>> data"):
		return "DATA"
	case strings.Contains(l, "in reply to helo"), strings.Contains(l, "in reply to ehlo"), strings.Contains(l, "after ehlo"), strings.Contains(l, "after helo"):
		return "EHLO"
	case strings.Contains(l, "starttls"):
		return "STARTTLS"
	case strings.Contains(l, "after initial connection"), strings.Contains(l, "greeting"):
		return "CONN"
	}
	return ""
}
