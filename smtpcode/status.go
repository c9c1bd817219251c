package smtpcode

import (
	"fmt"
	"strconv"
)

// Class is the class of a reply code or of an enhanced status code: its
// first digit (RFC 3463 section 3.1, RFC 5321 section 4.2.1).
type Class uint8

// The classes ndrmilter reads.
const (
	ClassSuccess   Class = 2 // "Success"; 2yz: positive completion
	ClassTransient Class = 4 // "Persistent Transient Failure"; 4yz: transient negative completion
	ClassPermanent Class = 5 // "Permanent Failure"; 5yz: permanent negative completion
)

// Valid says whether c is one of ClassSuccess, ClassTransient and
// ClassPermanent.
func (c Class) Valid() bool {
	return c == ClassSuccess || c == ClassTransient || c == ClassPermanent
}

// Status is an RFC 3463 enhanced status code, class.subject.detail, e.g.
// 5.7.509. The zero Status is no code.
type Status struct {
	Class   Class
	Subject uint16 // 0-999; RFC 3463 defines 0-7
	Detail  uint16 // 0-999
}

// ParseStatus reads s, which must be a whole enhanced status code: class 2,
// 4 or 5, subject and detail of one to three digits. Leading zeros are
// allowed ("5.01.001" is 5.1.1), as the grammar of RFC 3463 section 2 allows.
func ParseStatus(s string) (Status, error) {
	st, ok := parseStatus(s)
	if !ok {
		return Status{}, fmt.Errorf("smtpcode: %q is not an enhanced status code: expected class.subject.detail, class 2, 4 or 5, subject and detail 0-999, e.g. 5.1.1 (RFC 3463)", s)
	}
	return st, nil
}

// parseStatus is ParseStatus without the error, for the paths that must not
// allocate.
func parseStatus(s string) (Status, bool) {
	if len(s) < 5 || len(s) > 11 || s[1] != '.' {
		return Status{}, false
	}
	class := Class(s[0] - '0')
	if !class.Valid() {
		return Status{}, false
	}
	subject, n := number(s, 2)
	if n == 0 || 2+n >= len(s) || s[2+n] != '.' {
		return Status{}, false
	}
	detail, m := number(s, 3+n)
	if m == 0 || 3+n+m != len(s) {
		return Status{}, false
	}
	return Status{Class: class, Subject: subject, Detail: detail}, true
}

// number reads one to three digits at s[i]; n is how many, 0 when there is
// no digit there or more than three.
func number(s string, i int) (v uint16, n int) {
	for i+n < len(s) && isDigit(s[i+n]) {
		if n == 3 {
			return 0, 0
		}
		v = v*10 + uint16(s[i+n]-'0')
		n++
	}
	return v, n
}

// String returns the code in its canonical form, "5.7.509", or "" for the
// zero Status.
func (s Status) String() string {
	if s.IsZero() {
		return ""
	}
	var b [11]byte
	return string(s.Append(b[:0]))
}

// Append appends the code in its canonical form to b, as String writes
// it, and returns the extended buffer: nothing for the zero Status.
func (s Status) Append(b []byte) []byte {
	if s.IsZero() {
		return b
	}
	b = strconv.AppendUint(b, uint64(s.Class), 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(s.Subject), 10)
	b = append(b, '.')
	return strconv.AppendUint(b, uint64(s.Detail), 10)
}

// IsZero says whether s is the zero Status, no code.
func (s Status) IsZero() bool { return s == Status{} }

// Generic says whether s carries only its class, X.0.0 (RFC 3463 section
// 3.1: "Other undefined Status"): a more precise code elsewhere says more.
func (s Status) Generic() bool { return s.Class != 0 && s.Subject == 0 && s.Detail == 0 }

// Registered says whether the subject of s is one RFC 3463 defines (0-7),
// as the text scanners require.
func (s Status) Registered() bool { return s.Class.Valid() && s.Subject <= maxSubject }

// maxSubject is the highest subject RFC 3463 section 3 defines, and the
// highest the text scanners accept.
const maxSubject = 7

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
