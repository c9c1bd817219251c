package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestMicrosoftServerBusyNamesTheThrottledSendingAddress checks that
// Exchange Online's "451 4.7.500 Server busy. Please try again later from
// [IP]. (S-code)" is read as the throttling of the sending server's
// address, named, not as an error of the receiving system: in a delay
// report nothing is to be done yet, and the sender's admin is who acts if
// it lasts (seed 001, 4.7.500-699; delay.go, delayedOwner), which the fix
// says; the reason stays the source table's (systemerror).
func TestMicrosoftServerBusyNamesTheThrottledSendingAddress(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"451 4.7.500 Server busy. Please try again later from [198.51.100.20]. (S77714) [AM4PEPF00027A5F.eurprd04.prod.outlook.com]",
		"451 4.7.500 Server busy. Please try again later from [198.51.100.20]. (S843)",
		"451 4.7.650 Server busy. Please try again later from [198.51.100.20]. (S77719)",
	} {
		v := e.Classify(Input{Action: smtpcode.ActionDelayed, Diagnostic: diag, RemoteMTA: "fabrikam-example.mail.protection.outlook.com"})
		if v.Reason != ReasonSystemError || v.Owner != OwnerSenderAdmin || v.Facts.Get(FactIP) != "198.51.100.20" {
			t.Errorf("%q: reason %s, owner %s, ip %q (rule %s); want systemerror, the sender's admin if it lasts, the sending IP", diag, v.Reason, v.Owner, v.Facts.Get(FactIP), v.Rule)
		}
		if !strings.Contains(v.Explanation, "slowing down mail from the sending server's address 198.51.100.20") ||
			strings.Contains(v.Explanation, "error in the receiving mail system") {
			t.Errorf("%q: explanation %q", diag, v.Explanation)
		}
		if !strings.Contains(v.Fix, "tries again by itself") || !strings.Contains(v.Fix, "reputation") {
			t.Errorf("%q: fix %q: want the retry and the reputation check", diag, v.Fix)
		}
	}
	// Looked up alone (no report), if it lasts it is the sender's admin's.
	v := e.Classify(Input{Diagnostic: "451 4.7.500 Server busy. Please try again later from [198.51.100.20]. (S77714)"})
	if v.Owner != OwnerSenderAdmin || !strings.Contains(v.Fix, "198.51.100.20") {
		t.Errorf("lookup: owner %s, fix %q", v.Owner, v.Fix)
	}
}
