package dsn

import (
	"strings"
	"testing"
)

// A list's moderation notice names the list that holds the post as its
// recipient, with the reason it gives, never the notice's From (the list's
// owner or bounce robot): Mailman 2 postheld.txt, Mailman 3
// list:user:notice:hold, Sympa, Google Groups.
func TestModerationHoldNamesTheListAndTheReasonNotTheNoticeSender(t *testing.T) {
	tests := []struct {
		name, header, body, list, reason string
	}{
		{"mailman 3 quoted address, non-member",
			"From: dev-owner@lists.example.org\r\nSubject: Your message to Dev awaits moderator approval\r\nPrecedence: bulk\r\n",
			"Your mail to 'dev@lists.example.org' with the subject\r\n\r\n    [PATCH] x\r\n\r\nIs being held until the list moderator can review it for approval.\r\n\r\nThe message is being held because:\r\n\r\n    The message is not from a list member\r\n\r\nEither the message will get posted to the list, or you will receive\r\nnotification of the moderator's decision.\r\n",
			"dev@lists.example.org", "The message is not from a list member"},
		{"mailman 2 bare list name, the address from X-BeenThere",
			"From: astro-owner@lists.example.net\r\nSubject: Your message to astro awaits moderator approval\r\nX-BeenThere: astro@lists.example.net\r\n",
			"Your mail to 'astro' with the subject\r\n\r\n    Photos\r\n\r\nIs being held until the list moderator can review it for approval.\r\n\r\nThe reason it is being held:\r\n\r\n    Too many recipients to the message\r\n\r\nEither the message will get posted to the list, or you will receive\r\nnotification of the moderator's decision.\r\n",
			"astro@lists.example.net", "Too many recipients to the message"},
		{"sympa, no reason given",
			"From: sympa@listes.example.fr\r\nSubject: Message forwarded to the moderator\r\n",
			"Your message for list 'doc@listes.example.fr' has been forwarded to the moderator(s).\r\n",
			"doc@listes.example.fr", ""},
		{"a list not named: no recipient rather than the robot",
			"From: LISTSERV@LISTS.EXAMPLE.EDU\r\nSubject: Your posting to NURSING\r\nReturn-Path: <>\r\n",
			"Your message has been submitted to the moderator of the NURSING list for approval.\r\n",
			"", ""},
	}
	for _, tc := range tests {
		raw := "To: me@example.com\r\n" + tc.header + "Content-Type: text/plain\r\n\r\n" + tc.body
		r, err := Parse([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Kind != KindAutoreply || r.Format != FormatListHeld {
			t.Errorf("%s: %s (%s), want an autoreply (%s)", tc.name, r.Kind, r.Format, FormatListHeld)
			continue
		}
		if tc.list == "" {
			if len(r.Recipients) != 0 {
				t.Errorf("%s: recipients %+v, want none", tc.name, r.Recipients)
			}
			continue
		}
		if len(r.Recipients) != 1 || r.Recipients[0].Address != tc.list || r.Recipients[0].Diagnostic != tc.reason {
			t.Errorf("%s: recipients %+v, want %s with reason %q", tc.name, r.Recipients, tc.list, tc.reason)
		}
		for _, rc := range r.Recipients {
			if strings.Contains(rc.Address, "owner") || strings.Contains(strings.ToLower(rc.Address), "sympa@") {
				t.Errorf("%s: the notice's sender %s named as the recipient", tc.name, rc.Address)
			}
		}
	}
}
