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
