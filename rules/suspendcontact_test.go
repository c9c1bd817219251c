package rules

import (
	"strings"
	"testing"
)

// TestDisabledMailboxFixGivesTheContactTheServerNames: a refusal of a
// disabled mailbox that gives a contact ("please write to office@...")
// tells the sender to use it; without one, the fix is the general one.
func TestDisabledMailboxFixGivesTheContactTheServerNames(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Status: "5.2.1", Command: "RCPT", Diagnostic: "550 5.2.1 <ann@trust.example>: this account has been disabled and no longer receives mail. For enquiries please write to office@trust.example"})
	if v.Reason != ReasonSuspend || !strings.Contains(v.Fix, "a contact for this, office@trust.example") {
		t.Errorf("reason %s fix %q: want suspend and the contact office@trust.example", v.Reason, v.Fix)
	}
	v = e.Classify(Input{Status: "5.2.1", Command: "RCPT", Diagnostic: "550 5.2.1 <ann@trust.example>: this account has been disabled"})
	if v.Reason != ReasonSuspend || strings.Contains(v.Fix, "a contact for this") || !strings.Contains(v.Fix, "only they or their email admin") {
		t.Errorf("reason %s fix %q: want suspend and the general fix", v.Reason, v.Fix)
	}
}
