package dsn

import "testing"

// sampleBounce is a bounce that a list's probe attaches as its sample.
const sampleBounce = "--B\r\nContent-Type: message/rfc822\r\n\r\n" +
	"Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example.com (Mail Delivery System)\r\n" +
	"To: quilters-bounces+j.walker=example.com@lists.example.net\r\nSubject: Undelivered Mail Returned to Sender\r\n\r\n" +
	"<j.walker@example.com>: host mail.example.com[192.0.2.55] said: 550 5.1.1\r\n    User unknown (in reply to RCPT TO command)\r\n" +
	"--B--\r\n"

// A mailing list's bounce probe is sent to the member; the sample bounce it
// carries must not make it a bounce of its own (Mailman 2.1 and 3 write the
// same subject and opening).
func TestListProbeWithASampleBounceIsNoBounce(t *testing.T) {
	for _, from := range []string{
		"quilters-bounces+probe+9c2e4f1a6b8d0c3e5f7a@lists.example.net", // Mailman 2.1
		"quilters-bounces@lists.example.net",                            // Mailman 3
	} {
		raw := "From: " + from + "\r\nTo: j.walker@example.com\r\n" +
			"Subject: quilters mailing list probe message\r\nPrecedence: bulk\r\nX-List-Administrivia: yes\r\n" +
			"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n" +
			"--B\r\nContent-Type: text/plain\r\n\r\nThis is a probe message.  You can ignore this message.\r\n\r\n" +
			"The quilters mailing list has received a number of bounces from you,\r\nindicating that there may be a problem delivering messages to\r\n" +
			"j.walker@example.com.  A sample is attached below.\r\n" + sampleBounce
		rep, err := Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kind != KindNone || rep.Format != FormatListProbe || len(rep.Recipients) != 0 {
			t.Errorf("probe from %s: kind %s format %q, %d recipients; want not-bounce, %q, none",
				from, rep.Kind, rep.Format, len(rep.Recipients), FormatListProbe)
		}
	}
}

// A bounce of a probe repeats the probe's subject after its own bounce
// words: it stays a bounce of the member's address.
func TestBounceOfAListProbeStaysABounce(t *testing.T) {
	raw := "From: postmaster@mail.example.com\r\nTo: quilters-bounces+probe+9c2e@lists.example.net\r\n" +
		"Subject: Undeliverable: quilters mailing list probe message\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\n" +
		"Your message did not reach some or all of the intended recipients.\r\n\r\n" +
		"The following recipient(s) could not be reached:\r\n\r\n" +
		"      j.walker@example.com on 4/17/2024 4:00 AM\r\n" +
		"            The e-mail account does not exist at the organization this message was sent to.\r\n" +
		"            <mail.example.com #5.1.1>\r\n"
	rep, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != KindBounce || len(rep.Recipients) != 1 || rep.Recipients[0].Address != "j.walker@example.com" {
		t.Fatalf("kind %s, recipients %+v; want a bounce of j.walker@example.com", rep.Kind, rep.Recipients)
	}
}

// A spam filter's quarantine digest lists held messages, their senders and
// "blocked" or "not delivered": it reports no failure of a message its
// reader sent.
func TestQuarantineDigestIsNoBounce(t *testing.T) {
	for _, subject := range []string{
		"Spam Quarantine Summary - 3 new messages",         // Cisco Secure Email
		"End User Digest: 2 New Messages",                  // Proofpoint
		"You have messages in quarantine",                  // Microsoft 365
		"Quarantine Report for l.berg@example.com (2 new)", // SpamTitan
	} {
		raw := "From: Spam Quarantine <quarantine@gw.example.com>\r\nTo: l.berg@example.com\r\n" +
			"Subject: " + subject + "\r\nAuto-Submitted: auto-generated\r\nContent-Type: text/plain\r\n\r\n" +
			"The messages below were held in quarantine because they were classified\r\nas spam or were blocked by policy. They were not delivered to your inbox.\r\n\r\n" +
			"promo@deals.example.net       You have won a voucher\r\n" +
			"no-reply@invoices.example     Invoice overdue - action required\r\n"
		rep, err := Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kind != KindNone || rep.Format != FormatQuarantineDigest || len(rep.Recipients) != 0 {
			t.Errorf("%q: kind %s format %q, %d recipients; want not-bounce, %q, none",
				subject, rep.Kind, rep.Format, len(rep.Recipients), FormatQuarantineDigest)
		}
	}
}

// A ticket system's notice of a ticket about a bounce is auto-generated and
// has the bounce's subject and words, but fails nothing; a bounce of such a
// notice has the ticket headers only in the returned message.
func TestTicketSystemNoticeAboutABounceIsNoBounce(t *testing.T) {
	const body = "A new ticket has been created in queue \"Mail\".\r\n\r\n" +
		"every message I send to our supplier comes back with\r\n\"Mail delivery failed: returning message to sender\". The address is\r\norders@supplier.example.\r\n"
	for _, field := range []string{"RT-Ticket: helpdesk.example.com #44117", "X-RT-Loop-Prevention: helpdesk.example.com", "X-OTRS-Loop: yes", "X-JIRA-FingerPrint: 0a1b2c3d"} {
		raw := "From: IT Helpdesk <helpdesk@example.com>\r\nTo: it-team@example.com\r\n" +
			"Subject: [helpdesk.example.com #44117] Mail delivery failed: returning message to sender\r\n" +
			"Auto-Submitted: auto-generated\r\n" + field + "\r\n\r\n" + body
		rep, err := Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kind != KindNone || rep.Format != FormatTicketNotice || len(rep.Recipients) != 0 {
			t.Errorf("%s: kind %s format %q, %d recipients; want not-bounce, %q, none", field, rep.Kind, rep.Format, len(rep.Recipients), FormatTicketNotice)
		}
	}
	bounce := "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\r\nTo: helpdesk@example.com\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\n" +
		"<b.kraus@example.org>: host mx.example.org[192.0.2.9] said: 550 5.1.1 User unknown (in reply to RCPT TO command)\r\n" +
		"--B\r\nContent-Type: message/rfc822\r\n\r\nFrom: helpdesk@example.com\r\nTo: b.kraus@example.org\r\nRT-Ticket: helpdesk.example.com #44117\r\nSubject: [helpdesk.example.com #44117] Resolved\r\n\r\nDone.\r\n--B--\r\n"
	rep, err := Parse([]byte(bounce))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != KindBounce || len(rep.Recipients) != 1 || rep.Recipients[0].Address != "b.kraus@example.org" {
		t.Errorf("bounce of a ticket notice: kind %s, recipients %+v; want a bounce of b.kraus@example.org", rep.Kind, rep.Recipients)
	}
}

// A mailing list's notice about a member's bounces, to the list's owners or
// to the member, carries the bounce it is about (Mailman 2.1's "Bounce
// action notification", Mailman 3's disable, increment and warning
// notices): the report holds that bounce's record of the member, marked as
// the list's notice, with no original message of the reader's; Mailman 3's
// removal notice, with nothing attached, is no bounce.
func TestListBounceNoticeReadsTheMembersBounceAsTheListsNotice(t *testing.T) {
	for _, c := range []struct{ from, to, subject, text string }{
		{"choir-bounces@lists.example.net", "choir-owner@lists.example.net", "Bounce action notification",
			"This is a Mailman mailing list bounce action notice:\r\n\r\n    List:       Choir\r\n    Member:     j.walker@example.com\r\n" +
				"    Action:     Subscription disabled.\r\n    Reason:     Excessive or fatal bounces.\r\n\r\nThe triggering bounce notice is attached below.\r\n"},
		{"mailman@lists.example.net", "quilters-owner@lists.example.net", "Jo Walker <j.walker@example.com>'s subscription disabled on Quilters",
			"Jo Walker <j.walker@example.com>'s subscription has been disabled on quilters@lists.example.net due to their bounce score\r\n" +
				"exceeding the mailing list's bounce_score_threshold.\r\n\r\nThe triggering DSN if available is attached.\r\n"},
		{"mailman@lists.example.net", "quilters-owner@lists.example.net", "j.walker@example.com's bounce score incremented on Quilters",
			"j.walker@example.com's bounce score on quilters@lists.example.net has been incremented.\r\n\r\nThe triggering DSN if available is attached.\r\n"},
		{"quilters-bounces@lists.example.net", "j.walker@example.com", "Your subscription for Quilters mailing list has been disabled",
			"Your subscription has been disabled on the Quilters mailing list because it has\r\nreceived a number of bounces indicating that there may be a problem delivering\r\n" +
				"messages to j.walker@example.com. You may want to check with your mail administrator\r\nfor more help.\r\n"},
	} {
		raw := "From: " + c.from + "\r\nTo: " + c.to + "\r\nSubject: " + c.subject + "\r\nPrecedence: bulk\r\n" +
			"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n" +
			"--B\r\nContent-Type: text/plain\r\n\r\n" + c.text + "\r\n" + sampleBounce
		rep, err := Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Kind != KindBounce || rep.Format != FormatListBounceNotice || len(rep.Recipients) != 1 || rep.Recipients[0].Address != "j.walker@example.com" {
			t.Errorf("%q: kind %s format %q, recipients %+v; want a bounce of j.walker@example.com, %q",
				c.subject, rep.Kind, rep.Format, rep.Recipients, FormatListBounceNotice)
		}
		if o := rep.Original; o.MessageID != "" || o.From != "" || o.To != "" || o.Subject != "" {
			t.Errorf("%q: original %+v, want none: the list's post is not the reader's", c.subject, rep.Original)
		}
	}
	raw := "From: mailman@lists.example.net\r\nTo: quilters-owner@lists.example.net\r\n" +
		"Subject: Jo Walker <j.walker@example.com> unsubscribed from Quilters mailing list due to bounces\r\n\r\n" +
		"Jo Walker <j.walker@example.com> has been unsubscribed from quilters@lists.example.net due to excessive bounces.\r\n"
	if rep, _ := Parse([]byte(raw)); rep.Kind != KindNone || rep.Format != FormatListBounceNotice {
		t.Errorf("removal notice: kind %s format %q, want not-bounce, %q", rep.Kind, rep.Format, FormatListBounceNotice)
	}
}

// A bounce of a list's notice about bounces (the owner's address failed)
// repeats the notice's subject after its own bounce words: it stays a
// bounce.
func TestBounceOfAListBounceNoticeStaysABounce(t *testing.T) {
	raw := "From: MAILER-DAEMON@mx.example.net\r\nTo: mailman@lists.example.net\r\n" +
		"Subject: Undelivered Mail Returned to Sender: Bounce action notification\r\n\r\n" +
		"<choir-owner@lists.example.net>: host mx.example.net[192.0.2.9] said: 550 5.1.1\r\n    User unknown (in reply to RCPT TO command)\r\n"
	rep, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != KindBounce || rep.Format == FormatListBounceNotice {
		t.Errorf("kind %s format %q, want a bounce", rep.Kind, rep.Format)
	}
}

// TestUncaughtBounceNoticeIsTheListsNoticeToItsOwners: Mailman's
// "Uncaught bounce notification" (2.1 Bouncer.py, 3 list:admin:notice:
// unrecognized) to the list's owners keeps the records of the bounce it
// carries when they can be read, drops the list's post as original, and
// is a list notice without records when the attached message is no
// bounce at all (an auto-reply sent to the list's bounce address).
func TestUncaughtBounceNoticeIsTheListsNoticeToItsOwners(t *testing.T) {
	for _, c := range []struct{ file, recipient string }{
		{"mailman-uncaught-bounce-01.eml", "heron.watch@example.org"},
		{"mailman-uncaught-bounce-02.eml", "t.wren@marshwood-college.example"},
	} {
		rep := parseBounceFixture(t, c.file)
		if rep.Kind != KindBounce || rep.Format != FormatListUncaughtBounce || len(rep.Recipients) != 1 || rep.Recipients[0].Address != c.recipient {
			t.Errorf("%s: kind %s format %q recipients %+v, want a bounce of %s, %q", c.file, rep.Kind, rep.Format, rep.Recipients, c.recipient, FormatListUncaughtBounce)
		}
		if o := rep.Original; o.MessageID != "" || o.From != "" || o.Subject != "" {
			t.Errorf("%s: original %+v, want none: the list's post is not the reader's", c.file, o)
		}
	}
	raw := "From: listmaster@lists.example.net\r\nTo: quilters-owner@lists.example.net\r\nSubject: Uncaught bounce notification\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\nThe attached message was received as a bounce, but either the bounce format\r\n" +
		"was not recognized, or no member addresses could be extracted from it.\r\n\r\n" +
		"--B\r\nContent-Type: message/rfc822\r\n\r\nFrom: Jo Walker <j.walker@example.com>\r\nTo: quilters-bounces@lists.example.net\r\n" +
		"Subject: Automatic reply: Spring fair\r\nAuto-Submitted: auto-replied\r\n\r\nI am out of the office until Monday.\r\n--B--\r\n"
	if rep, _ := Parse([]byte(raw)); rep.Kind != KindNone || rep.Format != FormatListUncaughtBounce || len(rep.Recipients) != 0 {
		t.Errorf("auto-reply attached: kind %s format %q recipients %+v, want a list notice without records", rep.Kind, rep.Format, rep.Recipients)
	}
	bounce := "From: MAILER-DAEMON@mx.example.net\r\nTo: listmaster@lists.example.net\r\n" +
		"Subject: Undelivered Mail Returned to Sender: Uncaught bounce notification\r\n\r\n" +
		"<quilters-owner@lists.example.net>: host mx.example.net[192.0.2.9] said: 550 5.1.1\r\n    User unknown (in reply to RCPT TO command)\r\n"
	if rep, _ := Parse([]byte(bounce)); rep.Kind != KindBounce || rep.Format == FormatListUncaughtBounce {
		t.Errorf("bounce of the notice: kind %s format %q, want a bounce of its own", rep.Kind, rep.Format)
	}
}
