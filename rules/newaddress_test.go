package rules

import (
	"strings"
	"testing"
)

// TestMovedRecipientsNewAddressIsGiven: when the refusal gives the address
// the recipient moved to (RFC 5321 section 3.4's 551, Postfix's
// relocated(5), Sendmail's FEATURE(`redirect')), the explanation and the
// fix name it instead of asking the recipient for it.
func TestMovedRecipientsNewAddressIsGiven(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ status, diag, want string }{
		{"5.1.6", "550 5.1.6 <ann@old.example>: Recipient address rejected: User has moved to ann@new.example", "ann@new.example"},
		{"5.1.1", "551 5.1.1 <bob@old.example>... User has moved; please try <robert@new.example>", "robert@new.example"},
		{"", "551 User not local; please try <carol@elsewhere.example>", "carol@elsewhere.example"},
	} {
		v := e.Classify(Input{Status: c.status, Diagnostic: c.diag, Command: "RCPT"})
		if v.Reason != ReasonHasMoved || v.Facts.Get(FactNewAddress) != c.want ||
			!strings.Contains(v.Explanation, c.want) || !strings.Contains(v.Fix, "Send the message again to "+c.want) {
			t.Errorf("%q: reason %s new_address %q\nexplanation %q\nfix %q\nwant hasmoved, naming %s in both", c.diag, v.Reason, v.Facts.Get(FactNewAddress), v.Explanation, v.Fix, c.want)
		}
	}
	// Relocated(5) allows any text as the new location: no address, no fact,
	// and the fix asks the person.
	v := e.Classify(Input{Status: "5.1.6", Diagnostic: "550 5.1.6 <dan@old.example>: Recipient address rejected: User has moved to the Berlin office", Command: "RCPT"})
	if v.Facts.Get(FactNewAddress) != "" || !strings.Contains(v.Fix, "for their new address") {
		t.Errorf("relocated to a text: new_address %q fix %q: want none, and the fix asking for the address", v.Facts.Get(FactNewAddress), v.Fix)
	}
}
