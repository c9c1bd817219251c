package rules

import (
	"strings"
	"testing"
)

// TestLoopBackToTheSendersOwnServerIsTheSenderAdmins: Postfix's "mail for
// D loops back to myself" written by a server of the sender's own domain is
// that server's configuration (or D's mail server records): the sender's
// admin fixes it. Written by a server of the recipient's side, it stays the
// recipient's admin's.
func TestLoopBackToTheSendersOwnServerIsTheSenderAdmins(t *testing.T) {
	e := builtin(t)
	own := Input{Action: "failed", Status: "5.4.6", Recipient: "tickets@support.corp.example", SenderDomain: "corp.example",
		ReportingMTA: "dns; mx1.corp.example", Diagnostic: "mail for support.corp.example loops back to myself"}
	v := e.Classify(own)
	if v.Owner != OwnerSenderAdmin || !strings.Contains(v.Fix, "Your own mail server mx1.corp.example") ||
		!strings.Contains(v.Fix, "add support.corp.example to the domains") {
		t.Errorf("own server: owner %s fix %q: want the sender's admin and the server's accepted domains", v.Owner, v.Fix)
	}
	theirs := own
	theirs.SenderDomain, theirs.ReportingMTA, theirs.RemoteMTA = "shop.example", "dns; mail.shop.example", "dns; mx1.corp.example"
	theirs.Diagnostic = "host mx1.corp.example[192.0.2.1] said: 554 5.4.6 mail for support.corp.example loops back to myself"
	if v := e.Classify(theirs); v.Owner == OwnerSenderAdmin || strings.Contains(v.Fix, "Your own mail server") {
		t.Errorf("recipient's server: owner %s fix %q: want not the sender's admin", v.Owner, v.Fix)
	}
}
