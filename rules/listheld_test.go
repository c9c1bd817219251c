package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

func heldReport(list, reason string) *dsn.Report {
	r := &dsn.Report{Kind: dsn.KindAutoreply, Format: dsn.FormatListHeld}
	if list != "" {
		r.Recipients = []dsn.Recipient{{Address: list, Diagnostic: reason}}
	}
	return r
}

func TestListHeldIsAPostWaitingForTheModeratorNotAVacationReply(t *testing.T) {
	e := builtin(t)
	for _, r := range []*dsn.Report{heldReport("dev@lists.example.org", "Message has implicit destination"), heldReport("", "")} {
		rds := e.Explain(r)
		if len(rds) != 1 {
			t.Fatalf("%d readings, want 1", len(rds))
		}
		v := rds[0]
		if v.Reason == ReasonVacation || v.Reason != ReasonOnHold {
			t.Errorf("reason %s, want onhold (not vacation)", v.Reason)
		}
		if v.Owner != OwnerGroupOwner {
			t.Errorf("owner %s, want group-owner (the list's moderator decides)", v.Owner)
		}
		if strings.Contains(v.Explanation, "out-of-office") || !strings.Contains(v.Explanation, "moderator") {
			t.Errorf("explanation %q, want the moderator and no out-of-office", v.Explanation)
		}
		if !strings.Contains(v.Fix, "Do not send it again") {
			t.Errorf("fix %q, want: do not resend", v.Fix)
		}
	}
}

func TestListHeldNamesTheListAndQuotesItsReasonWhole(t *testing.T) {
	v := builtin(t).Explain(heldReport("astro@lists.example.net", "Message body is too big: 1563211 bytes with a limit of 400 KB"))[0]
	if !strings.Contains(v.Explanation, "mailing list astro@lists.example.net") {
		t.Errorf("explanation %q, want the list named", v.Explanation)
	}
	// Its numbers are no reply codes: "400 KB" stays.
	if !strings.Contains(v.Explanation, `"Message body is too big: 1563211 bytes with a limit of 400 KB"`) {
		t.Errorf("explanation %q, want the reason quoted whole", v.Explanation)
	}
	if strings.Contains(v.Fix, "subscribe") {
		t.Errorf("fix %q: a size hold is no membership problem", v.Fix)
	}
}

func TestListHeldForANonMemberSaysToSubscribe(t *testing.T) {
	e := builtin(t)
	for _, reason := range []string{"The message is not from a list member", "Post by non-member to a members-only list"} {
		v := e.Explain(heldReport("dev@lists.example.org", reason))[0]
		if !strings.Contains(v.Fix, "subscribe to the list") || !strings.Contains(v.Fix, "do not send the message again") {
			t.Errorf("%q: fix %q, want subscribe and do not resend", reason, v.Fix)
		}
	}
}

// Sympa's moderation notice in French, read from its message, is a list
// hold, not an out-of-office reply: the list (named bare, at the robot's
// domain) is the recipient, never the robot sympa@, and the explanation
// says the message waits for the moderator and has not reached the list.
func TestFrenchSympaHoldIsReadAsHeldForTheListNotAsVacation(t *testing.T) {
	e := builtin(t)
	b, err := os.ReadFile("../internal/testdata/bounces/eml/list-moderation-held-06.eml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := dsn.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	got := e.Explain(r)
	if len(got) != 1 {
		t.Fatalf("%d readings, want 1", len(got))
	}
	v := got[0]
	if v.Reason != ReasonOnHold || v.Owner != OwnerGroupOwner {
		t.Errorf("reason %s owner %s, want %s and %s", v.Reason, v.Owner, ReasonOnHold, OwnerGroupOwner)
	}
	if !strings.Contains(v.Explanation, "seminaires@listes.labo.example") || !strings.Contains(v.Explanation, "moderator") ||
		!strings.Contains(v.Explanation, "not reached the list") || strings.Contains(v.Explanation, "sympa@") {
		t.Errorf("explanation %q: want the list, held for its moderator, not yet on the list, and no robot", v.Explanation)
	}
}

// A closed list refuses the address, not the person: someone subscribed
// under another address (a private and a work address) is told to send
// from that one before joining again or asking the owner.
func TestClosedListRefusalPointsToTheSubscribedAddress(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.7.1", Diagnostic: "550 5.7.1 Post by non-member: you are not a member of this list"})
	if v.Rule != "list-nonmember" || v.Owner != OwnerGroupOwner {
		t.Fatalf("rule %q owner %q, want list-nonmember, group-owner", v.Rule, v.Owner)
	}
	if !strings.Contains(v.Fix, "from the address you are subscribed to the list with") || !strings.Contains(v.Fix, "another address") {
		t.Errorf("fix %q: want the advice to send from the subscribed address", v.Fix)
	}
}
