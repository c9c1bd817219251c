package dsn

import (
	"strings"
)

// Forward returns the address the sender wrote (from) and the address the
// recipient's side forwarded it to, where delivery failed (to), when the
// report shows such a forward; "", "" otherwise. rc is one of r.Recipients.
//
// Most writers name the forward target in Final-Recipient (rc.Address) and
// the address written in Original-Recipient or their text (ForwardedFrom).
// Sendmail names the alias written in Final-Recipient and the address it
// expanded to in X-Actual-Recipient (one of rc.Aliases), with "(expanded
// from: <alias>)" in its text: then from is rc.Address and to that alias.
func (r *Report) Forward(rc *Recipient) (from, to string) {
	if from := r.ForwardedFrom(rc); from != "" {
		return from, rc.Address
	}
	for _, a := range rc.Aliases {
		target := Recipient{Address: a, OriginalRecipient: rc.Address}
		if from := r.ForwardedFrom(&target); from != "" {
			return from, a
		}
	}
	return "", ""
}

// ForwardedFrom returns the address the sender wrote when the report shows
// that the recipient's side forwarded (or expanded as an alias) the message
// from it to rc.Address, which then failed; "" when the report does not show
// that. rc is one of r.Recipients.
//
// The address written is rc.OriginalRecipient: RFC 3464 section 2.3.1's
// Original-Recipient, or the address the text names the recipient as coming
// from (Postfix's "<y@example.net> (expanded from <x@example.org>)",
// Sendmail's "(expanded from: <x@example.org>)", Exim's "(generated from
// x@example.org)" and "(ultimately generated from x@example.org)"). It is
// not a forwarding when the two addresses are the same but for:
//   - case, the address type ("rfc822;") and the encoded forms of RFC 3461
//     section 4 (xtext) and RFC 6533 section 3 (utf-8), which Parse removes;
//   - the domain alone, with the same local part (a subaddress "+tag"
//     ignored): that is routing inside one organization
//     ("user@example.com" delivered as "user@example.mail.onmicrosoft.com"),
//     or an IDNA form of the same domain, not a forward to someone else.
//
// The sender's own alias is not the recipient's side either: when the
// address written is in the sender's domain and the report comes from a
// host of that domain, the sender's own server expanded it, and "" is
// returned (the caller says less).
func (r *Report) ForwardedFrom(rc *Recipient) string {
	orig, final := strings.TrimSpace(rc.OriginalRecipient), strings.TrimSpace(rc.Address)
	if orig == "" || final == "" || !hasDomain(orig) || !hasDomain(final) || equalFoldASCII(orig, final) {
		return ""
	}
	ol, od := splitAddress(orig)
	fl, fd := splitAddress(final)
	if equalFoldASCII(baseLocalPart(ol), baseLocalPart(fl)) {
		return "" // routing of the same mailbox, not a forward
	}
	if equalFoldASCII(ol, fl) && (strings.Contains(od, "xn--") || strings.Contains(fd, "xn--")) {
		return ""
	}
	sender := r.Original.Sender
	if sender == "" {
		sender = r.Original.From
	}
	if _, sd := splitAddress(strings.ToLower(sender)); sd != "" && inDomain(strings.ToLower(od), sd) && inDomain(strings.ToLower(hostOf(r.ReportingMTA)), sd) {
		return "" // the sender's own alias, expanded by the sender's own server
	}
	return orig
}

// splitAddress returns the local part and the domain of an address; the
// domain is "" without an "@".
func splitAddress(a string) (local, domain string) {
	at := strings.LastIndexByte(a, '@')
	if at < 0 {
		return a, ""
	}
	return a[:at], strings.TrimSuffix(a[at+1:], ".")
}

// baseLocalPart is a local part without its subaddress, "user" of
// "user+tag" (the separator of Postfix's recipient_delimiter default and of
// RFC 5233).
func baseLocalPart(l string) string {
	if i := strings.IndexByte(l, '+'); i > 0 {
		return l[:i]
	}
	return l
}

// hostOf is the host name of a Reporting-MTA value, without its type
// ("dns; mx.example.com" is "mx.example.com").
func hostOf(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[i+1:]
	}
	v = strings.TrimSpace(v)
	if i := strings.IndexAny(v, " \t(["); i >= 0 {
		v = v[:i]
	}
	return v
}
