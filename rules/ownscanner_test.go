package rules

import (
	"strings"
	"testing"
)

// TestMalwareStoppedByTheSendersOwnScannerIsTheSendersAdminsToCheck: an
// amavisd-new refusal written by a server of the sender's own domain, no
// other server named, is the sender's own outgoing scanner: the reading
// says it stopped the message before it left, that the computer or account
// is probably infected, names no recipient's admin who could release it,
// the owner is the sender's admin, and the report is no backscatter.
func TestMalwareStoppedByTheSendersOwnScannerIsTheSendersAdminsToCheck(t *testing.T) {
	e := builtin(t)
	rds := e.Explain(parseFixture(t, "amavis-own-outbound-virus-01.eml"))
	if len(rds) != 1 {
		t.Fatalf("%d readings, want 1", len(rds))
	}
	rd := rds[0]
	if rd.Reason != ReasonVirusDetected || rd.Owner != OwnerSenderAdmin {
		t.Errorf("reason %s owner %s, want %s and %s", rd.Reason, rd.Owner, ReasonVirusDetected, OwnerSenderAdmin)
	}
	for _, want := range []string{"Your own organization's mail server", "before it left", "probably infected", "Win.Trojan.Qakbot-10021"} {
		if !strings.Contains(rd.Explanation, want) {
			t.Errorf("explanation %q lacks %q", rd.Explanation, want)
		}
	}
	if strings.Contains(rd.Explanation+rd.Fix, "receiving server") || strings.Contains(rd.Fix, "release") {
		t.Errorf("explanation %q fix %q speak of the receiving server or of a release", rd.Explanation, rd.Fix)
	}
	for _, want := range []string{"scanned for malware", "password", "IT"} {
		if !strings.Contains(rd.Fix, want) {
			t.Errorf("fix %q lacks %q", rd.Fix, want)
		}
	}
	if got := rd.Facts.Get(FactOwnScanner); got != "smtp.northgate-freight.example" {
		t.Errorf("own_scanner %q, want smtp.northgate-freight.example", got)
	}
	if !OwnScannerStopped(rds) {
		t.Error("OwnScannerStopped false, want true")
	}
}

// TestMalwareRefusedByTheRecipientsServerKeepsTheReceivingScannersReading:
// the sender's own server reporting that the recipient's server ("host
// mx1... said:") refused the message for malware is the receiving
// scanner's verdict: no own-scanner reading, and backscatter stays possible.
func TestMalwareRefusedByTheRecipientsServerKeepsTheReceivingScannersReading(t *testing.T) {
	e := builtin(t)
	rds := e.Explain(parseFixture(t, "amavis-remote-virus-01.eml"))
	if len(rds) != 1 {
		t.Fatalf("%d readings, want 1", len(rds))
	}
	rd := rds[0]
	if rd.Reason != ReasonVirusDetected || rd.Owner == OwnerSenderAdmin || rd.Facts.Get(FactOwnScanner) != "" {
		t.Errorf("reason %s owner %s own_scanner %q, want %s, not the sender's admin, no own scanner",
			rd.Reason, rd.Owner, rd.Facts.Get(FactOwnScanner), ReasonVirusDetected)
	}
	if !strings.Contains(rd.Fix, "receiving server") {
		t.Errorf("fix %q, want the receiving server's scanner", rd.Fix)
	}
	if OwnScannerStopped(rds) {
		t.Error("OwnScannerStopped true, want false")
	}
}
