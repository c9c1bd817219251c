package dsn

import "testing"

// rawMessage builds a message from header lines and a body.
func rawMessage(header, body string) []byte {
	return []byte(header + "\n" + body)
}

func TestReadReceiptsSentAsTextAreReceipts(t *testing.T) {
	for name, raw := range map[string][]byte{
		"lotus notes": rawMessage("From: Helga Stein <helga.stein@acme.example>\nTo: t.ward@example.com\nSubject: Return Receipt\n",
			"Your document:\tRevised delivery schedule\nwas received by:\tHelga Stein/Logistik/ACME\nat:\t08.07.2024 10:31:38\n"),
		"read on": rawMessage("From: Jonas Lind <jonas@studio.example>\nTo: o.petit@example.com\nSubject: Read: Logo drafts\n",
			"Your message\n\n  To: Jonas Lind\n  Subject: Logo drafts\n\nwas read on Monday, 8 July 2024 14:04.\n"),
	} {
		r := mustParse(t, raw)
		if r.Kind != KindReceipt || len(r.Recipients) != 1 {
			t.Errorf("%s: kind %q with %d recipients, want a receipt from its reader", name, r.Kind, len(r.Recipients))
		}
	}
}

func TestABounceOfAReadReceiptStaysABounce(t *testing.T) {
	r := mustParse(t, rawMessage("From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\nTo: jonas@studio.example\nSubject: Undelivered Mail Returned to Sender: Read: Logo drafts\n",
		"Your message could not be delivered to o.petit@example.net: user unknown.\n\nYour message was read on Monday.\n"))
	if r.Kind != KindBounce {
		t.Errorf("kind %q, want bounce", r.Kind)
	}
}

func TestListModerationHoldsAreAutoReplies(t *testing.T) {
	for name, raw := range map[string][]byte{
		"mailman": rawMessage("From: astro-owner@lists.observatory.example\nTo: b.quist@example.com\nSubject: Your message to astro awaits moderator approval\nPrecedence: bulk\n",
			"Your mail to 'astro' with the subject\n\n    Photos\n\nIs being held until the list moderator can review it for approval.\n"),
		"sympa": rawMessage("From: SYMPA <sympa@listes.univ.example>\nTo: c.marchand@example.com\nSubject: Message distribution: Forwarded to moderator\n",
			"Your message for list doctorants@listes.univ.example has been forwarded to the moderator(s).\n"),
		"listserv": rawMessage("From: LISTSERV@LISTS.HOSPITAL.EXAMPLE\nTo: n.adeyemi@example.com\nSubject: Your posting to NURSING-ED\n",
			"Your message dated Mon, 8 Jul 2024 with subject \"Lab\" has been submitted to the moderator of the NURSING-ED list for\napproval.\n"),
	} {
		if r := mustParse(t, raw); r.Kind != KindAutoreply {
			t.Errorf("%s: kind %q, want autoreply", name, r.Kind)
		}
	}
}

func TestAPersonWritingAboutApprovalIsNoListNotice(t *testing.T) {
	r := mustParse(t, rawMessage("From: Ana Ruiz <ana@example.org>\nTo: team@example.com\nSubject: Invoice 2231 pending approval\n",
		"Hi, the invoice is pending approval and held for approval by finance.\n"))
	if r.Kind != KindNone {
		t.Errorf("kind %q, want not-bounce", r.Kind)
	}
}

func TestAListRefusingAPostIsABounceOfTheListAddress(t *testing.T) {
	for name, tc := range map[string]struct {
		raw  []byte
		want string
	}{
		"mailman 2 non-member, auto-response subject": {rawMessage("From: walkers-owner@lists.fells.example\nTo: dana@home.example\nSubject: Auto-response for your message to the \"Walkers\" mailing list\nAuto-Submitted: auto-replied\nPrecedence: bulk\nList-Id: <walkers.lists.fells.example>\n",
			"You are not allowed to post to this mailing list, and your message has\nbeen automatically rejected.  If you think that your messages are\nbeing rejected in error, contact the mailing list owner at\nwalkers-owner@lists.fells.example.\n"), "walkers@lists.fells.example"},
		"mailman 3 names the list": {rawMessage("From: choir-bounces@groups.example\nTo: ewan@mail.example\nSubject: Your message to choir@groups.example was rejected\n",
			"Your message to choir@groups.example was rejected.\n\nPost by non-member to a members-only list\n"), "choir@groups.example"},
		"majordomo owner- prefix": {rawMessage("From: owner-chess@lists.example.org\nTo: fay@mail.example\nSubject: rejected\n",
			"Your message has been rejected by the list moderator.\n"), "chess@lists.example.org"},
	} {
		r := mustParse(t, tc.raw)
		if r.Kind != KindBounce || r.Format != FormatListRejected || len(r.Recipients) != 1 {
			t.Errorf("%s: kind %q format %q with %d recipients, want a list-rejected bounce", name, r.Kind, r.Format, len(r.Recipients))
			continue
		}
		if got := r.Recipients[0].Address; got != tc.want {
			t.Errorf("%s: recipient %q, want the list %q", name, got, tc.want)
		}
		if r.Recipients[0].Diagnostic == "" {
			t.Errorf("%s: no diagnostic, want the list's sentence", name)
		}
	}
}

func TestAFailureStatedInTheTextBeatsAnAutoReplyHeader(t *testing.T) {
	r := mustParse(t, rawMessage("From: postmaster@mx.example.org\nTo: gil@home.example\nSubject: Automatic reply: Invoice\nAuto-Submitted: auto-replied\n",
		"Your message could not be delivered to hal@example.org: user unknown.\n"))
	if r.Kind == KindAutoreply {
		t.Errorf("kind %q, want not an auto-reply: the text states a failure", r.Kind)
	}
}

func TestTheServerReplyLeavesOutTheReportingMTAsWords(t *testing.T) {
	for _, tc := range []struct{ d, code, want string }{
		{"host mx.example.net [192.0.2.4] SMTP error from remote mail server after RCPT TO:<a@example.net>: 550 5.1.1 no such user", "550", "550 5.1.1 no such user"},
		{"192.0.2.61 does not like recipient. Remote host said: 550 5.1.1 No such user Giving up on 192.0.2.61.", "550", "550 5.1.1 No such user"},
		{"le serveur smtp.example.fr[192.0.2.9] a répondu : 550 5.7.1 Service refusé", "550", "550 5.7.1 Service refusé"},
		{"Remote Server returned '552 5.2.2 mailbox full'", "552", "552 5.2.2 mailbox full"},
		{"Sorry, I couldn't find any host named example.invalid. (#5.1.2)", "", ""},
		{"554 5.7.1 blocked", "554", "554 5.7.1 blocked"},
		{"(reason: 550 Host unknown)", "550", "550 Host unknown"},
		{"(reason: 552 5.2.3 Message size exceeds fixed maximum message size (10485760))", "552", "552 5.2.3 Message size exceeds fixed maximum message size (10485760)"},
		{"552 5.6.0 Headers too large (3 max)", "552", "552 5.6.0 Headers too large (3 max)"},
	} {
		if got := replyFrom(tc.d, tc.code); got != tc.want {
			t.Errorf("replyFrom(%q, %q) = %q, want %q", tc.d, tc.code, got, tc.want)
		}
	}
}
