package rules

import (
	"strings"
	"testing"
)

// TestListBounceNoticeIsToldAsTheListsNotice: a mailing list's notice about
// a member's bounce (Mailman 2.1's bounce action notice, Mailman 3's
// disable notice) keeps the member's bounce reading (recipient, reason,
// hard bounce) but is told as the list's notice: the list's owners act on
// the member, and nobody is told to write a new message.
func TestListBounceNoticeIsToldAsTheListsNotice(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, recipient string }{
		{"mailman-bounce-action-01.eml", "r.fischer@example.net"},
		{"list-bounce-notice-01.eml", "t.berg@example.net"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Recipient.Address != c.recipient || rd.Reason != ReasonUserUnknown || !rd.HardBounce {
			t.Errorf("%s: recipient %q reason %s hard %v, want %s, %s, hard", c.file, rd.Recipient.Address, rd.Reason, rd.HardBounce, c.recipient, ReasonUserUnknown)
		}
		if rd.Owner != OwnerGroupOwner {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerGroupOwner)
		}
		if !strings.HasPrefix(rd.Explanation, "This is a mailing list's notice, not a bounce of a message you sent") || !strings.Contains(rd.Explanation, c.recipient) {
			t.Errorf("%s: explanation %q: want the list's notice, then the member's bounce", c.file, rd.Explanation)
		}
		if !strings.Contains(rd.Fix, "remove the member") || strings.Contains(rd.Fix, "write a new message") {
			t.Errorf("%s: fix %q: want the list owner's fix, not the sender's", c.file, rd.Fix)
		}
	}
}
