package rules

import (
	"strings"
	"testing"
)

// A network or routing failure the server called permanent (5.x.x) is not
// "usually temporary": its fix says that sending again fails the same way
// until the recipient's domain or mail server is fixed, while a temporary
// code alone keeps the advice that the sending server retries.
func TestPermanentNetworkErrorIsNotCalledTemporary(t *testing.T) {
	e := builtin(t)
	permanent := e.Classify(Input{Action: "failed", Status: "5.4.0", Diagnostic: "554 5.4.0 Network error while routing the message"})
	if permanent.Reason != "networkerror" {
		t.Fatalf("5.4.0 network error: reason %q (rule %q), want networkerror", permanent.Reason, permanent.Rule)
	}
	if strings.Contains(permanent.Fix, "Usually temporary") || !strings.Contains(permanent.Fix, "fail the same way") {
		t.Errorf("5.4.0 fix %q: want no 'usually temporary', and that it fails the same way", permanent.Fix)
	}
	// A temporary code with no report around it ("ndrmilter code 4.4.0")
	// keeps the retry advice; with Action: failed the sending server has
	// stopped retrying, which the fix says (TestGivenUpNetworkFailureDoesNotPromiseRetries).
	temporary := e.Classify(Input{Status: "4.4.0", Diagnostic: "451 4.4.0 Network error while routing the message"})
	if temporary.Reason != "networkerror" || !strings.Contains(temporary.Fix, "Usually temporary") {
		t.Errorf("4.4.0 network error: reason %q fix %q: want networkerror with the retry advice", temporary.Reason, temporary.Fix)
	}
	givenUp := e.Classify(Input{Action: "failed", Status: "4.4.0", Diagnostic: "451 4.4.0 Network error while routing the message"})
	if givenUp.Reason != "networkerror" || strings.Contains(givenUp.Fix, "Usually temporary") || !strings.Contains(givenUp.Fix, "gave up") {
		t.Errorf("4.4.0 network error, failed: reason %q fix %q: want networkerror, given up, no retry advice", givenUp.Reason, givenUp.Fix)
	}
}

// qmail-remote's #5.4.6 (qmail-remote.c: the domain's best MX is the
// sending machine, which does not list the domain in control/locals) names
// the domain's DNS, not a passing network fault: the recipient's admin fixes
// the MX, and the text says it will fail again.
func TestQmailBestPreferenceMXIsTheDomainsDNS(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.4.6",
		Diagnostic: "Sorry. Although I'm listed as a best-preference MX or A for that host, it isn't in my control/locals file, so I don't treat it as local. (#5.4.6)"})
	if v.Rule != "qmail-mx-points-here" || v.Reason != "networkerror" || v.Owner != OwnerRecipientAdmin {
		t.Fatalf("rule %q reason %q owner %q, want qmail-mx-points-here, networkerror, recipient-admin", v.Rule, v.Reason, v.Owner)
	}
	if !strings.Contains(v.Explanation, "sending server itself") || !strings.Contains(v.Fix, "fail the same way") {
		t.Errorf("explanation %q fix %q: want the MX pointing at the sending server, and no retry advice", v.Explanation, v.Fix)
	}
}
