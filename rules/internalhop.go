package rules

import (
	"net/netip"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The recipient organisation's gateway and its internal server. Many
// organisations receive mail on a gateway (a Postfix, Exim, Sendmail,
// MDaemon or Kerio relay, an Exchange Edge Transport server, a filtering
// appliance) that accepts the message and passes it on to the
// organisation's internal mail server. When that second hop fails (the
// internal server refuses the connection or does not answer until the
// gateway gives up) the gateway writes the report, in its own name: RFC
// 3464 section 2.2.2, the Reporting-MTA is the MTA that attempted the
// delivery, and section 2.3.5, the Remote-MTA is the one it tried. Read
// naively such a report says "the sending server gave up: the receiving
// server never answered", which points at the sender's side; in fact the
// message reached the recipient's organisation, whose own mail system
// failed inside it, and only its admin can fix it.
//
// It is read so only from what the report shows, never guessed:
//   - the Reporting-MTA is a host of the recipient's domain (it or its
//     parent domain is the recipient's domain, or contains it), so the
//     report comes from the recipient's organisation; and
//   - the host it could not reach is internal: a private address (RFC
//     1918 for IPv4, RFC 4193 unique local addresses for IPv6), a name
//     under a top-level domain that is not delegated and is used on
//     private networks (.local, RFC 6762; .home.arpa, RFC 8375; .lan,
//     .internal, .intranet, .corp, .home, .private, RFC 6762 appendix G;
//     .localdomain), or another host of the recipient's own domain.
//
// A private next hop reported by a server outside the recipient's domain
// is not read so: it can be the sender's own server failing to reach its
// own internal relay. Exchange Online's "4.4.316/5.4.316 connection
// refused" and "5.4.300/5.4.316 message expired" (Microsoft, "Email
// non-delivery reports and SMTP errors in Exchange Online"; the
// LastAttemptedServerName and LastAttemptedIP of its replies) are read
// the same way: to an internal host, from a gateway of the recipient's
// domain; to a public host from a Microsoft server, which may as well be
// the sender's tenant delivering to the recipient's MX, they keep the
// reading of a receiving server that could not be reached.

// internalTLDs are the lower-case top-level (or second-level) domain
// suffixes used only on private networks (see above).
var internalTLDs = [...]string{".local", ".lan", ".internal", ".intranet", ".corp", ".home", ".private",
	".localdomain", ".home.arpa"}

// internalHopReasons are the reasons a failed internal hop reads as: a
// connection that failed (networkerror) and a delivery given up on
// (expired). Other reasons keep their reading, unless the server named a
// refused or timed-out connection (FactConnRefused, FactConnTimeout).
var internalHopReasons = [...]Reason{ReasonNetworkError, ReasonExpired}

// internalHop returns the internal host of the recipient's organisation
// that the record's reporting gateway could not reach, "" when the report
// does not show one (see above). host is the host fact the extractors
// captured, "" when none.
func internalHop(in *Input, diag, host string) string {
	_, domain, ok := strings.Cut(strings.TrimSpace(in.Recipient), "@")
	if !ok || domain == "" || in.ReportingMTA == "" {
		return ""
	}
	domain = ascii.LowerString(strings.TrimSuffix(domain, "."))
	reporting := ascii.LowerString(strings.TrimSuffix(hostName(in.ReportingMTA), "."))
	if !organisationHost(reporting, domain) {
		return ""
	}
	for _, c := range [...]string{in.RemoteMTA, host} {
		if h := hostName(c); h != "" && internalHost(h, domain, reporting, true) {
			return h
		}
	}
	// The hosts the diagnostic names: "connect to exch01.corp.local[10.0.0.5]:25",
	// "host exch [10.0.0.5]: Connection refused", "The last endpoint
	// attempted was 10.0.0.5:25", "[LastAttemptedIP=10.0.0.5:25]": only
	// private ones, since a name of the recipient's domain there can be a
	// help page's.
	for _, tok := range strings.FieldsFunc(diag, hostSeparator) {
		if h := hostName(tok); h != "" && (strings.Contains(h, ".") || strings.Contains(h, ":")) && internalHost(h, domain, reporting, false) {
			return h
		}
	}
	return ""
}

// hostSeparator says whether r separates host names and addresses in a
// diagnostic.
func hostSeparator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '[', ']', '(', ')', '<', '>', ',', ';', '\'', '"', '=', '/':
		return true
	}
	return false
}

// hostName returns the host of a Remote-MTA or Reporting-MTA value or a
// token of a diagnostic, lower case, without its type ("dns;"), brackets,
// port or final dot, "" when it cannot be a host.
func hostName(s string) string {
	s = strings.TrimSpace(s)
	if t, v, ok := strings.Cut(s, ";"); ok && !strings.ContainsAny(t, ".:") {
		s = strings.TrimSpace(v) // "dns; host"
	}
	s = strings.Trim(s, "[]<>().,:'\"")
	if s == "" || len(s) > 255 {
		return ""
	}
	if mayBeAddr(s) {
		// An address parses either alone or with a port, never both: the
		// more common bare address first, as the failed parse allocates its
		// error; and s itself when it is the address as String writes it.
		if a, err := netip.ParseAddr(s); err == nil {
			var buf [64]byte
			if string(a.AppendTo(buf[:0])) == s {
				return s
			}
			return a.String()
		}
		if ap, err := netip.ParseAddrPort(s); err == nil {
			return ap.Addr().String()
		}
	}
	if h, port, ok := strings.Cut(s, ":"); ok && isDigits(port) {
		s = h // "host:25"
	}
	s = strings.TrimSuffix(ascii.LowerString(s), ".")
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return ""
		}
	}
	return s
}

// mayBeAddr says whether s may be an IP address, with or without a port,
// as netip.ParseAddr and netip.ParseAddrPort read them: up to a zone
// ("%eth0"), nothing but hexadecimal digits, dots, colons and brackets.
// A host name fails it, mostly at its first letter beyond f, without the
// error (an allocation) that netip returns for it.
func mayBeAddr(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s) && s[i] != '%'; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || c == '.' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// isDigits says whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// organisationHost says whether host (lower case) belongs to the
// organisation of domain: it is domain or under it, or its parent domain
// (the host's name without its first label, of two labels at least) is
// domain or a parent of domain ("mx1.corp.example" for "sales.corp.example").
func organisationHost(host, domain string) bool {
	if host == "" || !strings.Contains(host, ".") {
		return false
	}
	if inDomainName(host, domain) {
		return true
	}
	_, parent, ok := strings.Cut(host, ".")
	return ok && strings.Contains(parent, ".") && inDomainName(domain, parent)
}

// inDomainName says whether name is domain or a name under it.
func inDomainName(name, domain string) bool {
	return name == domain || strings.HasSuffix(name, "."+domain)
}

// internalHost says whether h, a host a gateway of domain (reporting)
// could not reach, is internal to the recipient's organisation: a private
// address, a name under a private top-level domain, or, when ownDomain,
// another host of the recipient's domain.
func internalHost(h, domain, reporting string, ownDomain bool) bool {
	if mayBeAddr(h) {
		if a, err := netip.ParseAddr(h); err == nil {
			return a.Unmap().IsPrivate() // RFC 1918, RFC 4193
		}
	}
	for _, tld := range internalTLDs {
		if strings.HasSuffix(h, tld) && len(h) > len(tld) {
			return true
		}
	}
	// A host, not the domain's own name: the domain as a host is its MX
	// fallback (RFC 5321 section 5.1), no internal server.
	return ownDomain && h != reporting && h != domain && strings.Count(h, ".") >= 2 && organisationHost(h, domain)
}

// internalHopReading rewrites the reading v of a record whose reporting
// gateway, in the recipient's organisation, could not pass the message on
// to an internal server: the explanation says so, the owner is the
// recipient's admin (also while the gateway keeps trying: if the delay
// persists, the same admin acts), and the
// fix tells the sender to tell the recipient by other means, and to send
// again once mail flows. A reading of another reason is kept.
func (e *Engine) internalHopReading(v *Classification, rec *record, lang int) {
	if !internalHopReason(v) {
		return
	}
	h := internalHop(&rec.in, rec.diag, v.Facts.Get(FactHost))
	if h == "" {
		return
	}
	v.Facts.v[slotIndexOf(FactInternalHop)] = sanitize(h)
	t := e.textsFor(lang)
	vals := reportSlots(rec, &v.Facts)
	localDurations(lang, &vals)
	v.Summary = t[textInternalHopSummary].plain()
	v.Owner = OwnerRecipientAdmin
	if rec.action == smtpcode.ActionDelayed {
		// The gateway keeps trying: nothing to do yet, but if the delay
		// persists the recipient's admin acts, as for a refused or
		// unanswered connection to the recipient's server (delayedOwner).
		v.Explanation = t[textInternalHopDelayedExplanation].render(&vals)
		v.Fix = t[textInternalHopDelayedFix].render(&vals)
		return
	}
	v.Explanation = t[textInternalHopExplanation].render(&vals)
	v.Fix = t[textInternalHopFix].render(&vals)
}

// otherCauses are the conditions that name a cause other than an internal
// server that could not be reached: a mail loop (which a gateway's
// Remote-MTA names too), DNS failures, TLS failures, too many recipients.
var otherCauses = [...]Fact{FactLoop, FactDNSTempFail, FactNoMX, FactNoDomain, FactTLSRequired, FactTLSNotOffered,
	FactTLSRefused, FactTLSCert, FactTooManyRecipients}

// internalHopReason says whether v is a failed connection or a delivery
// given up on, which an internal hop explains, and names no other cause.
func internalHopReason(v *Classification) bool {
	for _, f := range otherCauses {
		if v.Facts.Get(f) != "" {
			return false
		}
	}
	for _, r := range internalHopReasons {
		if v.Reason == r {
			return true
		}
	}
	return v.Facts.Get(FactConnRefused) != "" || v.Facts.Get(FactConnTimeout) != ""
}

// internalHopSource says where FactInternalHop comes from, for --why.
const internalHopSource = "the gateway of the recipient's domain (Reporting-MTA) and the internal host it tried (Remote-MTA or the reply): internalHop, RFC 3464"

// internalHopSlots are the placeholders the texts of an internal hop may
// use.
var internalHopSlots = setOf(slotRecipient, slotReporting, slotFact0+slot(slotIndexOf(FactInternalHop)),
	slotFact0+slot(slotIndexOf(FactRetriedFor)), slotFact0+slot(slotIndexOf(FactLastError))) | deadlineSlots

// namedRemote returns the Remote-MTA value remote as the explanation may
// name it ({remote}), "" when it is an internal hop that is no receiving
// server the reader should be told about: a content filter or relay on the
// reporting server itself or on its private network (Postfix's "host
// 127.0.0.1[127.0.0.1] said:" from an amavisd-new or Proofpoint hop). That
// is an address of special use (RFC 6890; RFC 5735 and RFC 1122 for the
// loopback 127.0.0.0/8, RFC 1918 private, RFC 6598 shared, RFC 3927 and
// RFC 4291 link-local, RFC 4291 ::1 and ::, RFC 4193 unique local), or the
// name localhost (RFC 6761 section 6.3). The explanation then names no
// server, rather than a wrong one; the details keep the Remote-MTA.
func namedRemote(remote string) string {
	s := strings.TrimSpace(remote)
	if t, v, ok := strings.Cut(s, ";"); ok && !strings.ContainsAny(t, ".:") {
		s = strings.TrimSpace(v) // "dns; host"
	}
	// An IPv6 address keeps its colons, which hostName trims: "::1", "[::1]:25".
	if mayBeAddr(s) {
		if ap, err := netip.ParseAddrPort(s); err == nil {
			s = ap.Addr().String()
		}
		if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
			if specialUseAddr(a.Unmap()) {
				return ""
			}
			return remote
		}
	}
	h := hostName(s)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "localhost.localdomain" {
		return ""
	}
	if h != "" && mayBeAddr(h) {
		if a, err := netip.ParseAddr(h); err == nil && specialUseAddr(a.Unmap()) {
			return ""
		}
	}
	return remote
}

// sharedAddressSpace is RFC 6598's 100.64.0.0/10 (carrier-grade NAT).
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// specialUseAddr says whether a is a loopback, private, shared, link-local
// or unspecified address (namedRemote).
func specialUseAddr(a netip.Addr) bool {
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() || sharedAddressSpace.Contains(a)
}

// reportSlots returns the slot values of a reading told in the report's
// terms (internalHopReading, ownScannerReading): the recipient, the
// reporting server and the facts fs.
func reportSlots(rec *record, fs *Facts) slotValues {
	var vals slotValues
	vals[slotRecipient] = sanitize(rec.in.Recipient)
	vals[slotReporting] = sanitize(hostName(rec.in.ReportingMTA))
	for i, f := range fs.v {
		vals[slotFact0+slot(i)] = f
	}
	return vals
}
