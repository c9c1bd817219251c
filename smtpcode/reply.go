package smtpcode

import "fmt"

// Reply is an SMTP reply code (RFC 5321 section 4.2), e.g. 550. The zero
// Reply is no code.
type Reply uint16

// ParseReply reads s, which must be a whole reply code: three digits, a
// class 2, 4 or 5, a second digit 0-5 (RFC 5321 section 4.2.1).
func ParseReply(s string) (Reply, error) {
	if !isReply(s) {
		return 0, fmt.Errorf("smtpcode: %q is not an SMTP reply code: expected three digits such as 550, class 2, 4 or 5, second digit 0-5 (RFC 5321 section 4.2)", s)
	}
	return Reply(s[0]-'0')*100 + Reply(s[1]-'0')*10 + Reply(s[2]-'0'), nil
}

// isReply says whether s is a reply code as ParseReply accepts it.
func isReply(s string) bool {
	return len(s) == 3 && Class(s[0]-'0').Valid() && '0' <= s[1] && s[1] <= '5' && isDigit(s[2])
}

// Class returns the class of r, its first digit.
func (r Reply) Class() Class { return Class(r / 100) }

// String returns the three digits of r, or "" for the zero Reply.
func (r Reply) String() string {
	if r == 0 {
		return ""
	}
	return string([]byte{byte('0' + r/100), byte('0' + r/10%10), byte('0' + r%10)})
}
