package smtpcode

import "strings"

// FindStatus returns the enhanced status code text gives, as written in
// text, or "". The remote server's own code comes first: the code right
// after the first reply code ("550 5.1.1", "550-'5.2.2"), when it is not
// generic. Else the first code that is not generic (X.0.0), wherever it
// stands ("550 5.0.0 <a@example.com>... 5.7.1 Relaying denied" gives 5.7.1);
// else the first generic code. Only codes that stand alone count (see the
// package documentation).
func FindStatus(text string) string {
	var specific, generic string
	afterReply := false // the first reply code followed by a status is behind
	for i := 0; i+5 <= len(text); i++ {
		if c := text[i]; c != '2' && c != '4' && c != '5' {
			continue
		}
		j, n := replyStatusAt(text, i)
		replyLed := n > 0
		if !replyLed {
			if !standsAlone(text, i) {
				continue
			}
			if n = statusAt(text, i); n == 0 {
				continue
			}
			j = i
		}
		code := text[j : j+n]
		isGeneric := genericCode(code)
		if replyLed && !afterReply {
			afterReply = true
			if !isGeneric {
				return code
			}
			if specific != "" {
				return specific
			}
		}
		switch {
		case isGeneric:
			if generic == "" {
				generic = code
			}
		case afterReply:
			return code
		case specific == "":
			specific = code
		}
		i = j + n - 1
	}
	if specific != "" {
		return specific
	}
	return generic
}

// StatusAfterReply returns the enhanced status code that directly follows
// the first SMTP reply code of text ("550 5.1.1", "550-'5.2.2", "550 #5.1.1"),
// the surest sign of the remote server's own words, or "". The reply code and
// the status must be of the same class.
func StatusAfterReply(text string) string {
	for i := 0; i+9 <= len(text); i++ {
		if c := text[i]; c != '2' && c != '4' && c != '5' {
			continue
		}
		if j, n := replyStatusAt(text, i); n > 0 {
			return text[j : j+n]
		}
	}
	return ""
}

// StatusPrefix returns the enhanced status code s starts with, as the
// scanners accept it, or "".
func StatusPrefix(s string) string { return s[:statusAt(s, 0)] }

// IsStatus says whether s is a whole enhanced status code, as ParseStatus
// accepts it.
func IsStatus(s string) bool {
	_, ok := parseStatus(s)
	return ok
}

// IsReply says whether s is a whole reply code, as ParseReply accepts it.
func IsReply(s string) bool { return isReply(s) }

// FindReply returns the SMTP reply code of a server's reply in text, as
// written in text, or "": three digits that stand alone before a space, a
// tab, a dash, a closing bracket or quote, or, at the very start, a colon
// or the end of the text. A number followed by a unit ("550 bytes", "421
// seconds") is a quantity, not a reply.
func FindReply(text string) string {
	if i := IndexReply(text); i >= 0 {
		return text[i : i+3]
	}
	return ""
}

// IndexReply returns where in text the reply code FindReply finds starts,
// -1 when there is none.
func IndexReply(text string) int {
	for i := 0; i+3 <= len(text); i++ {
		if c := text[i]; c != '2' && c != '4' && c != '5' {
			continue
		}
		if !isReply(text[i : i+3]) {
			continue
		}
		if i > 0 {
			p := text[i-1]
			if isDigit(p) || isAlpha(p) || strings.IndexByte(".-+/,=_@$%", p) >= 0 || p == '#' && i+3 < len(text) && text[i+3] == '.' {
				continue
			}
		}
		j := i + 3
		if j == len(text) {
			if i == 0 {
				return i
			}
			continue
		}
		switch n := text[j]; {
		case n == ' ' && looksLikeCount(text[j+1:]):
			// "550 bytes", "421 seconds": a count, not a reply.
		case n == ' ' || n == '-' || n == '\t' || n == ']' || n == ')' || n == '"' || n == ':' && i == 0:
			return i
		}
	}
	return -1
}

// countUnits are the words after a number that make it a quantity.
var countUnits = [...]string{"bytes", "byte", "seconds", "second", "minutes", "hours", "days", "recipients", "messages", "kb", "mb", "times", "attempts"}

// looksLikeCount says whether the words after a number make it a quantity.
func looksLikeCount(rest string) bool {
	for _, w := range countUnits {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
			return true
		}
	}
	return false
}

// statusAt returns the length of the enhanced status code at text[i] as the
// scanners accept it, 0 when there is none: class 2, 4 or 5, a subject of
// one digit 0-7, a detail of one to three digits, and no more of a number
// after it (a digit, or '.', ',' or '-' before a digit: an IP address, a
// version, a list or a range).
func statusAt(text string, i int) int {
	if i+5 > len(text) {
		return 0
	}
	if c := text[i]; c != '2' && c != '4' && c != '5' {
		return 0
	}
	if text[i+1] != '.' || text[i+2] < '0' || text[i+2] > '0'+maxSubject || text[i+3] != '.' {
		return 0
	}
	j := i + 4
	for j < len(text) && isDigit(text[j]) {
		if j-(i+4) == 3 {
			return 0 // a detail of four digits or more
		}
		j++
	}
	if j == i+4 {
		return 0
	}
	if j+1 < len(text) && (text[j] == '.' || text[j] == ',' || text[j] == '-') && isDigit(text[j+1]) {
		return 0
	}
	return j - i
}

// standsAlone says whether a code that starts at text[i] is not the tail of
// something longer: a word or a number ("v2.1.12", "192.0.5.1.1"), a version
// ("Exim/4.0.3"), a number range or list ("45501-5.1.1", "5.1.2,5.1.3").
func standsAlone(text string, i int) bool {
	if i == 0 {
		return true
	}
	p := text[i-1]
	if isDigit(p) || isAlpha(p) || p == '.' || p == '/' {
		return false
	}
	return !((p == '-' || p == ',') && i > 1 && isDigit(text[i-2]))
}

// replyStatusAt reads a reply code at text[i] directly followed by an
// enhanced status code of its class: "550 5.1.1", "550-5.1.1", "550 '5.2.2",
// "550-#5.1.1", "550 (5.1.1". It returns where the status starts and its
// length, or 0, 0.
func replyStatusAt(text string, i int) (int, int) {
	if i+9 > len(text) || !isReply(text[i:i+3]) {
		return 0, 0
	}
	if i > 0 {
		if p := text[i-1]; isDigit(p) || isAlpha(p) || p == '.' {
			return 0, 0
		}
	}
	j := i + 3
	if text[j] != ' ' && text[j] != '-' {
		return 0, 0
	}
	j++
	if c := text[j]; c == '\'' || c == '"' || c == '#' || c == '(' {
		j++
	}
	if j >= len(text) || text[j] != text[i] {
		return 0, 0
	}
	if n := statusAt(text, j); n > 0 {
		return j, n
	}
	return 0, 0
}

// genericCode says whether code, as statusAt accepts it, is X.0.0.
func genericCode(code string) bool {
	return code[2] == '0' && strings.Trim(code[4:], "0") == ""
}
