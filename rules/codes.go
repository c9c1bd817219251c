package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The code patterns of a rules file's "when". What a code is (and which
// code a text holds) is package smtpcode's.

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
	if p.class != -1 && !smtpcode.Class(p.class).Valid() {
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
func (p statusPattern) match(c smtpcode.Status, has bool) bool {
	if p.none {
		return !has
	}
	if !has {
		return false
	}
	if p.class >= 0 && p.class != int(c.Class) {
		return false
	}
	if p.subject >= 0 && p.subject != int(c.Subject) {
		return false
	}
	if p.detailLo >= 0 && (int(c.Detail) < p.detailLo || int(c.Detail) > p.detHi) {
		return false
	}
	return true
}

// replyPattern matches SMTP reply codes: "550", "55x", "5xx"; or "none" for a
// record with no reply code.
type replyPattern struct {
	none   bool
	digits [3]int // -1 for "x"
}

func parseReplyPattern(s string) (replyPattern, error) {
	if s == "none" {
		return replyPattern{none: true}, nil
	}
	var p replyPattern
	bad := fmt.Errorf("reply %q: expected a three-digit SMTP reply code of class 2, 4 or 5 such as 550, 55x or 5xx, or none", s)
	if len(s) != 3 || !smtpcode.Class(s[0]-'0').Valid() {
		return p, bad
	}
	for i := 0; i < 3; i++ {
		switch b := s[i]; {
		case b == 'x' || b == 'X':
			p.digits[i] = -1
		case '0' <= b && b <= '9':
			p.digits[i] = int(b - '0')
		default:
			return p, bad
		}
	}
	return p, nil
}

// match reports whether the reply code r (0: none) fits the pattern.
func (p replyPattern) match(r smtpcode.Reply) bool {
	if p.none {
		return r == 0
	}
	if r == 0 {
		return false
	}
	got := [3]int{int(r / 100), int(r / 10 % 10), int(r % 10)}
	for i, d := range p.digits {
		if d >= 0 && d != got[i] {
			return false
		}
	}
	return true
}
