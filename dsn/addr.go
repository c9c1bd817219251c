package dsn

import (
	"strconv"
	"strings"

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
	return ascii.LowerString(strings.TrimSpace(t)), strings.TrimSpace(v[semi+1:])
}

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
		for st > 0 && isAddrChar(s[st-1]) {
			st--
		}
		en := at + 1
		for en < len(s) && (ascii.IsAlpha(s[en]) || ascii.IsDigit(s[en]) || s[en] == '-' || s[en] == '.' || s[en] == '_' || s[en] >= 0x80) {
			en++
		}
		// A quote before the address quotes it ("addressed to
		// 'user@example.com'"): it is no part of the local part.
		local := strings.TrimLeft(s[st:at], ".'`")
		domain := strings.TrimRight(s[at+1:en], ".-")
		if len(local) > 0 && strings.IndexByte(domain, '.') > 0 && len(local) <= 256 {
			return local + "@" + domain, at + 1 + len(domain)
		}
		i = at
	}
	return "", len(s)
}
