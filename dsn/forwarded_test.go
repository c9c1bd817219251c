package dsn

import (
	"testing"
)

func TestForwardNamesTheAddressWrittenAndTheOneThatFailed(t *testing.T) {
	for _, c := range []struct{ file, address, orig, final string }{
		{"forwarded-recipient-01.eml", "m.lindqvist@mailhost.example.net", "secretary@harbour-club.example", "m.lindqvist@mailhost.example.net"},
		{"forwarded-recipient-02.eml", "r.tanaka@mailbox.example.org", "events@choir-society.example", "r.tanaka@mailbox.example.org"},
		// Sendmail reports the alias written, with X-Actual-Recipient.
		{"forwarded-recipient-03.eml", "editor@fjord-press.example", "editor@fjord-press.example", "k.ueda@home-isp.example.net"},
		// The same local part at another organization is still a forward.
		{"forwarded-recipient-04.eml", "tom.barrow@fieldfare-mail.example", "tom.barrow@members.rowing-club.example", "tom.barrow@fieldfare-mail.example"},
	} {
		r := parseBounceFixture(t, c.file)
		if len(r.Recipients) != 1 {
			t.Fatalf("%s: %d recipients, want 1", c.file, len(r.Recipients))
		}
		rc := &r.Recipients[0]
		if rc.Address != c.address {
			t.Errorf("%s: Address %q, want %q", c.file, rc.Address, c.address)
		}
		if from, to := r.Forward(rc); from != c.orig || to != c.final {
			t.Errorf("%s: Forward %q to %q, want %q to %q", c.file, from, to, c.orig, c.final)
		}
	}
}

func TestForwardedFromIsEmptyWithoutAForwardOnTheRecipientsSide(t *testing.T) {
	for _, c := range []struct {
		name, final, orig, sender, reporting string
	}{
		{"no original", "a@example.net", "", "s@example.com", "mx.example.net"},
		{"the same address", "a@example.net", "a@example.net", "s@example.com", "mx.example.net"},
		{"case only", "Anna.Berg@Example.net", "anna.berg@example.net", "s@example.com", "mx.example.net"},
		{"a subaddress", "anna@example.net", "anna+news@example.net", "s@example.com", "mx.example.net"},
		{"routing to another domain of the same mailbox", "anna@example.mail.onmicrosoft.com", "anna@example.net", "s@example.com", "mx.example.net"},
		{"Google Workspace's routing domain", "anna@example.net.test-google-a.com", "anna@example.net", "s@example.com", "mx.example.net"},
		{"the same name under another top level", "anna@example.de", "anna@example.net", "s@example.com", "mx.example.net"},
		{"a host under the domain", "anna@mail.example.net", "anna@example.net", "s@example.com", "mx.example.net"},
		{"a local part alone", "anna@example.net", "anna", "s@example.com", "mx.example.net"},
		{"the sender's own alias", "bob@example.org", "sales@example.com", "s@example.com", "mail.example.com"},
	} {
		r := &Report{ReportingMTA: c.reporting, Original: Original{Sender: c.sender}}
		rc := &Recipient{Address: c.final, OriginalRecipient: c.orig}
		if got := r.ForwardedFrom(rc); got != "" {
			t.Errorf("%s: ForwardedFrom %q, want none", c.name, got)
		}
	}
	// The same local part at another organization is a forward: an alumni
	// or club address forwarded to the person's own mailbox keeps the name.
	alumni := &Report{ReportingMTA: "relay.alumni.uni-example.example", Original: Original{Sender: "s@example.com"}}
	if got := alumni.ForwardedFrom(&Recipient{Address: "lena.vogt@kellerhof.example", OriginalRecipient: "lena.vogt@alumni.uni-example.example"}); got != "lena.vogt@alumni.uni-example.example" {
		t.Errorf("same name at another organization: ForwardedFrom %q, want lena.vogt@alumni.uni-example.example", got)
	}
	// The same sender's domain, but the report comes from elsewhere: the
	// recipient's side (hosted mail of the same organization) forwarded.
	r := &Report{ReportingMTA: "mx.mailhost.example.net", Original: Original{Sender: "s@example.com"}}
	if got := r.ForwardedFrom(&Recipient{Address: "bob@example.org", OriginalRecipient: "sales@example.com"}); got != "sales@example.com" {
		t.Errorf("hosted forward: ForwardedFrom %q, want sales@example.com", got)
	}
}

func TestEncodedOriginalRecipientIsNoForward(t *testing.T) {
	b := []byte("From: MAILER-DAEMON@mx.example.net\r\nTo: s@example.com\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nThe mail system\r\n\r\n<a+2Bb@example.net>: host mx said: 550 5.1.1 no such user\r\n" +
		"--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.net\r\n\r\n" +
		"Final-Recipient: rfc822; a+b@example.net\r\nOriginal-Recipient: rfc822;A+2Bb@example.net\r\nAction: failed\r\nStatus: 5.1.1\r\n" +
		"--b--\r\n")
	r, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recipients) != 1 {
		t.Fatalf("%d recipients, want 1", len(r.Recipients))
	}
	if got := r.ForwardedFrom(&r.Recipients[0]); got != "" {
		t.Errorf("ForwardedFrom %q for an xtext-encoded Original-Recipient of the same address, want none", got)
	}
}
