package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// TestForwardedFailureIsOwnedByTheRecipientsSide: when the recipient's side
// forwarded the address the sender wrote, the reading names both addresses,
// keeps the failed one as the recipient, gives the failure to the
// recipient's email admin and tells the sender to warn the recipient, not
// to stop writing to the address.
func TestForwardedFailureIsOwnedByTheRecipientsSide(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, address, final, orig string }{
		{"forwarded-recipient-01.eml", "m.lindqvist@mailhost.example.net", "m.lindqvist@mailhost.example.net", "secretary@harbour-club.example"},
		{"forwarded-recipient-02.eml", "r.tanaka@mailbox.example.org", "r.tanaka@mailbox.example.org", "events@choir-society.example"},
		{"forwarded-recipient-03.eml", "editor@fjord-press.example", "k.ueda@home-isp.example.net", "editor@fjord-press.example"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Recipient.Address != c.address || rd.ForwardedFrom != c.orig || rd.ForwardedTo != c.final {
			t.Errorf("%s: recipient %q forwarded from %q to %q, want %q from %q to %q", c.file, rd.Recipient.Address, rd.ForwardedFrom, rd.ForwardedTo, c.address, c.orig, c.final)
		}
		if rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerRecipientAdmin)
		}
		if !strings.Contains(rd.Explanation, "Your message to "+c.orig+" was forwarded") || !strings.Contains(rd.Explanation, c.final) {
			t.Errorf("%s: the explanation does not say %s was forwarded to %s: %s", c.file, c.orig, c.final, rd.Explanation)
		}
		if !strings.Contains(rd.Fix, "forwarding from "+c.orig+" to "+c.final+" fails") || strings.Contains(rd.Fix, "stop writing") {
			t.Errorf("%s: the fix does not tell the sender to warn the recipient of the failing forward: %s", c.file, rd.Fix)
		}
	}
}

// TestForwardedMessageProblemKeepsTheSendersFix: a forward target that
// refuses the message for its size still asks the sender to make it
// smaller; the explanation says where it was refused.
func TestForwardedMessageProblemKeepsTheSendersFix(t *testing.T) {
	e := builtin(t)
	r := &dsn.Report{Kind: dsn.KindBounce, ReportingMTA: "mx.example.org", Recipients: []dsn.Recipient{{
		Address: "bo@example.net", OriginalRecipient: "info@example.org", Action: "failed", Status: "5.3.4",
		RemoteMTA: "mx.example.net", Diagnostic: "552 5.3.4 Message size exceeds fixed maximum message size",
	}}}
	rd := e.Explain(r)[0]
	if rd.Reason != ReasonMesgTooBig || rd.Owner != OwnerSender {
		t.Errorf("reason %s owner %s, want %s %s", rd.Reason, rd.Owner, ReasonMesgTooBig, OwnerSender)
	}
	if !strings.Contains(rd.Explanation, "info@example.org was forwarded") || strings.Contains(rd.Fix, "forwarding") {
		t.Errorf("explanation %q / fix %q: want the forward said, and the size fix kept", rd.Explanation, rd.Fix)
	}
}

// TestNoForwardSaysNothingOfForwarding: an Original-Recipient that is the
// same address changes nothing.
func TestNoForwardSaysNothingOfForwarding(t *testing.T) {
	e := builtin(t)
	r := &dsn.Report{Kind: dsn.KindBounce, ReportingMTA: "mx.example.net", Recipients: []dsn.Recipient{{
		Address: "Bo@example.net", OriginalRecipient: "bo@example.net", Action: "failed", Status: "5.1.1",
		RemoteMTA: "mx.example.net", Diagnostic: "550 5.1.1 user unknown",
	}}}
	rd := e.Explain(r)[0]
	if rd.ForwardedFrom != "" || strings.Contains(rd.Explanation, "forwarded") || rd.Owner != OwnerSender {
		t.Errorf("forwarded %q owner %s explanation %q: want no forward and the sender's fix", rd.ForwardedFrom, rd.Owner, rd.Explanation)
	}
}

// TestRecipientInPersonOwnsAFullMailboxAndTheirOwnBlockList: the fixes
// say only the recipient can act there, and the owner says so too.
func TestRecipientInPersonOwnsAFullMailboxAndTheirOwnBlockList(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Status: "5.2.2", Diagnostic: "552 5.2.2 <bo@example.net>: Mailbox full"},
		{Action: "failed", Status: "5.0.0", RemoteMTA: "eu-smtp-inbound-1.mimecast.com",
			Diagnostic: "550 Envelope blocked - User Entry - https://community.mimecast.com/docs/DOC-1369#550"},
	} {
		if v := e.Classify(in); v.Owner != OwnerRecipient {
			t.Errorf("%q: owner %s (rule %s), want %s", in.Diagnostic, v.Owner, v.Rule, OwnerRecipient)
		}
	}
}

// explainFixture reads the one recipient record of a fixture of
// internal/testdata/bounces.
func explainFixture(t *testing.T, e *Engine, file string) Reading {
	t.Helper()
	rds := e.Explain(parseFixture(t, file))
	if len(rds) != 1 {
		t.Fatalf("%s: %d readings, want 1", file, len(rds))
	}
	return rds[0]
}

// TestForwardTargetsSpamOrAuthRefusalIsTheForwardersProblem: a forward
// target that refuses the forwarded copy as spam or for DMARC judges the
// forwarding server: the owner is the recipient's admin, the explanation
// says the forwarded copy was refused and why forwarding fails so, quoting
// the target, and the fix asks to warn the recipient, not to rewrite.
func TestForwardTargetsSpamOrAuthRefusalIsTheForwardersProblem(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, quote string }{
		{"forwarded-refused-spam-01.eml", "likely unsolicited mail"},
		{"forwarded-refused-dmarc-01.eml", "DMARC policy of opening-books.example is reject"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.ForwardedFrom == "" {
			t.Fatalf("%s: no forward read", c.file)
		}
		if rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerRecipientAdmin)
		}
		for _, w := range []string{"refused the forwarded copy", c.quote, "Forwarding commonly fails this way", "SPF"} {
			if !strings.Contains(rd.Explanation, w) {
				t.Errorf("%s: explanation lacks %q: %s", c.file, w, rd.Explanation)
			}
		}
		if !strings.Contains(rd.Fix, "Do not rewrite your message") || !strings.Contains(rd.Fix, "forwarding from "+rd.ForwardedFrom+" to "+rd.ForwardedTo+" fails") || !strings.Contains(rd.Fix, "SRS") {
			t.Errorf("%s: the fix does not ask to warn the recipient of the failing forward: %s", c.file, rd.Fix)
		}
		if strings.Contains(rd.Fix, "plainer") || strings.Contains(rd.Explanation, "your sending server") {
			t.Errorf("%s: the sender's own fix is kept: %s / %s", c.file, rd.Explanation, rd.Fix)
		}
	}
}

// TestForwardTargetsRefusalAtMailFromIsTheForwardersProblem: a refusal
// before the target saw the message (at MAIL FROM), and a block of the
// sending IP, are judgements of the forwarding server whatever the reason
// read; the IP named is said to be the forwarding server's.
func TestForwardTargetsRefusalAtMailFromIsTheForwardersProblem(t *testing.T) {
	e := builtin(t)
	for _, rc := range []dsn.Recipient{
		{Address: "bo@example.net", OriginalRecipient: "info@example.org", Action: "failed", Status: "5.7.1", Command: "MAIL",
			RemoteMTA: "mx.example.net", Diagnostic: "550 5.7.1 Sender address rejected: access denied"},
		{Address: "bo@example.net", OriginalRecipient: "info@example.org", Action: "failed", Status: "5.7.1", Command: "RCPT",
			RemoteMTA: "mx.example.net", Diagnostic: "554 5.7.1 Service unavailable; Client host [198.51.100.12] blocked using zen.spamhaus.org"},
	} {
		r := &dsn.Report{Kind: dsn.KindBounce, ReportingMTA: "mx.example.org", Recipients: []dsn.Recipient{rc}}
		rd := e.Explain(r)[0]
		if rd.Owner != OwnerRecipientAdmin || !strings.Contains(rd.Explanation, "refused the forwarded copy") || !strings.Contains(rd.Fix, "Do not rewrite") {
			t.Errorf("%q: reason %s owner %s explanation %q fix %q: want the forwarder's problem", rc.Diagnostic, rd.Reason, rd.Owner, rd.Explanation, rd.Fix)
		}
		if ip := rd.Facts.Get(FactIP); strings.Contains(rc.Diagnostic, "198.51.100.12") && (ip != "198.51.100.12" || !strings.Contains(rd.Explanation, "own address ("+ip+")")) {
			t.Errorf("%q: the IP %s is not said to be the forwarding server's: %s", rc.Diagnostic, ip, rd.Explanation)
		}
	}
}

// TestForwardTargetsVirusOrAttachmentRefusalStaysTheSenders: refusals of
// the message itself (malware, a refused attachment type) keep the
// sender's fix: a forward does not change them.
func TestForwardTargetsVirusOrAttachmentRefusalStaysTheSenders(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"554 5.7.1 The message was rejected because it contains prohibited virus or spam content",
		"552 5.7.0 This message was blocked because its content presents a potential security issue. Please visit https://support.google.com/mail/?p=BlockedMessage to review our message content and attachment content guidelines.",
	} {
		r := &dsn.Report{Kind: dsn.KindBounce, ReportingMTA: "mx.example.org", Recipients: []dsn.Recipient{{
			Address: "bo@example.net", OriginalRecipient: "info@example.org", Action: "failed", Status: "5.7.0", Command: "DATA",
			RemoteMTA: "mx.example.net", Diagnostic: diag}}}
		rd := e.Explain(r)[0]
		if !messageRefusal(&rd.Classification) {
			t.Errorf("%q: reason %s (facts %v), want a refusal of the message itself", diag, rd.Reason, rd.Facts)
			continue
		}
		if strings.Contains(rd.Explanation, "refused the forwarded copy") || strings.Contains(rd.Fix, "forwarding from") {
			t.Errorf("%q: reason %s read as the forwarder's problem: %s / %s", diag, rd.Reason, rd.Explanation, rd.Fix)
		}
	}
}
