package ledger

import "strings"

// InDomains reports whether the envelope address addr is in one of
// domains: its domain (after the last "@") is one of them or a subdomain of
// one, so "bob@mail.example.org" is in "example.org" but not in
// "ample.org". Subdomains count because a domain's owner delegates its
// subdomains (mail.example.org, lists.example.org) and sends from them; a
// site that must tell them apart lists the subdomains it means.
//
// Addresses are compared as NormalizeAddress gives them (no surrounding
// white space or angle brackets, lower case), and both sides without a
// trailing dot (the root label of "example.org.") or a leading one
// (Postfix's ".example.org", which means the subdomains: they count
// anyway). Domains are compared as written: an internationalised domain
// matches only in the form (A-label or U-label) it was configured in. An
// address without "@" is in no domain, and no address is in an empty list;
// callers for which "no domains configured" means "every domain" say so
// themselves.
//
// The milter (is a bounce about one of our addresses?) and the log
// importer (did this mail leave from one of our domains?) both use it, so
// they agree on which addresses are ours.
func InDomains(addr string, domains []string) bool {
	addr = NormalizeAddress(addr)
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return false
	}
	d := strings.Trim(addr[at+1:], ".")
	if d == "" {
		return false
	}
	for _, o := range domains {
		o = strings.Trim(strings.ToLower(strings.TrimSpace(o)), ".")
		if o == "" {
			continue
		}
		if d == o || (len(d) > len(o) && d[len(d)-len(o)-1] == '.' && strings.HasSuffix(d, o)) {
			return true
		}
	}
	return false
}
