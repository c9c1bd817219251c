package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSeedOwners checks that every code of seed 000's table ("What do the
// common Microsoft 365 NDR codes mean?") names the party its "Who fixes it"
// column gives, looked up bare as an admin would paste it; and that no code
// of either seed table is left with an unknown owner.
func TestSeedOwners(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		code   string // a bare code, or a code with the seed's text
		owners []Owner
		seed   string // the seed's "Who fixes it"
	}{
		{"5.1.1", []Owner{OwnerSender}, "Sender"},
		{"5.1.10", []Owner{OwnerSender, OwnerRecipientAdmin}, "Sender, or recipient's admin"},
		{"5.7.1", []Owner{OwnerRecipientAdmin, OwnerGroupOwner}, "Recipient's admin or group owner"},
		{"5.7.124", []Owner{OwnerGroupOwner}, "Group owner"},
		{"5.7.133", []Owner{OwnerRecipientAdmin}, "Recipient's admin"},
		{"5.7.134", []Owner{OwnerRecipientAdmin}, "Recipient's admin"},
		{"5.7.135", []Owner{OwnerRecipientAdmin}, "Recipient's admin"},
		{"5.7.136", []Owner{OwnerRecipientAdmin}, "Recipient's admin"},
		{"5.7.23", []Owner{OwnerSenderAdmin}, "Your admin"},
		{"5.7.509", []Owner{OwnerSenderAdmin}, "The sending domain's admin"},
		{"5.1.8", []Owner{OwnerSenderAdmin}, "Your admin"},
		{"5.1.90", []Owner{OwnerSenderAdmin}, "Your admin; check for compromise"},
		// The seed's 5.2.2 is "Submission quota exceeded"; a bare 5.2.2 is
		// RFC 3463's full mailbox, whose owner is the recipient's side.
		{"554 5.2.2 Submission quota exceeded", []Owner{OwnerSenderAdmin}, "Your admin; check for compromise"},
		{"5.7.233", []Owner{OwnerSenderAdmin}, "Your admin"},
		{"5.7.520", []Owner{OwnerSenderAdmin}, "Your admin"},
		{"5.7.703", []Owner{OwnerSenderAdmin}, "Your admin"},
		{"5.7.606", []Owner{OwnerSenderAdmin}, "The sending server's admin"},
		{"5.7.649", []Owner{OwnerSenderAdmin}, "The sending server's admin"},
		{"5.7.57", []Owner{OwnerSenderAdmin}, "Your admin"},
		{"4.4.7", []Owner{OwnerRecipientAdmin}, "Usually the recipient's admin"},
		{"5.4.14", []Owner{OwnerRecipientAdmin}, "Whoever owns the loop"},
		{"5.4.6", []Owner{OwnerRecipientAdmin}, "Whoever owns the loop"},
	}
	for _, tc := range tests {
		v := e.Lookup(tc.code)
		if !slices.Contains(tc.owners, v.Owner) {
			t.Errorf("%s: owner %s (rule %s), want %s (seed 000: %q)", tc.code, v.Owner, v.Rule, fmt.Sprint(tc.owners), tc.seed)
		}
	}

	// Seed 001's codes: each names someone who must act.
	for _, code := range []string{"4.4.7", "4.7.26", "4.7.500", "4.7.699", "4.7.850", "4.7.899", "5.1.0", "5.1.1",
		"5.2.121", "5.2.122", "5.3.190", "5.4.1", "5.4.6", "5.6.11", "5.7.1", "5.7.12", "5.7.124", "5.7.133",
		"5.7.134", "5.7.13", "5.7.135", "5.7.136", "5.7.25", "5.7.501", "5.7.502", "5.7.503", "5.7.504", "5.7.505",
		"5.7.506", "5.7.507", "5.7.508", "5.7.509", "5.7.510", "5.7.511", "5.7.512", "5.7.513", "5.7.606", "5.7.649",
		"5.7.700", "5.7.749"} {
		if v := e.Lookup(code); v.Owner == OwnerUnknown || v.Owner == "" {
			t.Errorf("%s: owner %q (rule %s): the seed names who must act", code, v.Owner, v.Rule)
		}
	}
}

// TestRegistryCodes reads every code of the IANA registry (X.0.0 .. X.7.30,
// ../shared/reference/enhanced-status-codes.tsv) bare, in both failure
// classes: each gets the reason of its own rule (Sisimai's code_table where it
// has one, the registry's meaning otherwise, the seeds' for Microsoft's
// codes), an owner and a text.
func TestRegistryCodes(t *testing.T) {
	e := builtin(t)
	// code: reason for class 5, and for class 4 when it differs ("5|4").
	want := map[string]string{
		"X.0.0": "undefined",
		"X.1.0": "userunknown", "X.1.1": "userunknown", "X.1.2": "hostunknown", "X.1.3": "userunknown",
		"X.1.4": "filtered", "X.1.5": "undefined", "X.1.6": "hasmoved", "X.1.7": "rejected", "X.1.8": "rejected",
		"X.1.9": "systemerror", "X.1.10": "userunknown|notaccept", // 5.1.10 alone: Microsoft's "recipient not found"
		"X.2.0": "filtered", "X.2.1": "suspend|blocked", "X.2.2": "mailboxfull", "X.2.3": "exceedlimit", "X.2.4": "filtered",
		"X.3.0": "systemerror", "X.3.1": "systemfull", "X.3.2": "notaccept", "X.3.3": "systemerror",
		"X.3.4": "mesgtoobig", "X.3.5": "systemerror", "X.3.6": "undefined",
		"X.4.0": "networkerror", "X.4.1": "norelaying|expired", // 5.4.1 alone: Microsoft's "relay access denied"
		"X.4.2": "networkerror", "X.4.3": "systemerror", "X.4.4": "hostunknown|networkerror", "X.4.5": "systemfull",
		"X.4.6": "networkerror", "X.4.7": "expired",
		"X.5.0": "syntaxerror", "X.5.1": "syntaxerror", "X.5.2": "syntaxerror", "X.5.3": "toomanyconn",
		"X.5.4": "syntaxerror", "X.5.5": "syntaxerror", "X.5.6": "syntaxerror",
		"X.6.0": "contenterror", "X.6.1": "contenterror", "X.6.2": "contenterror", "X.6.3": "contenterror",
		"X.6.4": "contenterror", "X.6.5": "contenterror", "X.6.6": "contenterror", "X.6.7": "contenterror",
		"X.6.8": "contenterror", "X.6.9": "contenterror", "X.6.10": "contenterror",
		"X.7.0": "securityerror", "X.7.1": "securityerror|blocked", "X.7.2": "filtered", "X.7.3": "securityerror",
		"X.7.4": "securityerror", "X.7.5": "securityerror", "X.7.6": "securityerror", "X.7.7": "securityerror",
		"X.7.8": "securityerror", "X.7.9": "securityerror", "X.7.10": "securityerror", "X.7.11": "securityerror",
		"X.7.12": "filtered|securityerror", // 5.7.12 alone: Microsoft's "sender not authenticated by organization"
		"X.7.13": "filtered|suspend",       // 5.7.13 alone: Microsoft's public folder
		"X.7.14": "securityerror", "X.7.15": "securityerror", "X.7.16": "mesgtoobig", "X.7.17": "hasmoved",
		"X.7.18": "hasmoved", "X.7.19": "securityerror", "X.7.20": "authfailure", "X.7.21": "authfailure",
		"X.7.22": "authfailure", "X.7.23": "authfailure", "X.7.24": "authfailure", "X.7.25": "requireptr",
		"X.7.26": "authfailure", "X.7.27": "rejected", "X.7.28": "spamdetected", "X.7.29": "authfailure",
		"X.7.30": "failedstarttls",
	}
	for x, reasons := range want {
		r5, r4, _ := strings.Cut(reasons, "|")
		if r4 == "" {
			r4 = r5
		}
		for class, reason := range map[string]string{"5": r5, "4": r4} {
			code := class + x[1:]
			v := e.Lookup(code)
			if string(v.Reason) != reason {
				t.Errorf("%s: %s (rule %s), want %s", code, v.Reason, v.Rule, reason)
			}
			if v.Owner == "" || v.Summary == "" || v.Explanation == "" || v.Fix == "" && v.Reason != "delivered" {
				t.Errorf("%s: owner %q summary %q explanation %q fix %q: want each", code, v.Owner, v.Summary, v.Explanation, v.Fix)
			}
			if v.Status != code {
				t.Errorf("%s: status %q", code, v.Status)
			}
		}
	}
	if len(want) != 1+11+5+7+8+7+11+31 {
		t.Errorf("%d codes listed, want the registry's 81 (X.0.0 .. X.7.30)", len(want))
	}
}
