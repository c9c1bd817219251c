package dsn

import (
	"fmt"
	"testing"
)

// TestChallengeRecipientIsWhomTheMessageWasSentTo: a challenge names as
// its recipient the address its text says the held message was sent to;
// else its From, unless From is a service sending "via" it on someone's
// behalf, where no address is named rather than the service's.
func TestChallengeRecipientIsWhomTheMessageWasSentTo(t *testing.T) {
	const body = "\r\nHello,\r\n\r\n%s\r\n\r\nThis address uses a challenge-response filter: your message is held until you confirm that you are a person.\r\n"
	tests := []struct{ name, from, sentence, want string }{
		{"text names it", `"Ron Holt via SafeSender" <verify@safesender.example>`,
			"You recently sent an email to\r\n  ron@holt.example:", "ron@holt.example"},
		{"text names it in brackets", `"Filter" <notify@filter.example>`,
			"Your message to <ann@shop.example> is being held.", "ann@shop.example"},
		{"service via, text names none", `"Ron Holt via SafeSender" <verify@safesender.example>`,
			"We hold mail from unknown senders.", ""},
		{"the person's own address", `Marco Silva <marco@example.net>`,
			"We hold mail from unknown senders.", "marco@example.net"},
	}
	for _, tc := range tests {
		msg := "From: " + tc.from + "\r\nTo: pat@example.org\r\nSubject: Please verify your email\r\n" +
			"Auto-Submitted: auto-replied\r\nMessage-ID: <c1@filter.example>\r\n" + fmt.Sprintf(body, tc.sentence)
		r, _ := Parse([]byte(msg))
		if r == nil || r.Kind != KindAutoreply || r.Format != FormatChallengeResponse {
			t.Fatalf("%s: kind %v format %q, want a challenge-response autoreply", tc.name, r.Kind, r.Format)
		}
		got := ""
		if len(r.Recipients) > 0 {
			got = r.Recipients[0].Address
		}
		if got != tc.want {
			t.Errorf("%s: recipient %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestReceiptSaysWhatTheRecipientsSideDid: the disposition type of a
// message disposition notification (RFC 8098 section 3.2.6.2) is read,
// with its modifiers and in any case; anything else gives none.
func TestReceiptSaysWhatTheRecipientsSideDid(t *testing.T) {
	for v, want := range map[string]Disposition{
		"automatic-action/MDN-sent-automatically; deleted":         DispositionDeleted,
		"manual-action/MDN-sent-manually; displayed":               DispositionDisplayed,
		"automatic-action/MDN-sent-automatically; Dispatched":      DispositionDispatched,
		"automatic-action/MDN-sent-automatically; processed/error": DispositionProcessed,
		"automatic-action/MDN-sent-automatically; failed":          "",
		"displayed": "",
	} {
		if got := dispositionType(v); got != want {
			t.Errorf("dispositionType(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestSieveRejectIsABounceNotAReceipt: an MDN of disposition "deleted"
// that says the message "was automatically rejected" (RFC 5429's Sieve
// reject, Dovecot's delivery agent refusing a message) is a bounce of its
// Final-Recipient with the stated reason; an MDN of a message its reader
// deleted unread stays a receipt.
func TestSieveRejectIsABounceNotAReceipt(t *testing.T) {
	const mdn = "From: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.net>\r\n" +
		"To: <ann@example.org>\r\nSubject: Rejected: Quote\r\n%s" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=disposition-notification; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n\r\n" +
		"--b\r\nContent-Type: message/disposition-notification\r\n\r\n" +
		"Reporting-UA: mx.example.net; Dovecot Mail Delivery Agent\r\nFinal-Recipient: rfc822; bob@example.net\r\n" +
		"Original-Message-ID: <q1@example.org>\r\nDisposition: automatic-action/MDN-sent-automatically; deleted\r\n\r\n--b--\r\n"
	tests := []struct {
		name, header, text string
		kind               Kind
		diagnostic         string
	}{
		{"dovecot quota", "Auto-Submitted: auto-replied (rejected)\r\n",
			"Your message to <bob@example.net> was automatically rejected:\r\nQuota exceeded (mailbox for user is full)",
			KindBounce, "Quota exceeded (mailbox for user is full)"},
		{"sieve reject, reason on two lines", "",
			"Your message to <bob@example.net> was automatically rejected:\r\nI no longer accept mail\r\nfrom this address.\r\n\r\nRegards",
			KindBounce, "I no longer accept mail from this address."},
		{"deleted unread by its reader", "",
			"The message sent on 1 Dec 2026 to bob@example.net was deleted without being read.",
			KindReceipt, ""},
	}
	for _, tc := range tests {
		r, _ := Parse([]byte(fmt.Sprintf(mdn, tc.header, tc.text)))
		if r == nil || r.Kind != tc.kind || len(r.Recipients) != 1 || r.Recipients[0].Address != "bob@example.net" {
			t.Fatalf("%s: got %+v, want kind %v for bob@example.net", tc.name, r, tc.kind)
		}
		if rc := r.Recipients[0]; rc.Diagnostic != tc.diagnostic {
			t.Errorf("%s: diagnostic %q, want %q", tc.name, rc.Diagnostic, tc.diagnostic)
		}
		if tc.kind == KindBounce && (r.Format != FormatSieveReject || r.Recipients[0].Action != "failed") {
			t.Errorf("%s: format %q action %q, want %q failed", tc.name, r.Format, r.Recipients[0].Action, FormatSieveReject)
		}
	}
}
