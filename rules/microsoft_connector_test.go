package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Exchange Online's 5.7.64 TenantAttribution says "Relay Access Denied", but
// Microsoft documents it as a connector that does not match the server
// relaying into Microsoft 365, not a refusal of the recipient's domain: the
// code decides before the phrase, and since the report does not say whose
// connector it is, the owner is unknown and the fix names both sides, with
// no advice to look for a typo in the domain.
func TestTenantAttributionIsAConnectorNotARelayRefusal(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.7.64", ReplyCode: "550",
		Diagnostic: "smtp; 550 5.7.64 TenantAttribution; Relay Access Denied [SN1NAM02FT012.eop-nam02.prod.protection.outlook.com]"})
	if v.Rule != "ms-5.7.64-tenantattribution" || v.Reason != "norelaying" || v.Owner != OwnerUnknown {
		t.Fatalf("rule %q reason %q owner %q, want ms-5.7.64-tenantattribution, norelaying, unknown", v.Rule, v.Reason, v.Owner)
	}
	if !strings.Contains(v.Fix, "connector") || strings.Contains(v.Fix, "typos") {
		t.Errorf("fix %q: want the connector named and no typo advice", v.Fix)
	}
	// From an Exchange Online host the vendor table decides (Sisimai
	// rhost.Microsoft), with the same words: the reader sees no difference.
	viaVendor := e.Classify(Input{Action: "failed", Status: "5.7.64", ReplyCode: "550",
		RemoteMTA:  "SN1NAM02FT012.mail.protection.outlook.com",
		Diagnostic: "smtp; 550 5.7.64 TenantAttribution; Relay Access Denied [SN1NAM02FT012.eop-nam02.prod.protection.outlook.com]"})
	if viaVendor.Rule != "microsoft-5.7.64-norelaying" || viaVendor.Owner != OwnerUnknown || viaVendor.Fix != v.Fix || viaVendor.Summary != v.Summary {
		t.Errorf("from outlook.com: rule %q owner %q summary %q fix %q, want microsoft-5.7.64-norelaying with the connector words", viaVendor.Rule, viaVendor.Owner, viaVendor.Summary, viaVendor.Fix)
	}
	// The same words under another code are still a relay refusal.
	if v := e.Classify(Input{Action: "failed", Status: "5.7.1", Diagnostic: "554 5.7.1 <a@example.net>: Relay access denied"}); v.Reason != "norelaying" || v.Rule == "ms-5.7.64-tenantattribution" {
		t.Errorf("5.7.1 relay access denied: rule %q reason %q", v.Rule, v.Reason)
	}
}

// TestConnectorCertificateNameIsTheSendersAdminsToFix: Exchange Online's
// refusal to hand a message to a server whose certificate does not bear
// the name the sending organization's connector requires (its TlsDomain)
// is TLS trouble, not an unreachable server; it lasts through retries, and
// the sender's admin, whose connector it is, acts even while the sending
// server still tries.
func TestConnectorCertificateNameIsTheSendersAdminsToFix(t *testing.T) {
	e := builtin(t)
	const diag = "451 4.4.317 Cannot connect to remote server [Message=SubjectMismatch: the name on the certificate presented by the remote host (CN=*.filter.example) doesn't match the TlsDomain configured on the connector (mail.partner.example)] [LastAttemptedServerName=mx1.filter.example]"
	for _, action := range []smtpcode.Action{smtpcode.ActionDelayed, smtpcode.ActionFailed} {
		v := e.Classify(Input{Action: action, Diagnostic: diag, RemoteMTA: "mx1.filter.example"})
		if v.Reason != ReasonFailedSTARTTLS || v.Owner != OwnerSenderAdmin || !strings.HasPrefix(v.Rule, "microsoft-connector-tlsdomain") {
			t.Errorf("%s: reason %s owner %s rule %s; want failedstarttls, the sender's admin", action, v.Reason, v.Owner, v.Rule)
		}
		if !strings.Contains(v.Fix, "Connectors") || strings.Contains(v.Explanation, "could not be reached") {
			t.Errorf("%s: explanation %q fix %q", action, v.Explanation, v.Fix)
		}
	}
}
