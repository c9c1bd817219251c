package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// code is a parsed RFC 3463 enhanced status code, class.subject.detail
// (RFC 3463 section 2: class is 2, 4 or 5; subject and detail are 0-999).
type code struct {
	class, subject, detail int
}

// parseCode parses "5.7.509". ok is false for anything else.
func parseCode(s string) (c code, ok bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return c, false
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || len(p) > 3 || len(p) == 0 || v < 0 {
			return c, false
		}
		n[i] = v
	}
	if n[0] != 2 && n[0] != 4 && n[0] != 5 {
		return c, false
	}
	return code{n[0], n[1], n[2]}, true
}

func (c code) String() string {
	var b [11]byte
	out := strconv.AppendInt(b[:0], int64(c.class), 10)
	out = append(out, '.')
	out = strconv.AppendInt(out, int64(c.subject), 10)
	out = append(out, '.')
	out = strconv.AppendInt(out, int64(c.detail), 10)
	return string(out)
}

// statusPattern matches enhanced status codes. Written in a rules file as an
// exact code ("5.1.1"), a range of details ("5.7.606-649"), or with "*" for
// any class, subject or detail ("5.1.*", "*.2.2", "4.*.*"); or the word
// "none", which matches a record with no enhanced status at all.
type statusPattern struct {
	none            bool
	class, subject  int // -1: any
	detailLo, detHi int // -1: any
}

func parseStatusPattern(s string) (statusPattern, error) {
	if s == "none" {
		return statusPattern{none: true}, nil
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return statusPattern{}, fmt.Errorf("status %q: expected class.subject.detail, e.g. 5.1.1, 5.7.606-649, 5.1.* or none", s)
	}
	p := statusPattern{}
	num := func(field, v string, max int) (int, error) {
		if v == "*" {
			return -1, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > max || len(v) > 3 {
			return 0, fmt.Errorf("status %q: %s %q is not a number 0-%d or *", s, field, v, max)
		}
		return n, nil
	}
	var err error
	if p.class, err = num("class", parts[0], 9); err != nil {
		return p, err
	}
	if p.class != -1 && p.class != 2 && p.class != 4 && p.class != 5 {
		return p, fmt.Errorf("status %q: class must be 2, 4, 5 or * (RFC 3463)", s)
	}
	if p.subject, err = num("subject", parts[1], 999); err != nil {
		return p, err
	}
	lo, hi, isRange := strings.Cut(parts[2], "-")
	if p.detailLo, err = num("detail", lo, 999); err != nil {
		return p, err
	}
	p.detHi = p.detailLo
	if isRange {
		if p.detailLo < 0 {
			return p, fmt.Errorf("status %q: a range needs numbers, e.g. 5.7.606-649", s)
		}
		if p.detHi, err = num("detail", hi, 999); err != nil || p.detHi < 0 {
			return p, fmt.Errorf("status %q: range end %q is not a number 0-999", s, hi)
		}
		if p.detHi < p.detailLo {
			return p, fmt.Errorf("status %q: range end %d is below its start %d", s, p.detHi, p.detailLo)
		}
	}
	return p, nil
}

// match reports whether the code c (has: a code is known) fits the pattern.
func (p statusPattern) match(c code, has bool) bool {
	if p.none {
		return !has
	}
	if !has {
		return false
	}
	if p.class >= 0 && p.class != c.class {
		return false
	}
	if p.subject >= 0 && p.subject != c.subject {
		return false
	}
	if p.detailLo >= 0 && (c.detail < p.detailLo || c.detail > p.detHi) {
		return false
	}
	return true
}

// replyPattern matches SMTP reply codes: "550", "55x", "5xx"; or "none" for a
// record with no reply code.
type replyPattern struct {
	none   bool
	digits [3]byte // 0 for "x"
}

func parseReplyPattern(s string) (replyPattern, error) {
	if s == "none" {
		return replyPattern{none: true}, nil
	}
	var p replyPattern
	if len(s) != 3 || s[0] < '2' || s[0] > '5' {
		return p, fmt.Errorf("reply %q: expected a three-digit SMTP reply code such as 550, 55x or 5xx, or none", s)
	}
	for i := 0; i < 3; i++ {
		switch b := s[i]; {
		case b == 'x' || b == 'X':
			p.digits[i] = 0
		case '0' <= b && b <= '9':
			p.digits[i] = b
		default:
			return p, fmt.Errorf("reply %q: expected a three-digit SMTP reply code such as 550, 55x or 5xx, or none", s)
		}
	}
	return p, nil
}

func (p replyPattern) match(reply string) bool {
	if p.none {
		return reply == ""
	}
	if len(reply) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if p.digits[i] != 0 && p.digits[i] != reply[i] {
			return false
		}
	}
	return true
}

// findCode returns the first enhanced status code in text, e.g. the 5.1.1 of
// "550 5.1.1 <bob@example.com>: Recipient address rejected" or of "#5.1.1".
// It skips dotted numbers that are part of something longer (IP addresses,
// version numbers).
func findCode(text string) (code, bool) {
	for i := 0; i+5 <= len(text); i++ {
		b := text[i]
		if b != '2' && b != '4' && b != '5' {
			continue
		}
		if i > 0 && (isDigit(text[i-1]) || text[i-1] == '.') {
			continue
		}
		if text[i+1] != '.' {
			continue
		}
		j := i + 2
		s0 := j
		for j < len(text) && isDigit(text[j]) && j-s0 < 4 {
			j++
		}
		if j == s0 || j-s0 > 3 || j >= len(text) || text[j] != '.' {
			continue
		}
		j++
		d0 := j
		for j < len(text) && isDigit(text[j]) && j-d0 < 4 {
			j++
		}
		if j == d0 || j-d0 > 3 {
			continue
		}
		if j < len(text) && (text[j] == '.' && j+1 < len(text) && isDigit(text[j+1]) || isDigit(text[j])) {
			continue // 5.1.1.1: an address or version, not a status
		}
		if j < len(text) && (text[j] == ',' || text[j] == '-') && j+1 < len(text) && isDigit(text[j+1]) {
			continue // a list of numbers (versions), not a status
		}
		// RFC 3463 defines subjects 0 to 7: "5.13.68" is a version number.
		if c, ok := parseCode(text[i:j]); ok && c.subject <= 7 {
			return c, true
		}
	}
	return code{}, false
}

// leadingReply returns the SMTP reply code that starts text ("550 ...",
// "550-...", "smtp; 550 ..."), or "".
func leadingReply(text string) string {
	t := strings.TrimLeft(text, " \t")
	if len(t) >= 5 && strings.EqualFold(t[:5], "smtp;") {
		t = strings.TrimLeft(t[5:], " \t")
	}
	if len(t) < 3 || t[0] < '2' || t[0] > '5' || !isDigit(t[1]) || !isDigit(t[2]) {
		return ""
	}
	if len(t) > 3 && t[3] != ' ' && t[3] != '-' && t[3] != '\t' {
		return ""
	}
	return t[:3]
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
