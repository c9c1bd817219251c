package rules

import (
	"strings"
	"testing"
)

// Who acts on a delay whose cause names a side, and on a relay refusal
// by whose server refused (delay.go, delayedOwner; relayside.go); what a
// loop's and a rate limit's report state is said (loop.go, the
// rate-limit extractor).

// TestConnectionDelayAtTheRecipientsServerIsTheRecipientAdminsIfItPersists:
// a refused, timed-out or unrouted connection to the recipient's mail
// server is theirs to fix if it lasts; nothing is to be done yet.
func TestConnectionDelayAtTheRecipientsServerIsTheRecipientAdminsIfItPersists(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "delay-recipient-server-down-01.eml")
	if rd.Owner != OwnerRecipientAdmin || !strings.Contains(rd.Fix, "Nothing to do yet") ||
		!strings.Contains(rd.Fix, "If the delay persists, tell the recipient by other means") ||
		!strings.Contains(rd.Fix, "mx1.typeset-studio.example") || !strings.Contains(rd.Fix, "until the message is 5 days old") {
		t.Errorf("delay-recipient-server-down-01.eml: owner %s fix %q: want the recipient's admin, nothing to do yet, the deadline, the host, and what to do if it persists", rd.Owner, rd.Fix)
	}
	for _, diag := range []string{
		"connect to mx.example.net[192.0.2.5]:25: Connection refused",
		"connect to mx.example.net[192.0.2.5]:25: Connection timed out",
		"connect to mx.example.net[192.0.2.5]:25: No route to host",
	} {
		v := e.Classify(Input{Action: "delayed", Status: "4.4.1", Diagnostic: diag, Recipient: "a@example.net", SenderDomain: "example.org"})
		if v.Owner != OwnerRecipientAdmin || !strings.Contains(v.Fix, "do not send the message again") {
			t.Errorf("%q: owner %s fix %q: want the recipient's admin if it persists, no second copy", diag, v.Owner, v.Fix)
		}
	}
}

// TestConnectionDelayAtTheSendersOwnRelayIsNotTheRecipients: when the
// server that does not answer is a host of the sender's domain, the
// recipient's admin has nothing to do with it; who does is not known.
func TestConnectionDelayAtTheSendersOwnRelayIsNotTheRecipients(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.4.1", Recipient: "a@example.net", SenderDomain: "example.org",
		Diagnostic: "connect to smarthost.example.org[10.0.0.5]:25: Connection refused"})
	if v.Owner != OwnerUnknown || strings.Contains(v.Fix, "tell the recipient by other means") {
		t.Errorf("owner %s fix %q: want unknown, not the recipient's side", v.Owner, v.Fix)
	}
}

// TestReputationDeferralIsTheSenderAdminsIfItPersists: a deferral of the
// sending server for its standing (a block list, complaints, its
// reputation) is the sender's admin's if it lasts: Yahoo TSS09, a
// SpamCop listing, Exchange Online's 4.7.650.
func TestReputationDeferralIsTheSenderAdminsIfItPersists(t *testing.T) {
	e := builtin(t)
	for file, named := range map[string]string{
		"delay-sending-reputation-01.eml":     "https://postmaster.yahooinc.com/error-codes",
		"delay-sending-ip-blocklisted-01.eml": "bl.spamcop.net",
		"delay-microsoft-reputation-01.eml":   "https://aka.ms/postmaster",
	} {
		rd := explainFixture(t, e, file)
		if rd.Owner != OwnerSenderAdmin || !strings.Contains(rd.Fix, "do not send the message again") ||
			!strings.Contains(rd.Fix, "If the delay persists or comes back, your email admin must act") || !strings.Contains(rd.Fix, named) {
			t.Errorf("%s: owner %s fix %q: want the sender's admin if it persists, no second copy, and %q", file, rd.Owner, rd.Fix, named)
		}
		if rd.Permanent {
			t.Errorf("%s: permanent, want a delay", file)
		}
	}
	v := e.Classify(Input{Action: "delayed", Status: "4.7.1", RemoteMTA: "mx.example.net", Recipient: "a@example.net",
		Diagnostic: "host mx.example.net[192.0.2.1] said: 421 4.7.1 IP on blocklist, try again later (in reply to MAIL FROM command)"})
	if v.Owner != OwnerSenderAdmin {
		t.Errorf("IP on blocklist: owner %s, want the sender's admin", v.Owner)
	}
}

// TestDelayWithoutASidedCauseStaysNobodys: a temporary local problem of
// the receiving server, or a deferral that names no cause, passes by
// itself: nobody, nothing to do yet.
func TestDelayWithoutASidedCauseStaysNobodys(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"host mx.example.net[192.0.2.1] said: 451 4.3.0 Temporary local problem - please try later (in reply to end of DATA command)",
		"host mx.example.net[192.0.2.1] said: 451 4.7.1 Greylisted, see http://postgrey.schweikert.ch/help/example.net.html (in reply to RCPT TO command)",
	} {
		v := e.Classify(Input{Action: "delayed", RemoteMTA: "mx.example.net", Recipient: "a@example.net", Diagnostic: diag})
		if v.Owner != OwnerNone || !strings.Contains(v.Fix, "Nothing to do") {
			t.Errorf("%q: owner %s fix %q: want nobody, nothing to do yet", diag, v.Owner, v.Fix)
		}
	}
}

// TestRelayDeniedByTheSendersOwnRelayIsTheSenderAdmins: the refusing
// host is in the sender's domain: log in or use the right outgoing
// server, and the recipient's address is not at fault.
func TestRelayDeniedByTheSendersOwnRelayIsTheSenderAdmins(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "relay-denied-own-relay-01.eml")
	if rd.Reason != ReasonNoRelaying || rd.Owner != OwnerSenderAdmin ||
		!strings.Contains(rd.Explanation, "your own organization's mail server relay.garden-tools.example") ||
		!strings.Contains(rd.Fix, "log in") || strings.Contains(rd.Fix, "tell the recipient") {
		t.Errorf("relay-denied-own-relay-01.eml: reason %s owner %s\n%s\n%s\nwant norelaying, the sender's admin, the own relay named, log in", rd.Reason, rd.Owner, rd.Explanation, rd.Fix)
	}
	// No other server named: the reporting server refused, and it is of
	// the sender's domain.
	v := e.Classify(Input{Action: "failed", Status: "5.7.1", ReportingMTA: "mail.example.org", Recipient: "bo@example.net",
		SenderDomain: "example.org", Diagnostic: "550 5.7.1 <bo@example.net>... Relaying denied"})
	if v.Owner != OwnerSenderAdmin || !strings.Contains(v.Fix, "log in") {
		t.Errorf("reporting server of the sender's domain: owner %s fix %q, want the sender's admin", v.Owner, v.Fix)
	}
	// A temporary refusal by the sender's own relay is not the lasting
	// configuration of the recipient's side.
	v = e.Classify(Input{Action: "delayed", Status: "4.7.1", RemoteMTA: "relay.example.org", Recipient: "bo@example.net",
		SenderDomain: "example.org", Diagnostic: "454 4.7.1 <bo@example.net>: Relay access denied"})
	if v.Owner != OwnerSenderAdmin || strings.Contains(v.Fix, "recipient's side changes") || !strings.HasPrefix(v.Explanation, "Delivery to bo@example.net is delayed") ||
		strings.Count(v.Explanation, "bo@example.net") != 1 {
		t.Errorf("delayed own relay: owner %s\n%s\n%s\nwant the sender's admin, said as a delay naming the recipient once", v.Owner, v.Explanation, v.Fix)
	}
}

// TestRelayDeniedByTheRecipientsServerIsTheRecipientAdmins: the refusing
// host is in the recipient's domain: it does not accept mail for its own
// domain (seed 001: "An MX record for a domain points to a receiving
// email system where that domain is not accepted").
func TestRelayDeniedByTheRecipientsServerIsTheRecipientAdmins(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "relay-denied-recipient-mx-01.eml")
	if rd.Reason != ReasonNoRelaying || rd.Owner != OwnerRecipientAdmin || !strings.Contains(rd.Fix, "tell the recipient by other means") ||
		strings.Contains(rd.Fix, "log in") {
		t.Errorf("relay-denied-recipient-mx-01.eml: reason %s owner %s fix %q: want norelaying, the recipient's admin, told by other means", rd.Reason, rd.Owner, rd.Fix)
	}
}

// TestRelayDeniedByAServerOfNeitherSideIsUnknownAndNamesBoth: a host
// neither domain names may be the sender's provider's outgoing server or
// the recipient's hosted mail server: unknown, and the fix names both.
func TestRelayDeniedByAServerOfNeitherSideIsUnknownAndNamesBoth(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "relay-denied-unknown-side-01.eml")
	if rd.Reason != ReasonNoRelaying || rd.Owner != OwnerUnknown ||
		!strings.Contains(rd.Fix, "If the server mx02.hostingcloud.example is your own or your provider's outgoing server") ||
		!strings.Contains(rd.Fix, "Otherwise tell the recipient by other means") {
		t.Errorf("relay-denied-unknown-side-01.eml: reason %s owner %s fix %q: want norelaying, unknown, both sides named", rd.Reason, rd.Owner, rd.Fix)
	}
}

// TestTenantAttributionKeepsItsOwnWordsWhateverTheSide: Exchange Online's
// 5.7.64 is about a connector, not the domain; its rule's unknown owner
// and words stay, even when the sender's domain is known.
func TestTenantAttributionKeepsItsOwnWordsWhateverTheSide(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.7.64", RemoteMTA: "mail.example.org", Recipient: "bo@example.net", SenderDomain: "example.org",
		Diagnostic: "550 5.7.64 TenantAttribution; Relay Access Denied"})
	if v.Owner != OwnerUnknown || !strings.Contains(v.Explanation, "connector") {
		t.Errorf("owner %s explanation %q: want unknown and the connector words", v.Owner, v.Explanation)
	}
}

// TestLoopSaysHowFarItWentAndWhoseServersPointBack: Sendmail's hop count
// and limit, and the domain of Postfix's "loops back to myself", are in
// the explanation.
func TestLoopSaysHowFarItWentAndWhoseServersPointBack(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "loop-too-many-hops-01.eml")
	if !strings.Contains(rd.Explanation, "It had passed through 26 mail servers, over the limit of 25.") {
		t.Errorf("loop-too-many-hops-01.eml: explanation %q: want the hops and the limit", rd.Explanation)
	}
	rd = explainFixture(t, e, "loop-back-to-myself-01.eml")
	if !strings.Contains(rd.Explanation, "The mail servers of wheelworks.example point back to the server that was passing the message on (mx.bike-repairs.example)") {
		t.Errorf("loop-back-to-myself-01.eml: explanation %q: want the domain and the server it points back to", rd.Explanation)
	}
	// A loop that says neither gets no note.
	v := e.Classify(Input{Action: "failed", Status: "5.4.6", Diagnostic: "554 5.4.6 Hop count exceeded - possible mail loop"})
	if strings.Contains(v.Explanation, "passed through") || strings.Contains(v.Explanation, "point back") {
		t.Errorf("bare loop: explanation %q: want no note", v.Explanation)
	}
}

// TestRateLimitSaysTheFigure: a rate limit the server states, with its
// period, is in the explanation; a bare recipient count is not a rate.
func TestRateLimitSaysTheFigure(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "rate-limit-figure-01.eml")
	if rd.Reason != ReasonSpeeding || !strings.Contains(rd.Explanation, "rate limit of 100 messages per hour") {
		t.Errorf("rate-limit-figure-01.eml: reason %s explanation %q: want speeding and the figure", rd.Reason, rd.Explanation)
	}
	v := e.Classify(Input{Action: "failed", Status: "5.5.3", Diagnostic: "550 5.5.3 too many recipients (limit 100)"})
	if v.Facts.Get(FactLimit) != "100" || !strings.Contains(v.Explanation, "at most 100 in one message") {
		t.Errorf("too many recipients: limit %q explanation %q: want 100", v.Facts.Get(FactLimit), v.Explanation)
	}
}

// TestRateLimitInEximsWordsIsARateLimit: Exim's ratelimit example message
// ("Sender rate exceeds N messages per P") is a sending rate limit, with
// its figure, not a policy refusal of unknown cause.
func TestRateLimitInEximsWordsIsARateLimit(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "4.7.1", RemoteMTA: "mx.example.net", Recipient: "a@example.net",
		Diagnostic: "host mx.example.net[192.0.2.1] said: 450 4.7.1 Sender rate exceeds 200 messages per 1h (in reply to RCPT TO command)"})
	if v.Reason != ReasonSpeeding || v.Owner != OwnerSenderAdmin || !strings.Contains(v.Explanation, "rate limit of 200 messages per 1h") {
		t.Errorf("reason %s owner %s explanation %q: want speeding, the sender's admin, the figure", v.Reason, v.Owner, v.Explanation)
	}
}

// TestTooManyRecipientsSaysTheLimitAndIsNeverTooManyConnections: the
// server's stated limit is in the words, and "maximum number of
// recipients per message exceeded" (RFC 3463 X.5.3) is about recipients,
// the sender's to split, not about connections.
func TestTooManyRecipientsSaysTheLimitAndIsNeverTooManyConnections(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "too-many-recipients-limit-01.eml")
	if rd.Owner != OwnerSender || !strings.Contains(rd.Explanation, "at most 100 in one message") || !strings.Contains(rd.Fix, "(at most 100)") {
		t.Errorf("too-many-recipients-limit-01.eml: owner %s\n%s\n%s\nwant the sender and the limit 100", rd.Owner, rd.Explanation, rd.Fix)
	}
	rd = explainFixture(t, e, "too-many-recipients-wording-01.eml")
	if rd.Owner != OwnerSender || !strings.Contains(rd.Explanation, "more recipients than the server accepts") || strings.Contains(rd.Explanation, "connections") {
		t.Errorf("too-many-recipients-wording-01.eml: owner %s explanation %q: want too many recipients, the sender", rd.Owner, rd.Explanation)
	}
}

// TestSendmailRefusedConnectionIsNotABlockOfTheSender: Sendmail's
// "Deferred: Connection refused by HOST" is a refused TCP connection
// (sendmail/err.c), no SMTP answer: Sisimai's reason (blocked) is kept, but
// the words say the server refused the connection and its admin acts, on a
// delay if it persists and on the final report.
func TestSendmailRefusedConnectionIsNotABlockOfTheSender(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "delayed", Status: "4.4.1", Diagnostic: "<a@example.net>... Deferred: Connection refused by mx.example.net.", Recipient: "a@example.net", SenderDomain: "example.org"},
		{Action: "failed", Status: "4.4.7", Diagnostic: "<a@example.net>... Deferred: Connection refused by mx.example.net. Message could not be delivered for 5 days", Recipient: "a@example.net", SenderDomain: "example.org"},
	} {
		v := e.Classify(in)
		if v.Reason != ReasonBlocked || v.Owner != OwnerRecipientAdmin || !strings.Contains(v.Explanation, "mx.example.net refused") ||
			strings.Contains(v.Explanation, "blocks the sending server") || !strings.Contains(v.Fix, "mx.example.net") {
			t.Errorf("%s %q: reason %s owner %s\nexplanation %q\nfix %q\nwant blocked, the recipient's admin, the refused connection to mx.example.net and no block of the sender",
				in.Action, in.Diagnostic, v.Reason, v.Owner, v.Explanation, v.Fix)
		}
	}
}
