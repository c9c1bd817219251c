package rules

import (
	"strings"
	"testing"
)

// TestModeratorsReasonIsFollowedNotArguedWith: a list moderator who
// refused a post and said why (Mailman 2's refuse.txt, Mailman 3's
// rejection notice) is quoted, and the sender is told to follow the
// reason, not to ask the list to allow their address; an address in the
// reason is not offered as the list owner's.
func TestModeratorsReasonIsFollowedNotArguedWith(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"has been rejected by the list moderator. The moderator gave the following reason for rejecting your request: \"Announcements only; write to events@club.example instead. Please do not re-send.\"",
		"Your message to the astro mailing-list was rejected for the following reasons: Off topic for this list, please use the members forum.",
	} {
		v := e.Classify(Input{Action: "failed", Diagnostic: diag, Recipient: "astro@lists.club.example"})
		if v.Rule != "list-moderator-reason" || v.Owner != OwnerSender {
			t.Errorf("%q: rule %s owner %s; want list-moderator-reason, the sender", diag, v.Rule, v.Owner)
		}
		if !strings.Contains(v.Explanation, "moderator") || !strings.Contains(v.Explanation, diag[len(diag)-30:len(diag)-2]) {
			t.Errorf("%q: explanation %q does not quote the reason", diag, v.Explanation)
		}
		if strings.Contains(v.Fix, "allow your address") || strings.Contains(v.Fix, "events@club.example") {
			t.Errorf("%q: fix %q", diag, v.Fix)
		}
	}
}
