package decide

import (
	"net/netip"
	"strings"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Site is who "we" are for the direction of a message: our domains, and the
// networks whose clients send outbound mail. The zero Site has no domains
// (every address is ours) and no trusted networks.
type Site struct {
	// Domains are our domains, lower case, without dots at either end (see
	// NewSite). Empty means every domain is ours.
	Domains []string
	// TrustedNetworks are the client networks whose mail is outbound.
	TrustedNetworks []netip.Prefix
}

// NewSite returns the Site of domains, each trimmed, lower-cased and stripped
// of dots at either end (empty ones dropped), and of trusted networks.
func NewSite(domains []string, trusted []netip.Prefix) Site {
	doms := make([]string, 0, len(domains))
	for _, d := range domains {
		if d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), "."); d != "" {
			doms = append(doms, d)
		}
	}
	return Site{Domains: doms, TrustedNetworks: trusted}
}

// Trusted reports whether ip is in one of the trusted networks.
func (s Site) Trusted(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range s.TrustedNetworks {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Ours reports whether addr's domain is one of ours or a subdomain of one
// (ledger.InDomains, the rule the log importer uses too). With no domains,
// every address is ours.
func (s Site) Ours(addr string) bool {
	return len(s.Domains) == 0 || ledger.InDomains(addr, s.Domains)
}

// AllOurs reports whether there is at least one address and every one is ours.
func (s Site) AllOurs(addrs []string) bool {
	for _, a := range addrs {
		if !s.Ours(a) {
			return false
		}
	}
	return len(addrs) > 0
}

// JudgeOurs is the predicate backscatter.Judge.Ours wants: nil when every
// domain is ours (no domains), else Ours.
func (s Site) JudgeOurs() func(addr string) bool {
	if len(s.Domains) == 0 {
		return nil
	}
	return s.Ours
}

// Origin is what a front end knows of the client a message comes from.
type Origin struct {
	// Authenticated: the client authenticated (SMTP AUTH; the milter's
	// {auth_authen} macro).
	Authenticated bool
	// Addr is the client's IP address; the zero Addr when it is not known.
	Addr netip.Addr
	// Local: the client came over a local socket or from an unknown
	// address family, as the MTA's own submissions do. It counts only when
	// Addr is not known.
	Local bool
	// Submission: the front end was told that everything through this
	// listener is outbound (the filter's --direction outbound, for a filter
	// on the submission service).
	Submission bool
}

// Why says why a message is outbound; WhyInbound when it is not.
type Why string

// Reasons a message is outbound.
const (
	WhyInbound        Why = ""
	WhyAuth           Why = "auth"            // the client authenticated
	WhyTrustedNetwork Why = "trusted-network" // the client is in a trusted network
	WhyLocal          Why = "local"           // local socket: the MTA's own submissions
	WhySubmission     Why = "submission"      // the listener takes outbound mail only
)

// Route is which way a message goes through a front end: outbound (recorded
// in the ledger, passed unchanged) or inbound (its X-NDR-* fields deleted,
// read, explained and judged when it may be a report).
type Route struct {
	// Why is why the client's mail is outbound; WhyInbound when it is not.
	Why Why
	// Candidate: the envelope sender is one reports come from
	// (BounceSender) and the client did not authenticate. A front end keeps
	// such a message for parsing, whichever way it goes.
	Candidate bool
	// Inside: a report from an outbound client to our own users only
	// (WithRecipients). It goes inbound, and is never rejected or discarded
	// (Facts.Inside).
	Inside bool
	// NullSender: the envelope sender is null, as that of a delivery
	// report is (RFC 5321 section 4.5.5, RFC 3464 section 2). A Candidate
	// whose sender is MAILER-DAEMON or postmaster is read and tagged but
	// never refused (Facts.NullSender).
	NullSender bool
}

// Outbound reports whether the message goes outbound.
func (r Route) Outbound() bool { return r.Why != WhyInbound && !r.Inside }

// Classify routes a message at MAIL FROM, from where it comes and its
// envelope sender: outbound when the client authenticated, the listener is
// for submission, the client's address is in a trusted network, or the
// client is local (its address unknown); inbound otherwise, the safe side,
// since inbound processing only deletes and adds X-NDR-* fields.
func (s Site) Classify(o Origin, from string) Route {
	var why Why
	switch {
	case o.Authenticated:
		why = WhyAuth
	case o.Submission:
		why = WhySubmission
	case o.Addr.IsValid() && s.Trusted(o.Addr):
		why = WhyTrustedNetwork
	case !o.Addr.IsValid() && o.Local:
		why = WhyLocal
	}
	// A report may come from a trusted or local client too: the MTA's own
	// bounces, or an internal relay's. It is kept for parsing, and
	// WithRecipients decides by its recipients.
	cand := why != WhyAuth && BounceSender(from)
	return Route{Why: why, Candidate: cand, NullSender: cand && ledger.NormalizeAddress(from) == ""}
}

// WithRecipients completes r at the end of the envelope: a possible report
// from an outbound (but not authenticated) client whose recipients are all
// ours is a report written inside (the MTA's own bounce, or an internal
// server's) and is read like an inbound one.
func (r Route) WithRecipients(s Site, rcpts []string) Route {
	if r.Why != WhyInbound && r.Candidate && s.AllOurs(rcpts) {
		r.Inside = true
	}
	return r
}
