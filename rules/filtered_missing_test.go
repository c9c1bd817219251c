package rules

import (
	"strings"
	"testing"
)

// The filtered family's missing-mailbox wordings (rules.yaml section 5i-a,
// doc.go "Precedence"): the reason stays Sisimai's filtered, the words say
// that the mailbox does not exist, and a refusal phrase of the family wins.

func TestFilteredMissingMailboxAfterDataIsTheSendersToCheck(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		// MAIL.RU's filter (Sisimai reasons.filtered "user not found").
		{Action: "failed", Status: "5.0.0", ReplyCode: "550", Command: "DATA", Recipient: "p@post.example.ru",
			Diagnostic: "550 Message was not accepted -- invalid mailbox. Local mailbox p@post.example.ru is unavailable: user not found"},
		// A filtered code with a userunknown phrase (Sisimai reasons.filtered notes).
		{Action: "failed", Status: "5.2.1", ReplyCode: "554", Command: "DATA", Recipient: "t@example.net",
			Diagnostic: "554 5.2.1 <t@example.net>: Recipient address rejected: User unknown in virtual mailbox table"},
		{Action: "failed", Status: "5.2.0", Command: "MAIL", Diagnostic: "550 5.2.0 not found recipient account"},
		// A userunknown phrase after DATA, with no filtered code.
		{Action: "failed", Status: "5.0.0", ReplyCode: "550", Command: "DATA", Diagnostic: "550 no such user here"},
	} {
		v := e.Classify(in)
		if v.Reason != ReasonFiltered {
			t.Errorf("%q: reason %s, want filtered (Sisimai's label)", in.Diagnostic, v.Reason)
		}
		if v.Owner != OwnerSender {
			t.Errorf("%q: owner %s, want sender (rule %s)", in.Diagnostic, v.Owner, v.Rule)
		}
		if !strings.Contains(v.Explanation, "mailbox does not exist") || strings.Contains(v.Explanation, "filter") {
			t.Errorf("%q: explanation %q, want the missing mailbox and no filter", in.Diagnostic, v.Explanation)
		}
		if !strings.Contains(v.Fix, "Check the address with the recipient") || strings.Contains(v.Fix, "allow your address") {
			t.Errorf("%q: fix %q, want the address checked with the recipient", in.Diagnostic, v.Fix)
		}
	}
}

func TestFilteredRefusalWordsBeatMissingMailboxWords(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Status: "5.2.1", Command: "DATA",
			Diagnostic: "550 5.2.1 Message rejected: user not found or you have been blocked by the recipient"},
		{Action: "failed", Status: "5.0.0", Command: "DATA",
			Diagnostic: "550 user not found: user refuses to receive this mail"},
		{Action: "failed", Status: "5.2.0", Command: "DATA",
			Diagnostic: "550 5.2.0 user unknown or because the recipient is only accepting mail from specific email addresses"},
	} {
		v := e.Classify(in)
		if v.Reason != ReasonFiltered || v.Owner != OwnerRecipientAdmin {
			t.Errorf("%q: %s owned by %s (rule %s), want filtered owned by recipient-admin", in.Diagnostic, v.Reason, v.Owner, v.Rule)
		}
		if !strings.Contains(v.Explanation, "filter or restriction") {
			t.Errorf("%q: explanation %q, want the filter's words", in.Diagnostic, v.Explanation)
		}
	}
}

func TestFilteredExtendedInactivityIsAClosedMailboxTheRecipientReopens(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Status: "5.2.1", Command: "RCPT",
			Diagnostic: "550 5.2.1 due to extended inactivity new mail is not currently being accepted for this mailbox"},
		{Action: "failed", Status: "5.0.0", Command: "DATA",
			Diagnostic: "554 user not found: due to extended inactivity new mail is not currently being accepted for this mailbox"},
	} {
		v := e.Classify(in)
		if v.Reason != ReasonFiltered || v.Owner != OwnerRecipient {
			t.Errorf("%q: %s owned by %s (rule %s), want filtered owned by the recipient", in.Diagnostic, v.Reason, v.Owner, v.Rule)
		}
		if !strings.Contains(v.Explanation, "closed or suspended") {
			t.Errorf("%q: explanation %q, want a closed mailbox", in.Diagnostic, v.Explanation)
		}
	}
}
