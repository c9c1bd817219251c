package rules

import (
	"strings"
	"testing"
)

// TestSPFRefusalNamesTheSendingAddress: an SPF refusal that names the
// sending server's address (pypolicyd-spf's "Why?...;ip=...;" page,
// libspf2's "&ip=", Gmail's "with ip: [...]") carries it as the ip fact,
// and the explanation or fix names it, so that the admin knows which
// server to add to the SPF record.
func TestSPFRefusalNamesTheSendingAddress(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ status, diag, ip string }{
		{"5.7.23", "550 5.7.23 <info@example.net>: Recipient address rejected: Message rejected due to: SPF fail - not authorized. Please see http://www.openspf.net/Why?s=mfrom;id=s.vogt@example.com;ip=203.0.113.77;r=<UNKNOWN>", "203.0.113.77"},
		{"5.7.1", "550 5.7.1 SPF check failed. Please see http://www.openspf.org/Why?id=ann%40example.com&ip=198.51.100.23&receiver=mx.example.net", "198.51.100.23"},
		{"5.7.26", "550-5.7.26 This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM. Authentication results: DKIM = did not pass SPF [example.com] with ip: [192.0.2.45] = did not pass", "192.0.2.45"},
	} {
		v := e.Classify(Input{Action: "failed", Status: c.status, Diagnostic: c.diag})
		if v.Reason != ReasonAuthFailure {
			t.Errorf("%s: reason %s (rule %s), want %s", c.status, v.Reason, v.Rule, ReasonAuthFailure)
			continue
		}
		if got := v.Facts.Get(FactIP); got != c.ip {
			t.Errorf("%s: ip fact %q, want %q", c.status, got, c.ip)
		}
		if !strings.Contains(v.Explanation+" "+v.Fix, c.ip) {
			t.Errorf("%s: neither explanation %q nor fix %q names %s", c.status, v.Explanation, v.Fix, c.ip)
		}
	}
}
