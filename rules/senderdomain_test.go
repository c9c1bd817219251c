package rules

import (
	"strings"
	"testing"
)

// TestUnknownSenderDomainIsNamed: a refusal of the sender address for its
// domain names the domain the server looked up (Postfix's "<ADDR>: Sender
// address rejected: Domain not found", Sendmail's "Domain of sender
// address ADDR does not exist"), which can be an internal envelope domain
// rather than the From's; the fix says to check that domain.
func TestUnknownSenderDomainIsNamed(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"553 5.1.8 <ann@corp.internal>: Sender address rejected: Domain not found",
		"450 4.1.8 <ann@corp.internal>: Sender address rejected: Domain not found",
	} {
		v := e.Classify(Input{Status: "5.1.8", Diagnostic: diag, Command: "MAIL"})
		if v.Facts.Get(FactSenderDomain) != "corp.internal" || !strings.Contains(v.Explanation, "domain corp.internal of your sender address") ||
			!strings.Contains(v.Fix, "the domain corp.internal exists") {
			t.Errorf("%q: sender_domain %q\nexplanation %q\nfix %q\nwant corp.internal named in both", diag, v.Facts.Get(FactSenderDomain), v.Explanation, v.Fix)
		}
	}
	// Sendmail's wording names the domain too (the fact), though its
	// reading is the refused sender address.
	v := e.Classify(Input{Status: "5.1.8", Diagnostic: "553 5.1.8 <ann@corp.internal>... Domain of sender address ann@corp.internal does not exist", Command: "MAIL"})
	if v.Facts.Get(FactSenderDomain) != "corp.internal" {
		t.Errorf("Sendmail's refused sender domain: sender_domain %q, want corp.internal", v.Facts.Get(FactSenderDomain))
	}
}
