package rules

import (
	"strings"
	"testing"
)

// Issue 8, outside gradings: who acts, and what the fix asks, for five
// families the graders marked wrong (sources in rules.yaml next to each).

// TestDisabledMailboxIsTheRecipientsToReactivate: every wording of a
// disabled or suspended mailbox (consumer accounts included, which have no
// admin to ask) names the recipient in person.
func TestDisabledMailboxIsTheRecipientsToReactivate(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Status: "5.2.1", Diagnostic: "host gmail-smtp-in.l.google.com[192.0.2.1] said: 550 5.2.1 The email account that you tried to reach is disabled. (in reply to RCPT TO command)"},
		{Action: "failed", Status: "5.0.0", Diagnostic: "host mta5.am0.yahoodns.net[192.0.2.2] said: 554 delivery error: dd This mailbox is disabled (554.30) - mta1.mail.yahoo.com (in reply to end of DATA command)"},
		{Action: "failed", Status: "5.2.1", Diagnostic: "550 5.2.1 Mailbox disabled, not accepting messages"},
		{Action: "failed", Status: "5.0.0", Diagnostic: "550 mailbox disabled"},
		{Action: "failed", Status: "5.7.505", Diagnostic: "550 5.7.505 Access denied, banned recipient"},
	} {
		v := e.Classify(in)
		if v.Reason != "suspend" || v.Owner != OwnerRecipient {
			t.Errorf("%q: reason %s owner %s (rule %s); want suspend, the recipient", in.Diagnostic, v.Reason, v.Owner, v.Rule)
		}
	}
}

// TestSuppressionListIsForWhoeverRunsTheSendingAccount: a sending
// service's suppression list is kept per account; its admin, not the
// user of a program sending through it, takes an address off it.
func TestSuppressionListIsForWhoeverRunsTheSendingAccount(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.1.1", Diagnostic: "Amazon SES did not send the message to this address because it is on the suppression list for your account. For more information about removing addresses from the suppression list, see the Amazon SES Developer Guide"})
	if v.Reason != "suppressed" || v.Owner != OwnerSenderAdmin || !strings.Contains(v.Fix, "ask whoever runs your sending service account") {
		t.Errorf("reason %s owner %s fix %q (rule %s); want suppressed, the sender's admin, asked by the sender", v.Reason, v.Owner, v.Fix, v.Rule)
	}
}

// TestRelayRefusalTellsTheSenderToAlertTheRecipient: the recipient's
// admin must act on a relay refusal, so every such fix asks the sender to
// tell the recipient by other means.
func TestRelayRefusalTellsTheSenderToAlertTheRecipient(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Status: "5.7.1", Diagnostic: "host mx.example.net[192.0.2.8] said: 554 5.7.1 <bo@example.net>: Relay access denied (in reply to RCPT TO command)"},
		{Action: "failed", Status: "5.5.0", Diagnostic: "host mx.example.net[192.0.2.8] said: 550 we do not relay for example.net (in reply to RCPT TO command)"},
	} {
		v := e.Classify(in)
		if v.Reason != ReasonNoRelaying || !strings.Contains(v.Fix, "tell the recipient by other means") {
			t.Errorf("%q: reason %s fix %q (rule %s); want norelaying, telling the recipient by other means", in.Diagnostic, v.Reason, v.Fix, v.Rule)
		}
	}
}

// TestRestrictedGroupFixDoesNotAskAnOutsiderToJoin: an outside sender
// cannot join an organisation's group; the fix asks the owner or the
// organisation, or the person for a direct address.
func TestRestrictedGroupFixDoesNotAskAnOutsiderToJoin(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Status: "5.0.0", Diagnostic: "We're writing to let you know that the group you tried to contact (team) may not exist, or you may not have permission to post messages to the group. A few more details on why you weren't able to post: * You might have spelled or formatted the group name incorrectly. Learn more at https://groups.google.com/support/bin/answer.py?answer=46606"},
		{Action: "failed", Status: "5.7.2", Diagnostic: "550 5.7.2 Mailing list expansion prohibited"},
	} {
		v := e.Classify(in)
		if v.Owner != OwnerGroupOwner || strings.Contains(v.Fix, "joining") || !strings.Contains(v.Fix, "direct address") {
			t.Errorf("%q: owner %s fix %q (rule %s); want the group's owner, no joining, a direct address", in.Diagnostic, v.Owner, v.Fix, v.Rule)
		}
	}
}

// TestBadOutboundSenderIsTheSendersBlockedAccount: Microsoft 365's 5.1.8
// "bad outbound sender" is the sender's account blocked from sending, not a
// refusal of the recipient nor a domain that does not exist; another 5.1.8
// (a sender domain not found) keeps the domain reading.
func TestBadOutboundSenderIsTheSendersBlockedAccount(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.1.8", Diagnostic: "Remote server returned '550 5.1.8 Access denied, bad outbound sender. AS(42003551) [AM0PR01MB1234.eurprd01.prod.exchangelabs.com]'"})
	if v.Rule != "ms-5.1.8-bad-outbound-sender" || v.Owner != OwnerSenderAdmin ||
		!strings.Contains(v.Explanation, "your own email account is blocked from sending") ||
		strings.Contains(v.Fix, "domain exists") || !strings.Contains(v.Fix, "Restricted entities") {
		t.Errorf("rule %s owner %s explanation %q fix %q; want the sender's blocked account", v.Rule, v.Owner, v.Explanation, v.Fix)
	}
	v = e.Classify(Input{Action: "failed", Status: "5.1.8", Diagnostic: "host mx.example.net[192.0.2.8] said: 550 5.1.8 <a@nodomain.example>: Sender address rejected: Domain not found (in reply to RCPT TO command)"})
	if v.Reason != "rejected" || strings.Contains(v.Explanation, "blocked from sending") || !strings.Contains(v.Fix, "domain nodomain.example exists in DNS") {
		t.Errorf("domain not found: rule %s explanation %q fix %q; want the sender domain reading", v.Rule, v.Explanation, v.Fix)
	}
}

// TestSendingServiceAndBlockedAccountFixturesNameTheSendersAdmin: the
// family fixtures of a suppression list and of a bad outbound sender are
// owned by the sender's admin, with the fixes above.
func TestSendingServiceAndBlockedAccountFixturesNameTheSendersAdmin(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"ses-suppressed-01.eml":      "ask whoever runs your sending service account",
		"ses-suppressed-02.eml":      "ask whoever runs your sending service account",
		"bad-outbound-sender-01.eml": "Restricted entities",
		"bad-outbound-sender-02.eml": "Restricted entities",
	} {
		rd := explainFixture(t, e, file)
		if rd.Owner != OwnerSenderAdmin || !strings.Contains(rd.Fix, want) || strings.Contains(rd.Fix, "domain exists") {
			t.Errorf("%s: owner %s fix %q; want the sender's admin and %q", file, rd.Owner, rd.Fix, want)
		}
	}
}
