package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestEncryptedAttachmentIsNoVirus checks that an attachment refused because
// it is encrypted, password-protected or otherwise unscannable is read as a
// refused attachment the sender can send another way, not as malware, even
// when the notice speaks of malware scanning.
func TestEncryptedAttachmentIsNoVirus(t *testing.T) {
	e := builtin(t)
	tests := []struct{ name, diag string }{
		{"cisco encrypted archive filter", "550 5.7.1 Message rejected: the message contains an encrypted attachment that could not be scanned for malware (Inbound_Block_Encrypted_Archives)"},
		{"password protected archive", "552 5.7.0 Message rejected: password protected archive is not allowed"},
		{"unscannable attachment", "554 5.7.1 Message unscannable: the attachment could not be scanned for viruses"},
		{"encrypted archive", "550 5.7.1 Encrypted archives are not accepted by this organization"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.Classify(Input{Action: smtpcode.ActionFailed, Diagnostic: tt.diag, Command: "DATA"})
			if c.Facts.Get(FactBlockedAttachment) == "" || c.Facts.Get(FactEncryptedAttachment) == "" {
				t.Fatalf("reason %s, rule %s: no blocked_attachment and encrypted_attachment conditions", c.Reason, c.Rule)
			}
			if !strings.Contains(c.Explanation, "encrypted or password-protected") {
				t.Errorf("explanation %q: want the encrypted attachment's words", c.Explanation)
			}
			if !strings.Contains(c.Fix, "secure file exchange") || strings.Contains(c.Fix, "Do not rename the file or pack it") {
				t.Errorf("fix %q: want another way the recipient's organization accepts", c.Fix)
			}
			if c.Owner != OwnerSender {
				t.Errorf("owner %s, want sender (reason %s)", c.Owner, c.Reason)
			}
			if strings.Contains(c.Explanation, "infected") || strings.Contains(c.Fix, "scanned for malware") ||
				strings.Contains(c.Fix, "do not send it again in any other way") {
				t.Errorf("explanation %q, fix %q: read as malware", c.Explanation, c.Fix)
			}
		})
	}
}

// TestNamedMalwareInEncryptedAttachmentIsAVirus checks the precedence: a
// named malware stays a virus even when the notice also says the
// attachment was encrypted.
func TestNamedMalwareInEncryptedAttachmentIsAVirus(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Command: "DATA",
		Diagnostic: "554 5.7.1 Rejected: encrypted attachment infected with Troj/Agent-ABC"})
	if c.Reason != ReasonVirusDetected || c.Facts.Get(FactVirus) != "Troj/Agent-ABC" || !strings.Contains(c.Explanation, "malware (Troj/Agent-ABC)") {
		t.Errorf("reason %s, virus %q, explanation %q: want the malware named", c.Reason, c.Facts.Get(FactVirus), c.Explanation)
	}
}
