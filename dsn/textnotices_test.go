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
