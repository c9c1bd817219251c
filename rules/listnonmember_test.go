package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// A list that refuses a post from a non-member (Mailman, Sympa, LISTSERV,
// ezmlm, fml, a list server's SMTP reply) is read as such whatever the
// software: the list is the recipient, the likely cause is a post from
// another address than the subscribed one, and the fix names the list
// owner's address when the notice gives one, never the sender's own.
func TestListRefusalOfANonMemberTellsToPostFromTheSubscribedAddressAndNamesTheOwner(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		file, list, owner string
	}{
		{"list-nonmember-01.eml", "ASTRO-L@LISTSERV.UNIV.EXAMPLE", "ASTRO-L-request@LISTSERV.UNIV.EXAMPLE"},
		{"list-nonmember-02.eml", "announce@lists.hackerspace.example", "announce-owner@lists.hackerspace.example"},
		{"list-nonmember-03.eml", "benevoles@listes.asso.example", "benevoles-request@listes.asso.example"},
		{"list-nonmember-04.eml", "birders@lists.nature.example", "birders-owner@lists.nature.example"},
		{"list-nonmember-05.eml", "tech@ml.studio.example.jp", "tech-admin@ml.studio.example.jp"},
		{"list-nonmember-06.eml", "kaiin@ml.kenkyu.example.jp", "kaiin-admin@ml.kenkyu.example.jp"},
		{"list-rejected-01.eml", "rowing@lists.riverside.example", "rowing-owner@lists.riverside.example"},
		{"list-rejected-03.eml", "dev@lists.forge.example", ""},
	}
	for _, tc := range tests {
		r := parseFixture(t, tc.file)
		if r.Kind != dsn.KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != tc.list {
			t.Errorf("%s: %s with recipients %+v, want a bounce of %s", tc.file, r.Kind, r.Recipients, tc.list)
			continue
		}
		v := e.Explain(r)[0]
		if v.Owner != OwnerGroupOwner {
			t.Errorf("%s: owner %s, want %s", tc.file, v.Owner, OwnerGroupOwner)
		}
		if !strings.Contains(v.Explanation, "accepts posts only from its members") {
			t.Errorf("%s: explanation %q, want the members-only list", tc.file, v.Explanation)
		}
		if !strings.Contains(v.Fix, "from the address you are subscribed to the list with") {
			t.Errorf("%s: fix %q, want to send from the subscribed address", tc.file, v.Fix)
		}
		if tc.owner != "" && !strings.Contains(v.Fix, "list owner ("+tc.owner+")") {
			t.Errorf("%s: fix %q, want the owner's address %s", tc.file, v.Fix, tc.owner)
		}
		if tc.owner == "" && strings.Contains(v.Fix, "@") {
			t.Errorf("%s: fix %q names an address the notice does not give as the owner's", tc.file, v.Fix)
		}
		if from := r.Original.From; from != "" && strings.Contains(v.Fix, from) {
			t.Errorf("%s: fix %q names the sender %s as the owner", tc.file, v.Fix, from)
		}
	}
}

// A notice that the post waits for the moderator is no refusal, whatever
// list manager writes it: an auto-reply, onhold, telling not to resend.
func TestListModerationNoticeIsNotAFailure(t *testing.T) {
	e := builtin(t)
	b, err := os.ReadFile("../internal/testdata/bounces/eml/list-nonmember-08.eml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := dsn.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != dsn.KindAutoreply || r.Format != dsn.FormatListHeld {
		t.Fatalf("%s (%s), want a list-held auto-reply", r.Kind, r.Format)
	}
	if len(r.Recipients) != 0 {
		t.Errorf("recipients %+v: the notice names the list bare and never writes its address, want none", r.Recipients)
	}
	v := e.Explain(r)[0]
	if v.Reason != ReasonOnHold || !strings.Contains(v.Fix, "Do not send it again") {
		t.Errorf("reason %s fix %q, want onhold and not to resend", v.Reason, v.Fix)
	}
}
