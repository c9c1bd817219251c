package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestBarracudaBlockedOutcomeIsTheRecipientFiltersVerdict checks that
// Barracuda's per-recipient "(addr:blocked)" outcome keeps Sisimai's reason
// (blocked) but is explained as the recipient organisation's filter verdict
// without a reason: the recipient's admin owns it, and nothing claims it is
// not about the content nor that the sending server is blocked.
func TestBarracudaBlockedOutcomeIsTheRecipientFiltersVerdict(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Command: "DATA",
		Diagnostic: "550 permanent failure for one or more recipients (s.keller@x.example.ch:blocked)"})
	if c.Reason != ReasonBlocked {
		t.Errorf("reason %s, want blocked (Sisimai's reasons.blocked pair)", c.Reason)
	}
	if c.Owner != OwnerRecipientAdmin {
		t.Errorf("owner %s, want recipient-admin", c.Owner)
	}
	if !strings.Contains(c.Explanation, "Barracuda filter blocked it") || !strings.Contains(c.Explanation, "did not say why") {
		t.Errorf("explanation %q: want the recipient's filter verdict without a reason", c.Explanation)
	}
	if strings.Contains(c.Explanation+c.Fix, "not about your message's content") || strings.Contains(c.Explanation+c.Fix, "blocks the sending server") {
		t.Errorf("explanation %q, fix %q: claims a block of the sending server", c.Explanation, c.Fix)
	}
	if !strings.Contains(c.Fix, "Barracuda message log") {
		t.Errorf("fix %q: want the recipient's admin to check their message log", c.Fix)
	}
}

// TestBarracudaReputationBlockStaysASenderServerBlock checks that
// Barracuda's reputation block, which names its list, is still a block of
// the sending server for the sender's admin.
func TestBarracudaReputationBlockStaysASenderServerBlock(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Command: "RCPT",
		Diagnostic: "554 Service unavailable; Client host [192.0.2.10] blocked using b.barracudacentral.org; http://www.barracudanetworks.com/reputation/?pr=1&ip=192.0.2.10"})
	if c.Facts.Get(FactRecipientFilter) != "" || c.Owner != OwnerSenderAdmin {
		t.Errorf("reason %s, owner %s, recipient_filter %q: want the sending server's block", c.Reason, c.Owner, c.Facts.Get(FactRecipientFilter))
	}
}
