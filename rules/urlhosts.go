package rules

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// A bounce is hostile input: anyone can forge one, with our address as its
// recipient, and whatever URL its text holds would reach the user inside
// ndrmilter's own explanation, which the user trusts more than the bounce.
// So a URL becomes the {url} fact only when its host is one of the pages
// that receiving servers are known to point senders to: the help, postmaster
// and delisting pages of large mail providers, filter vendors and block-list
// operators. Any other URL is left out of ndrmilter's advice. It may still
// appear inside the server's reply when the explanation quotes it ("It said:
// ..."): there it is marked as the server's words, as it is in the bounce
// itself, which the reader has anyway; what must not happen is ndrmilter
// recommending it.
//
// Sources, so that the list is a family and not a sample:
//   - the hosts quoted in Sisimai's phrase lists
//     (../shared/reference/sisimai-phrases.json): Google, QQ, Yahoo, Apple,
//     Spamhaus, Proofpoint, AT&T, Spectrum, Return Path's Sender Score,
//     Outlook.com's postmaster, i.ua, Mimecast, Cloudmark, NetEase (163),
//     KDDI (au);
//   - Microsoft's NDR documentation, the seed of the explanations
//     (../shared/seeds/001: learn.microsoft.com; its delisting portal
//     sender.office.com; the aka.ms and go.microsoft.com links of Exchange
//     Online's NDRs);
//   - the block lists Sisimai's "blocked" phrases name: Spamhaus, SpamCop,
//     Barracuda Central (and Barracuda Networks' reputation look-up page,
//     which its appliances' replies link to), the CBL (abuseat.org), SORBS,
//     UCEPROTECT.
var guidanceHosts = [...]string{
	// Sisimai's phrase lists.
	"google.com", "qq.com", "yahooinc.com", "yahoo.com", "apple.com",
	"spamhaus.org", "proofpoint.com", "att.net", "spectrumbusiness.net",
	"senderscore.org", "live.com", "i.ua", "mimecast.com", "cloudmark.com",
	"163.com", "kddi.com",
	// Microsoft's NDR documentation.
	"microsoft.com", "office.com", "aka.ms",
	// Block-list operators.
	"spamcop.net", "barracudacentral.org", "barracudanetworks.com", "abuseat.org", "sorbs.net",
	"uceprotect.net",
}

// guidanceURL reports whether v, a URL captured from a bounce ("https://..."
// or "www..."), points to a host of guidanceHosts or below one, over http or
// https, with no user information (https://google.com@evil.example/ names
// evil.example).
func guidanceURL(v string) bool {
	return !namesNoGuidanceHost(v) && parsedGuidanceURL(v)
}

// parsedGuidanceURL is guidanceURL by url.Parse alone, which allocates:
// namesNoGuidanceHost spares it most URLs (issue 14).
func parsedGuidanceURL(v string) bool {
	if strings.HasPrefix(strings.ToLower(v), "www.") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if err != nil || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, h := range guidanceHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// namesNoGuidanceHost says, without parsing, that v cannot name a host of
// guidanceHosts: it is ASCII without a percent sign and holds none of their
// names, in any case. It says nothing of other URLs: url.Parse decodes a
// host's percent-encoding ("google%2Ecom"), and the lower-casing of a
// non-ASCII letter can give an ASCII one (U+0130 gives "i").
func namesNoGuidanceHost(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf || v[i] == '%' {
			return false
		}
	}
	// containsFold jumps between the occurrences of a host's first
	// letter; comparing each host at every position of v was 1% of
	// Explain's instructions (issue 14).
	for _, h := range guidanceHosts {
		if containsFold(v, h) {
			return false
		}
	}
	return true
}
