package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
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
		// The opening depends on what the notice says the list did
		// (TestListBounceNoticeNamesTheListAndWhatItDid).
		opening, _, _ := strings.Cut(rd.Explanation, ": ")
		if !strings.HasPrefix(opening, "This is ") || !strings.Contains(opening, "mailing list") ||
			!strings.HasSuffix(opening, "not a bounce of a message you sent") || !strings.Contains(rd.Explanation, c.recipient) {
			t.Errorf("%s: explanation %q: want the list's notice, then the member's bounce", c.file, rd.Explanation)
		}
		if !strings.Contains(rd.Fix, "remove the member") || strings.Contains(rd.Fix, "write a new message") {
			t.Errorf("%s: fix %q: want the list owner's fix, not the sender's", c.file, rd.Fix)
		}
	}
}

// TestUncaughtBounceNoticeIsToldAsTheListsNoticeToItsOwners: Mailman's
// notice of a bounce it could not read keeps the bounce's reading, but its
// owner is the list's owner, who checks the bounce by hand: the
// explanation says Mailman could not recognise it, and the sender is never
// told to send again. With no bounce read, the notice's words alone.
func TestUncaughtBounceNoticeIsToldAsTheListsNoticeToItsOwners(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, recipient string }{
		{"mailman-uncaught-bounce-01.eml", "heron.watch@example.org"},
		{"mailman-uncaught-bounce-02.eml", "t.wren@marshwood-college.example"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Recipient.Address != c.recipient || rd.Reason == ReasonUndefined || rd.Reason == ReasonVacation {
			t.Errorf("%s: recipient %q reason %s, want %s and the bounce's own reason", c.file, rd.Recipient.Address, rd.Reason, c.recipient)
		}
		if rd.Owner != OwnerGroupOwner {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerGroupOwner)
		}
		if !strings.HasPrefix(rd.Explanation, "This is a mailing list's notice to its owners") || !strings.Contains(rd.Explanation, "could not recognise") || !strings.Contains(rd.Explanation, c.recipient) {
			t.Errorf("%s: explanation %q: want the list's notice of an unread bounce, then the bounce", c.file, rd.Explanation)
		}
		if !strings.Contains(rd.Fix, "by hand") || strings.Contains(rd.Fix, "write a new message") {
			t.Errorf("%s: fix %q: want the list owner's check by hand", c.file, rd.Fix)
		}
	}
	rep := &dsn.Report{Kind: dsn.KindNone, Format: dsn.FormatListUncaughtBounce}
	rds := e.Explain(rep)
	if len(rds) != 1 || rds[0].Owner != OwnerGroupOwner || !strings.Contains(rds[0].Summary, "could not read") {
		t.Errorf("no bounce read: %+v, want the list owner's notice", rds)
	}
}

// TestListBounceNoticeNamesTheListAndWhatItDid: when the notice says what
// the list did (Mailman 2.1's "Action: Subscription disabled."), the
// opening says it, with the list's address, instead of the three things a
// list may do.
func TestListBounceNoticeNamesTheListAndWhatItDid(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "mailman-bounce-action-01.eml")
	if !strings.HasPrefix(rd.Explanation, "This is the notice of the mailing list chess@lists.example.org,") ||
		!strings.Contains(rd.Explanation, "stopped delivering to that member") || strings.Contains(rd.Explanation, "or removed the member") ||
		rd.Owner != OwnerGroupOwner {
		t.Errorf("explanation %q owner %s: want the list chess@lists.example.org, its disabling of the member, the list's owner", rd.Explanation, rd.Owner)
	}
}
