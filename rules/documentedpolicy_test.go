package rules

import (
	"strings"
	"testing"
)

// TestYahooAndICloudPolicyRefusalsSendTheSendersAdminToAuthenticationAndReputation:
// Yahoo's "Message not accepted for policy reasons" (Yahoo Sender Hub) and
// iCloud's "[CS01] Message rejected due to local policy" (Apple's
// postmaster page) judge the sender: the reading gives them to the
// sender's email admin, with SPF, DKIM, DMARC and the sending IP's
// reputation to check, never "ask the recipient what their organization
// accepts" (a personal mailbox has no organisation's rules).
func TestYahooAndICloudPolicyRefusalsSendTheSendersAdminToAuthenticationAndReputation(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{"yahoo-policy-not-accepted-01.eml", "yahoo-policy-not-accepted-02.eml",
		"apple-cs01-local-policy-01.eml", "apple-cs01-local-policy-02.eml"} {
		rd := explainFixture(t, e, file)
		if rd.Reason != ReasonPolicyViolation || rd.Owner != OwnerSenderAdmin {
			t.Errorf("%s: reason %s owner %s, want %s %s", file, rd.Reason, rd.Owner, ReasonPolicyViolation, OwnerSenderAdmin)
		}
		for _, w := range []string{"SPF", "DKIM", "DMARC", "IP address", "blocklist"} {
			if !strings.Contains(rd.Fix, w) {
				t.Errorf("%s: fix %q does not name %q", file, rd.Fix, w)
			}
		}
		if strings.Contains(rd.Fix, "what their organization accepts") {
			t.Errorf("%s: fix %q sends the sender to the recipient's organisation", file, rd.Fix)
		}
	}
}

// TestYahooAndICloudPolicyRepliesAreKnownWithoutTheirHost: a relay's
// notice that quotes the reply but names no receiving host still reads as
// Yahoo's or iCloud's refusal when the reply marks itself (Yahoo's Sender
// Hub address, Apple's [CS01] code), with the same owner and words.
func TestYahooAndICloudPolicyRepliesAreKnownWithoutTheirHost(t *testing.T) {
	e := builtin(t)
	for _, tc := range []struct{ diag, rule, withHost, host string }{
		{"554 5.7.9 Message not accepted for policy reasons. See https://senders.yahooinc.com/error-codes",
			"yahoo-policyviolation-by-reply", "yahoo-policyviolation", "mta7.am0.yahoodns.net"},
		{"550 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137",
			"apple-policyviolation-by-reply", "apple-policyviolation", "mx01.mail.icloud.com"},
	} {
		v := e.Classify(Input{Action: "failed", Status: "5.7.1", Diagnostic: tc.diag})
		if v.Rule != tc.rule || v.Owner != OwnerSenderAdmin {
			t.Errorf("%q without a host: rule %q owner %q, want %s, %s", tc.diag, v.Rule, v.Owner, tc.rule, OwnerSenderAdmin)
		}
		h := e.Classify(Input{Action: "failed", Status: "5.7.1", Diagnostic: tc.diag, RemoteMTA: tc.host})
		if h.Rule != tc.withHost || h.Fix != v.Fix {
			t.Errorf("%q from %s: rule %q, fix the same: %v; want %s with the same words", tc.diag, tc.host, h.Rule, h.Fix == v.Fix, tc.withHost)
		}
	}
	// The words alone, from another provider, keep the generic reading.
	if v := e.Classify(Input{Action: "failed", Status: "5.7.1", Diagnostic: "554 5.7.1 Message not accepted for policy reasons"}); v.Rule == "yahoo-policyviolation-by-reply" {
		t.Errorf("a policy refusal that does not mark itself as Yahoo's read as Yahoo's")
	}
}

// TestBareLineFeedsAreTheProducingProgramsAndTheSendingServersToFix:
// Microsoft's 5.6.11 (Microsoft Learn, "Fix NDR error 550 5.6.11") is fixed
// by the program that wrote bare line feeds or by the sending server (CRLF,
// BDAT/CHUNKING): the sender's email admin, not the user's mail program.
func TestBareLineFeedsAreTheProducingProgramsAndTheSendingServersToFix(t *testing.T) {
	e := builtin(t)
	v := e.Lookup("5.6.11")
	if v.Owner != OwnerSenderAdmin {
		t.Errorf("5.6.11: owner %s, want %s", v.Owner, OwnerSenderAdmin)
	}
	for _, w := range []string{"CRLF", "CHUNKING", "program or server"} {
		if !strings.Contains(v.Fix, w) {
			t.Errorf("5.6.11: fix %q does not name %q", v.Fix, w)
		}
	}
	if strings.Contains(v.Fix, "Update your email program") {
		t.Errorf("5.6.11: fix %q blames the user's mail program", v.Fix)
	}
}
