package rules

import (
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// ClamAV's heuristic alerts (clamd.conf AlertOLE2Macros, AlertEncrypted)
// are verdicts about a file's kind, not malware found in it: the reading
// must not name them as a virus nor tell the sender to have their computer
// scanned.
func TestClamAVHeuristicAlertsAreAttachmentTypesNotMalware(t *testing.T) {
	e := builtin(t)
	for file, encrypted := range map[string]bool{
		"clamav-heuristic-01.eml": false, // Heuristics.OLE2.ContainsMacros
		"clamav-heuristic-02.eml": true,  // Heuristics.Encrypted.Zip
	} {
		rd := explainFixture(t, e, file)
		if v := rd.Facts.Get(FactVirus); v != "" {
			t.Errorf("%s: virus fact %q, want none: a heuristic alert names no malware", file, v)
		}
		if rd.Facts.Get(FactBlockedAttachment) == "" {
			t.Errorf("%s: no blocked_attachment fact, want the alert read as a refused file kind", file)
		}
		if got := rd.Facts.Get(FactEncryptedAttachment) != ""; got != encrypted {
			t.Errorf("%s: encrypted_attachment set %v, want %v", file, got, encrypted)
		}
		if rd.Owner != OwnerSender {
			t.Errorf("%s: owner %s, want sender", file, rd.Owner)
		}
	}
}

// A malware name that is no heuristic alert still makes a virus.
func TestClamAVSignatureNameStaysAVirus(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Diagnostic: "550 5.7.1 message rejected: infected with Win.Trojan.Agent-123", Command: "DATA"})
	if v := c.Facts.Get(FactVirus); v != "Win.Trojan.Agent-123" {
		t.Errorf("virus fact %q, want Win.Trojan.Agent-123", v)
	}
}
