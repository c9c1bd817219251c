package rules

import (
	"strings"
	"testing"
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
