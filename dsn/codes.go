package dsn

// Status codes and SMTP reply codes found in text.

// isDigit says whether c is an ASCII digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isStatus says whether s is an RFC 3463 enhanced status code:
// class "." subject "." detail, class 2, 4 or 5, subject and detail 1-3 digits.
func isStatus(s string) bool {
	_, n := scanStatus(s, 0)
	return n == len(s) && n > 0
}

// scanStatus reads an enhanced status code starting at s[i]; it returns the
// code and its length, or "" and 0.
func scanStatus(s string, i int) (string, int) {
	if i >= len(s) || (s[i] != '2' && s[i] != '4' && s[i] != '5') {
		return "", 0
	}
	j := i + 1
	for part := 0; part < 2; part++ {
		if j >= len(s) || s[j] != '.' {
			return "", 0
		}
		j++
		k := j
		for j < len(s) && isDigit(s[j]) && j-k < 3 {
			j++
		}
		if j == k {
			return "", 0
		}
	}
	if j < len(s) && (isDigit(s[j]) || (s[j] == '.' && j+1 < len(s) && isDigit(s[j+1]))) {
		return "", 0
	}
	return s[i:j], j - i
}

// isGenericStatus says whether a status carries no detail: X.0.0.
func isGenericStatus(s string) bool {
	return len(s) == 5 && s[1:] == ".0.0"
}

// findStatus returns the first enhanced status code in text that is not
// generic (X.0.0), else the first generic one, else "". A code must stand
// alone: not part of an IP address, a version or a longer number.
func findStatus(text string) string {
	generic := ""
	for i := 0; i+5 <= len(text); i++ {
		c := text[i]
		if c != '2' && c != '4' && c != '5' {
			continue
		}
		if i > 0 {
			p := text[i-1]
			if isDigit(p) || p == '.' || isAlpha(p) || p == '-' && i > 1 && isDigit(text[i-2]) {
				continue
			}
		}
		code, n := scanStatus(text, i)
		if n == 0 || code[3] != '.' {
			continue
		}
		if isGenericStatus(code) {
			if generic == "" {
				generic = code
			}
			i += n - 1
			continue
		}
		return code
	}
	return generic
}

// isAlpha says whether c is an ASCII letter.
func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isReplyCode says whether s is a three-digit SMTP reply code (RFC 5321
// section 4.2) of class 2, 4 or 5.
func isReplyCode(s string) bool {
	return len(s) == 3 && (s[0] == '2' || s[0] == '4' || s[0] == '5') &&
		s[1] >= '0' && s[1] <= '5' && isDigit(s[2])
}

// findReplyCode returns the SMTP reply code in a server's reply text: the
// three digits that start it, or that stand alone before a space, a dash or
// an enhanced status code further in. "" when there is none.
func findReplyCode(text string) string {
	for i := 0; i+3 <= len(text); i++ {
		if !isReplyCode(text[i : i+3]) {
			continue
		}
		if i > 0 {
			p := text[i-1]
			if isDigit(p) || isAlpha(p) || p == '.' || p == '-' || p == '+' || p == '/' || p == ',' || p == '=' || p == '_' || p == '@' || p == '$' || p == '%' || p == '#' && i+3 < len(text) && text[i+3] == '.' {
				continue
			}
		}
		j := i + 3
		if j == len(text) {
			if i == 0 {
				return text[i:j]
			}
			continue
		}
		n := text[j]
		if n == ' ' || n == '-' || n == '\t' || n == ']' || n == ')' || n == '"' || n == ':' && i == 0 {
			// "550 bytes", "421 seconds": a count, not a reply.
			if n == ' ' && looksLikeCount(text[j+1:]) {
				continue
			}
			return text[i:j]
		}
	}
	return ""
}

// looksLikeCount says whether the words after a number make it a quantity.
func looksLikeCount(rest string) bool {
	for _, w := range [...]string{"bytes", "byte", "seconds", "second", "minutes", "hours", "days", "recipients", "messages", "kb", "mb", "times", "attempts"} {
		if len(rest) >= len(w) && equalFoldASCII(rest[:len(w)], w) {
			return true
		}
	}
	return false
}

// equalFoldASCII compares two strings without regard to ASCII case.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// diagnosticStatus returns the enhanced status code the server's own reply
// in a diagnostic carries, preferring one that differs from field (the
// Status field): "554 4.4.7 Message expired <421 4.4.2 Connection timed
// out>" gives 4.4.2, the cause under the expiry. Generic codes (X.0.0)
// count only when there is nothing better. "" when the text has none.
func diagnosticStatus(diag, field string) string {
	if c := replyStatus(diag); c != "" && !isGenericStatus(c) {
		return c
	}
	if field != "" && !isGenericStatus(field) {
		// A precise Status field gives way only to the server's own reply.
		return ""
	}
	first, generic := "", ""
	for i := 0; i+5 <= len(diag); i++ {
		c := diag[i]
		if c != '2' && c != '4' && c != '5' {
			continue
		}
		if i > 0 {
			p := diag[i-1]
			if isDigit(p) || p == '.' || isAlpha(p) || p == '-' && i > 1 && isDigit(diag[i-2]) {
				continue
			}
		}
		code, n := scanStatus(diag, i)
		if n == 0 || code[3] != '.' {
			// Subjects are one digit (RFC 3463 section 3.1 defines 0 to 7);
			// "5.13.68" is a version or a score.
			continue
		}
		i += n - 1
		if isGenericStatus(code) {
			if generic == "" {
				generic = code
			}
			continue
		}
		if code != field {
			return code
		}
		if first == "" {
			first = code
		}
	}
	if first != "" {
		return first
	}
	return generic
}

// replyStatus returns the first enhanced code that directly follows an SMTP
// reply code ("550 5.1.1", "550-'5.2.2"), the surest sign of the remote
// server's own words; "" when there is none.
func replyStatus(diag string) string {
	for i := 0; i+9 <= len(diag); i++ {
		if !isReplyCode(diag[i:i+3]) || i > 0 && (isDigit(diag[i-1]) || diag[i-1] == '.') {
			continue
		}
		j := i + 3
		if diag[j] != ' ' && diag[j] != '-' {
			continue
		}
		j++
		if j < len(diag) && (diag[j] == '\'' || diag[j] == '"' || diag[j] == '#' || diag[j] == '(') {
			j++
		}
		if j < len(diag) && diag[j] == diag[i] {
			if code, n := scanStatus(diag, j); n > 0 {
				return code
			}
		}
	}
	return ""
}
