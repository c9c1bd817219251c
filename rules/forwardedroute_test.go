package rules

import (
	"strings"
	"testing"
)

// TestSPFRefusalOfMailTheRouteShowsForwardedIsTheForwardersProblem: an SPF
// (or DMARC for SPF) refusal in a report written by the server of the
// domain the sender wrote to, about an address in another domain, is the
// forward target refusing a copy the forwarder sent without SRS (RFC 7208
// section 10.1.3): the fix is the recipient's forwarding, never "add the
// sending server to your SPF record". The sender's own server reporting
// the same refusal at the address written keeps the SPF fix.
func TestSPFRefusalOfMailTheRouteShowsForwardedIsTheForwardersProblem(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		file, orig string
		owner      Owner
	}{
		{"spf-forwarded-route-01.eml", "john.doe@alumni.example.edu", OwnerRecipientAdmin},
		{"spf-forwarded-route-02.eml", "hiro.sato@old-university.example", OwnerRecipientAdmin},
		{"spf-own-server-01.eml", "", OwnerSenderAdmin},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.ForwardedFrom != c.orig || rd.Owner != c.owner {
			t.Errorf("%s: forwarded from %q, owner %s; want %q, %s", c.file, rd.ForwardedFrom, rd.Owner, c.orig, c.owner)
		}
		addSPF := strings.Contains(rd.Fix, "SPF record")
		if c.orig != "" && (addSPF || !strings.Contains(rd.Fix, "SRS")) {
			t.Errorf("%s: fix %q, want the forwarding's fix (SRS), not the sender's SPF record", c.file, rd.Fix)
		}
		if c.orig == "" && !addSPF {
			t.Errorf("%s: fix %q, want the sender's SPF record", c.file, rd.Fix)
		}
	}
}
