package dsn

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// stripType removes an RFC 3464 type prefix ("rfc822;", "smtp;", "dns;",
// "utf-8;", "X-Unix;") from a field value, and says which type it was (lower case).
func stripType(v string) (typ, rest string) {
	semi := strings.IndexByte(v, ';')
	if semi <= 0 || semi > 16 {
		return "", strings.TrimSpace(v)
	}
	t := v[:semi]
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(ascii.IsAlpha(c) || ascii.IsDigit(c) || c == '-' || c == '_' || c == ' ') {
			return "", strings.TrimSpace(v)
		}
	}
	t = strings.TrimSpace(t)
	for _, k := range knownAddressTypes {
		if len(t) == len(k) && ascii.HasPrefixFold(t, k) {
			return k, strings.TrimSpace(v[semi+1:]) // no lower-case copy
		}
	}
	return ascii.LowerString(t), strings.TrimSpace(v[semi+1:])
}

// knownAddressTypes are the common address and diagnostic types of RFC
// 3464 fields, in lower case, which stripType returns without a copy.
var knownAddressTypes = [...]string{"rfc822", "smtp", "dns", "utf-8", "x-postfix", "x-unix", "x-local", "x-local-delivery"}

// recipientAddress reads a Final-Recipient or Original-Recipient value
// (RFC 3464 section 2.3.2, RFC 6533 section 3): it drops the address type,
// decodes utf-8 and xtext escapes and the angle brackets.
func recipientAddress(v string) string {
	typ, a := stripType(v)
	switch typ {
	case "utf-8":
		a = decodeUnitext(a)
	case "rfc822", "":
		if strings.Contains(a, "+") {
			a = decodeXtext(a)
		}
	}
	return cleanAddress(a)
}

// cleanAddress takes the address out of a written form: angle brackets,
// quotes, a trailing comment or punctuation, a source route
// ("@relay.example:user@example.com", RFC 5321 section 4.1.2 and
// appendix C; Oracle Messaging Server and old Sendmail still write them),
// Exchange's "SMTP:" and a "mailto:".
func cleanAddress(a string) string {
	a = strings.TrimSpace(a)
	if lt := strings.IndexByte(a, '<'); lt >= 0 {
		if gt := strings.IndexByte(a[lt:], '>'); gt > 0 {
			a = a[lt+1 : lt+gt]
		} else {
			a = a[lt+1:]
		}
	}
	a = stripSourceRoute(a)
	if strings.HasPrefix(a, `"`) {
		// A quoted local part (RFC 5321 section 4.1.2): "a..b"@example.com.
		if q := strings.Index(a[1:], `"@`); q >= 0 {
			end := 1 + q + 2
			for end < len(a) && (ascii.IsAlpha(a[end]) || ascii.IsDigit(a[end]) || a[end] == '.' || a[end] == '-' || a[end] == '_' || a[end] >= 0x80) {
				end++
			}
			return textclean.UTF8(strings.TrimRight(a[:end], "."))
		}
	}
	if sp := strings.IndexAny(a, " \t("); sp > 0 && strings.IndexByte(a[:sp], '@') > 0 {
		a = a[:sp]
	}
	if k := strings.Index(a, "@["); k > 0 {
		// An address literal (RFC 5321 section 4.1.3): its brackets stay.
		if e := strings.IndexByte(a[k:], ']'); e > 0 {
			a = strings.TrimLeft(a[:k+e+1], " \t\"'<([,;:")
			return textclean.UTF8(a)
		}
	}
	a = strings.Trim(a, " \t\"'<>[](),;:.")
	for _, prefix := range [...]string{"mailto:", "smtp:"} {
		if len(a) > len(prefix) && ascii.HasPrefixFold(a, prefix) {
			a = strings.Trim(a[len(prefix):], " \t\"'<>[]")
		}
	}
	return textclean.UTF8(stripSourceRoute(a))
}

// stripSourceRoute returns the mailbox of a source-routed path
// ("@a.example,@b.example:user@example.com" is "user@example.com"); a
// alone when it has no route.
func stripSourceRoute(a string) string {
	if len(a) < 4 || a[0] != '@' {
		return a
	}
	c := strings.LastIndexByte(a, ':')
	if c < 0 || strings.IndexByte(a[c+1:], '@') <= 0 {
		return a
	}
	return a[c+1:]
}

// decodeUnitext decodes RFC 6533 "\x{HHHH}" escapes.
func decodeUnitext(s string) string {
	if !strings.Contains(s, `\x{`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], `\x{`) {
			if end := strings.IndexByte(s[i:], '}'); end > 3 && end <= 9 {
				if r, err := strconv.ParseUint(s[i+3:i+end], 16, 32); err == nil && r <= 0x10FFFF {
					b.WriteRune(rune(r))
					i += end
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeXtext decodes RFC 3461 xtext "+HH" escapes, as in "user+2Btag@example.com".
func decodeXtext(s string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] == '+' && i+2 < len(s) {
			h, ok1 := ascii.Unhex(s[i+1])
			l, ok2 := ascii.Unhex(s[i+2])
			// Only upper-case hex is xtext; "+ab" in an address is a tag.
			if ok1 && ok2 && !isLowerHex(s[i+1]) && !isLowerHex(s[i+2]) {
				b.WriteByte(h<<4 | l)
				i += 2
				changed = true
				continue
			}
		}
		b.WriteByte(s[i])
	}
	if !changed {
		return s
	}
	return b.String()
}

func isLowerHex(c byte) bool { return 'a' <= c && c <= 'f' }

// isAddrChar says whether c may appear in the local part or domain of an
// address as written in bounce text.
func isAddrChar(c byte) bool {
	return ascii.IsAlpha(c) || ascii.IsDigit(c) || c >= 0x80 || strings.IndexByte("!#$%&'*+-/=?^_`{|}~.", c) >= 0
}

// addrRuneBefore returns the size of the address character that ends
// s[:i], 0 when what ends it is no address character. Beyond ASCII an
// address (RFC 6531) has letters, digits and combining marks, never
// punctuation or spaces: the full-width colon of "收件人地址：user@example.com"
// ends the label, it does not start the address.
func addrRuneBefore(s string, i int) int {
	c := s[i-1]
	if c < utf8.RuneSelf {
		if isAddrChar(c) {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeLastRuneInString(s[:i])
	if !addrRune(r) {
		return 0
	}
	return n
}

// addrRuneAt is addrRuneBefore for the character that starts s[i:], for a
// domain: ASCII letters, digits, '-', '.', '_', or a letter, digit or mark
// beyond ASCII (RFC 5890).
func addrRuneAt(s string, i int) int {
	c := s[i]
	if c < utf8.RuneSelf {
		if ascii.IsAlpha(c) || ascii.IsDigit(c) || c == '-' || c == '.' || c == '_' {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if !addrRune(r) {
		return 0
	}
	return n
}

// addrRune says whether a character beyond ASCII may be part of an
// address: a letter, a digit or a mark. A byte that is no valid UTF-8
// (a legacy charset left undecoded) is given the benefit of the doubt.
func addrRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// findAddress returns the first thing that looks like an email address in
// s (local@domain.tld), and the index just after it; "" when none.
func findAddress(s string, from int) (addr string, end int) {
	for i := from; i < len(s); i++ {
		at := strings.IndexByte(s[i:], '@')
		if at < 0 {
			return "", len(s)
		}
		at += i
		st := at
		for st > 0 {
			n := addrRuneBefore(s, st)
			if n == 0 {
				break
			}
			st -= n
		}
		en := at + 1
		for en < len(s) {
			n := addrRuneAt(s, en)
			if n == 0 {
				break
			}
			en += n
		}
		// A quote before the address quotes it ("addressed to
		// 'user@example.com'"): it is no part of the local part.
		local := trimGluedLabel(strings.TrimLeft(s[st:at], ".'`"))
		domain := trimGluedWord(strings.TrimRight(s[at+1:en], ".-"))
		if len(local) > 0 && strings.IndexByte(domain, '.') > 0 && len(local) <= 256 {
			// local ends at the "@" and domain starts after it (both are
			// only trimmed at their far ends): the address is a substring
			// of s, no copy.
			return s[at-len(local) : at+1+len(domain)], at + 1 + len(domain)
		}
		i = at
	}
	return "", len(s)
}

// trimGluedLabel drops from a local part the word of another script written
// against it ("收件人zhang.wei", a label without its colon): a local part
// that starts in a script other than Latin and goes on in ASCII alone is
// the ASCII part. A local part all in one script, with Latin letters beyond
// ASCII ("Ölaf"), or mixed further in, stays whole.
func trimGluedLabel(local string) string {
	if local == "" || local[0] < utf8.RuneSelf {
		return local
	}
	k := 0
	for k < len(local) && local[k] >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(local[k:])
		if unicode.Is(unicode.Latin, r) {
			return local // "Ölaf": a name, no label
		}
		k += n
	}
	rest := local[k:]
	if rest == "" {
		return local
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] >= utf8.RuneSelf {
			return local
		}
	}
	return rest
}

// trimGluedWord drops from a domain the word of another script written
// against its end ("example.com不存在", "does not exist" with no space): a
// top-level label that starts in ASCII ends where a script other than Latin
// starts.
func trimGluedWord(domain string) string {
	dot := strings.LastIndexByte(domain, '.')
	if dot < 0 || dot+1 >= len(domain) || domain[dot+1] >= utf8.RuneSelf {
		return domain
	}
	for i := dot + 1; i < len(domain); i++ {
		if domain[i] >= utf8.RuneSelf {
			if r, _ := utf8.DecodeRuneInString(domain[i:]); unicode.Is(unicode.Latin, r) {
				return domain
			}
			return domain[:i]
		}
	}
	return domain
}
