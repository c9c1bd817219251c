package dsn

import (
	"strings"
	"testing"
)

// TestAutoRepliedNoticeThatStatesAFailureIsABounce: a notice under
// "Auto-Submitted: auto-replied" is a bounce when its text states a
// delivery failure (MDaemon's transcript of a session refused for a
// Spamhaus listing, Sympa's "Your message to list NAME has been
// rejected"), whatever the header says; the failed recipient is the one
// the notice names (the transcript's "*  To:", the list), never the
// notice's sender.
func TestAutoRepliedNoticeThatStatesAFailureIsABounce(t *testing.T) {
	tests := []struct{ file, recipient, format string }{
		{"autosubmitted-failure-04.eml", "invoices@hollowbrook-timber.example", "text"},
		{"autosubmitted-failure-05.eml", "astro-seminar@lists.uni-weststadt.example", FormatListRejected},
	}
	for _, tc := range tests {
		r := parseBounceFixture(t, tc.file)
		if r.Kind != KindBounce || r.Format != tc.format {
			t.Errorf("%s: kind %q format %q, want a bounce of format %q", tc.file, r.Kind, r.Format, tc.format)
			continue
		}
		if len(r.Recipients) != 1 || r.Recipients[0].Address != tc.recipient {
			t.Errorf("%s: recipients %+v, want only %s", tc.file, r.Recipients, tc.recipient)
		}
	}
}

// TestAutoRepliedVacationThatSaysReceivedStaysAnAutoReply: the other side
// of the rule: an out-of-office reply under the same header that says the
// message "has been received and will be delivered", with a street number
// and an extension that read like reply codes, states no failure.
func TestAutoRepliedVacationThatSaysReceivedStaysAnAutoReply(t *testing.T) {
	r := parseBounceFixture(t, "nonbounce-autoreply-received-01.eml")
	if r.Kind != KindAutoreply {
		t.Fatalf("kind %q format %q, want an autoreply", r.Kind, r.Format)
	}
	if len(r.Recipients) != 1 || r.Recipients[0].Address != "a.moss@harbourside-clinic.example" {
		t.Errorf("recipients %+v, want the person who replied", r.Recipients)
	}
}

// TestFailureNoticeNeedsAStatedFailure: failureNotice finds a failure in
// refusal words and in a quoted permanent reply, and none in a vacation
// reply's words, numbers that are no reply, or a temporary reply.
func TestFailureNoticeNeedsAStatedFailure(t *testing.T) {
	for text, want := range map[string]bool{
		"Client host [192.0.2.7] blocked using zen.spamhaus.org":            true,
		"Your message to list astro has been rejected.":                     true,
		"You are not allowed to send to this address.":                      true,
		"We could not find that mailbox: user not found.":                   true,
		"the server said: 550 5.1.1 no such mailbox here":                   true,
		"Mon 2026-04-13 10:00:00.001: <-- 554 Service unavailable":          true,
		"The attached message had PERMANENT fatal delivery errors!":         true,
		"Thank you for your e-mail. Your message has been received.":        false,
		"I am out of the office. Your mail will be delivered to my deputy.": false,
		"Call 0131 496 0550, ext. 550.\n550 Harbour Road, Leith":            false,
		"the server said: 451 4.7.1 greylisted, try again later":            false,
		"550": false,
		"I will reply to your message when I am back; nothing needs to be resent.": false,
	} {
		if got := failureNotice([]byte(strings.ToLower(text))); got != want {
			t.Errorf("failureNotice(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestListNamedBeforeItsNameIsNotCalledList: "Your message to list NAME"
// names the list NAME; the word "list" is not a list's name.
func TestListNamedBeforeItsNameIsNotCalledList(t *testing.T) {
	msg := "From: SYMPA <sympa@lists.example.org>\r\nTo: ann@example.com\r\nSubject: Message distribution: Forbidden\r\n" +
		"Auto-Submitted: auto-replied\r\nMessage-ID: <s1@lists.example.org>\r\n\r\n" +
		"Your message to list birders has been rejected.\r\n\r\nYou are not allowed to send to this list.\r\n"
	r, _ := Parse([]byte(msg))
	if r.Kind != KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != "birders@lists.example.org" {
		t.Errorf("kind %q recipients %+v, want a bounce of birders@lists.example.org", r.Kind, r.Recipients)
	}
}
