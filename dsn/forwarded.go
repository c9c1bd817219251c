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
	if equalFoldASCII(baseLocalPart(ol), baseLocalPart(fl)) && sameOrganization(strings.ToLower(od), strings.ToLower(fd)) {
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

// routingDomains are the domains a hosted mailbox is routed through under
// the same local part: Microsoft 365's tenant domains
// (user@example.com delivered as user@example.mail.onmicrosoft.com) and
// Google Workspace's (user@example.com as user@example.com.test-google-a.com).
var routingDomains = [...]string{"onmicrosoft.com", "test-google-a.com"}

// sameOrganization says whether two domains (lower case) of one local
// part are one organization's routing of one mailbox, not a forward to
// someone else who happens to have the same name: one is under the other,
// one is a hosting provider's routing domain, or their names are the same
// under other top levels (example.com, example.de). A name kept at another
// organization (a forward from an alumni or a club address to the person's
// own mailbox keeps "first.last") is a forward.
func sameOrganization(a, b string) bool {
	if a == "" || b == "" || inDomain(a, b) || inDomain(b, a) {
		return true
	}
	for _, r := range routingDomains {
		if inDomain(a, r) || inDomain(b, r) {
			return true
		}
	}
	return orgName(a) != "" && orgName(a) == orgName(b)
}

// orgName is the label that names the organization of a domain: the label
// left of its registered suffix ("example" of mail.example.co.uk), "" when
// the domain has a single label.
func orgName(d string) string {
	labels := strings.Split(d, ".")
	n := len(labels)
	if n < 2 {
		return ""
	}
	i := n - 2
	if n >= 3 && len(labels[n-1]) == 2 {
		for _, s := range secondLevels {
			if labels[n-2] == s {
				i = n - 3
				break
			}
		}
	}
	return labels[i]
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

// RelayedFrom returns the address the sender wrote when the report shows a
// forward without naming it: no Original-Recipient or "expanded from" text
// (ForwardedFrom found nothing), but the report was written by a host of
// the domain of the one address the original message was written to (its
// To), while the address that failed, rc.Address, is in another domain.
// The sender's mail went to that domain's server, which sent it on to an
// address the sender did not write: a forward (RFC 5321 section 3.9 on
// aliases and forwarding: the forwarding server takes the message as its
// own and sends it again). "" otherwise, and when:
//   - rc names an Original-Recipient the same as its address (the writer
//     says nothing was forwarded);
//   - the original has no To, or more than one address in it, or neither
//     a Reporting-MTA nor the "by" host of the returned copy's last
//     Received field (RFC 5321 section 4.4: the server that received the
//     copy the report returns) is given;
//   - the two addresses share a domain, a parent domain or a local part
//     (routing of one mailbox, as in ForwardedFrom);
//   - the address written is in the sender's domain (the sender's own
//     server, which may hold a Bcc to the failed address).
//
// It is a guess from the route, weaker than ForwardedFrom: callers use it
// only where the refusal itself is one a forward explains (an SPF failure
// at the forward target, RFC 7208 section 10.1.3).
func (r *Report) RelayedFrom(rc *Recipient) string {
	final := strings.ToLower(strings.TrimSpace(rc.Address))
	if final == "" || !hasDomain(final) || r.ForwardedFrom(rc) != "" {
		return ""
	}
	if o := strings.TrimSpace(rc.OriginalRecipient); o != "" && !equalFoldASCII(o, final) {
		return ""
	}
	host := strings.ToLower(hostOf(r.ReportingMTA))
	if host == "" && len(r.Original.Received) > 0 {
		host = strings.ToLower(receivedBy(r.Original.Received[0]))
	}
	if host == "" {
		return ""
	}
	to := r.Original.To
	written, end := findAddress(to, 0)
	if written == "" {
		return ""
	}
	if again, _ := findAddress(to, end); again != "" && !equalFoldASCII(again, written) {
		return ""
	}
	written = strings.ToLower(written)
	ol, od := splitAddress(written)
	fl, fd := splitAddress(final)
	if od == "" || fd == "" || inDomain(fd, od) || inDomain(od, fd) || equalFoldASCII(baseLocalPart(ol), baseLocalPart(fl)) {
		return ""
	}
	if !inDomain(host, od) {
		return ""
	}
	sender := r.Original.Sender
	if sender == "" {
		sender = r.Original.From
	}
	if _, sd := splitAddress(strings.ToLower(sender)); sd == "" || inDomain(od, sd) || inDomain(sd, od) {
		return ""
	}
	return written
}

// receivedBy returns the host of the "by" clause of a Received field value
// (RFC 5321 section 4.4), "" when it has none.
func receivedBy(v string) string {
	lv := strings.ToLower(v)
	i := strings.Index(lv, "by ")
	for i > 0 && lv[i-1] != ' ' && lv[i-1] != '\t' && lv[i-1] != '\n' && lv[i-1] != ')' {
		j := strings.Index(lv[i+3:], "by ")
		if j < 0 {
			return ""
		}
		i += 3 + j
	}
	if i < 0 {
		return ""
	}
	h := strings.TrimSpace(v[i+3:])
	if j := strings.IndexAny(h, " \t\r\n([;"); j >= 0 {
		h = h[:j]
	}
	return h
}
