package rules

import (
	"regexp"
	"strings"
	"testing"
)

// forwarderRemedy finds the forwarder's remedies as words (not the ARC in
// DMARC).
var forwarderRemedy = regexp.MustCompile(`\b(SRS|ARC)\b|forwarding server|[Ff]orwarded`)

// TestSRSAndARCAreSuggestedOnlyWhenForwardingIsDetected: rewriting the
// envelope sender (SRS) and ARC are the forwarder's remedies (RFC 7208
// appendix D, RFC 8617); for a block of the sender's own server they would
// send its admin after the wrong cause.
func TestSRSAndARCAreSuggestedOnlyWhenForwardingIsDetected(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{"forwarded-refused-dmarc-01.eml", "forwarded-refused-spam-01.eml"} {
		if rd := explainFixture(t, e, file); rd.ForwardedFrom == "" || !strings.Contains(rd.Fix, "SRS") {
			t.Errorf("%s: forwarded from %q, fix %q: want the forwarder's remedies (SRS, ARC)", file, rd.ForwardedFrom, rd.Fix)
		}
	}
	for _, file := range []string{"orange-blocked-code-01.eml", "orange-blocked-code-02.eml", "proofpoint-reputation-01.eml",
		"proofpoint-reputation-02.eml", "gmail-likely-unsolicited-01.eml", "mimecast-block-01.eml"} {
		rd := explainFixture(t, e, file)
		if rd.ForwardedFrom != "" {
			t.Fatalf("%s: read as forwarded from %q; the test wants a plain block", file, rd.ForwardedFrom)
		}
		if w := forwarderRemedy.FindString(rd.Explanation + " " + rd.Fix); w != "" {
			t.Errorf("%s (%s): %q in %q / %q: forwarding's remedies for a block of the sender's own server", file, rd.Reason, w, rd.Explanation, rd.Fix)
		}
	}
	// Every language: the forwarder's remedies stay in its own texts.
	for _, tag := range e.Languages() {
		tx := e.textsFor(e.langIndex(tag))
		for k := range tx {
			if textKey(k) == textForwardedRefusedFix {
				continue
			}
			if s := tx[k].plain(); regexp.MustCompile(`\b(SRS|ARC)\b`).MatchString(s) {
				t.Errorf("language %s, text %s: %q names SRS or ARC outside the forwarded fix", tag, textDefs[k].name, s)
			}
		}
	}
}

// TestACertificateThatFailsVerificationIsNotFixedByRelaxingItOnTheSendersSide:
// verification is what protects the message (RFC 7672 section 2.2, RFC
// 8461 section 5); the receiving side fixes its certificate or policy.
func TestACertificateThatFailsVerificationIsNotFixedByRelaxingItOnTheSendersSide(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{"tls-cert-01.eml", "tls-cert-02.eml"} {
		rd := explainFixture(t, e, file)
		if rd.Facts.Get(FactTLSCert) == "" || rd.Owner != OwnerRecipientAdmin {
			t.Fatalf("%s: tls_cert %q, owner %s: want a certificate failure for the recipient's admin", file, rd.Facts.Get(FactTLSCert), rd.Owner)
		}
		low := strings.ToLower(rd.Fix)
		for _, w := range []string{"relax", "disable", "turn off", "skip", "without verif", "your email admin"} {
			if strings.Contains(low, w) {
				t.Errorf("%s: fix %q suggests %q on the sender's side", file, rd.Fix, w)
			}
		}
		if !strings.Contains(rd.Fix, "Tell the recipient") || rd.Kind == "bounce" && !strings.Contains(rd.Fix, "certificate") {
			t.Errorf("%s: fix %q, want the recipient's admin to fix the certificate", file, rd.Fix)
		}
	}
}
