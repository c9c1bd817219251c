package rules

import (
	"strings"
	"testing"
)

// TestExpiryOfARequiredEncryptionSaysWhatFailed: an expiry whose every
// attempt failed on the encryption the sending server requires (Exim's
// "a TLS session is required, but the server did not offer TLS support",
// then "retry timeout exceeded") stays expired, Sisimai's reading, but says
// that encryption failed, not that the server could not be reached, and
// the recipient's admin restores it.
func TestExpiryOfARequiredEncryptionSaysWhatFailed(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.0.0", Recipient: "a@bank.example",
		Diagnostic: "host mx.bank.example [192.0.2.140] a TLS session is required, but the server did not offer TLS support retry timeout exceeded"})
	if v.Reason != ReasonExpired || v.Owner != OwnerRecipientAdmin ||
		!strings.Contains(v.Explanation, "did not offer encryption") || strings.Contains(v.Explanation, "could not be reached") ||
		!strings.Contains(v.Fix, "enable encryption (TLS)") {
		t.Errorf("reason %s owner %s\nexplanation %q\nfix %q\nwant expired, the recipient's admin, encryption not offered", v.Reason, v.Owner, v.Explanation, v.Fix)
	}
}
