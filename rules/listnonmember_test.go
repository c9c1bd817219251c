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

// A list's refusal of a post from a non-member is read as such in every
// shape the list managers send it: Google Groups' RFC 3464 report whose
// record holds a bare 5.0.0 (the notice alone says why), Sympa 6.2's
// report whose X-Sympa diagnostic is only the registry's text of 5.7.1 (the
// notice gives the scenario's reason, in French or English), Sympa's text
// notices, and mlmmj's deny-post notice from LIST+owner@. The list is the
// recipient and is named in the explanation, the group's owner is whom to
// ask, and the fix is to join or be let in, never a generic refusal.
func TestListRefusalsOfAPostAreReadAsTheListsRestrictionWhateverTheShape(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		file, list string
		reason     Reason
		fix        string
	}{
		{"list-nonmember-09.eml", "chess-club@googlegroups.com", ReasonRejected, "ask the group's owner"},
		{"list-nonmember-10.eml", "parents-board@school.example", ReasonFiltered, "join the list or group"},
		{"list-nonmember-11.eml", "conseil@listes.mairie.example", ReasonFiltered, "from the address you are subscribed to the list with"},
		{"list-nonmember-12.eml", "seminar@lists.physics.example", ReasonFiltered, "from the address you are subscribed to the list with"},
		{"list-nonmember-13.eml", "randonnee@listes.club.example", ReasonFiltered, "from the address you are subscribed to the list with"},
		{"list-nonmember-14.eml", "builders@lists.robotics.example", ReasonFiltered, "from the address you are subscribed to the list with"},
		{"list-nonmember-15.eml", "band@lists.brass.example", ReasonFiltered, "from the address you are subscribed to the list with"},
	}
	for _, tc := range tests {
		r := parseFixture(t, tc.file)
		if r.Kind != dsn.KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != tc.list {
			t.Errorf("%s: %s with recipients %+v, want a bounce of %s", tc.file, r.Kind, r.Recipients, tc.list)
			continue
		}
		v := explainFixture(t, e, tc.file)
		if v.Reason != tc.reason {
			t.Errorf("%s: reason %s (rule %s), want %s", tc.file, v.Reason, v.Rule, tc.reason)
		}
		if v.Owner != OwnerGroupOwner {
			t.Errorf("%s: owner %s, want %s", tc.file, v.Owner, OwnerGroupOwner)
		}
		if !strings.Contains(v.Explanation, tc.list) {
			t.Errorf("%s: explanation %q does not name the list %s", tc.file, v.Explanation, tc.list)
		}
		if !strings.Contains(v.Explanation, "accepts posts only from") && !strings.Contains(v.Explanation, "does not accept messages from you") {
			t.Errorf("%s: explanation %q, want the list's posting restriction", tc.file, v.Explanation)
		}
		if !strings.Contains(v.Fix, tc.fix) {
			t.Errorf("%s: fix %q, want %q", tc.file, v.Fix, tc.fix)
		}
	}
}

// Mailman's notice that a non-member's post is held for the moderator
// (Mailman 2's postheld.txt, Mailman 3's list:user:notice:hold) is no
// bounce of the list: an onhold auto-reply that tells not to resend and
// to join the list to post without moderation.
func TestMailmanHoldOfANonMembersPostIsNotABounce(t *testing.T) {
	e := builtin(t)
	for _, tc := range []struct{ file, list string }{
		{"list-moderation-held-08.eml", "garden@lists.allotment.example"},
		{"list-moderation-held-09.eml", "wiki@lists.docs.example"},
	} {
		r := parseFixture(t, tc.file)
		if r.Kind != dsn.KindAutoreply || r.Format != dsn.FormatListHeld {
			t.Errorf("%s: %s (%s), want a list-held auto-reply", tc.file, r.Kind, r.Format)
			continue
		}
		if len(r.Recipients) != 1 || r.Recipients[0].Address != tc.list {
			t.Errorf("%s: recipients %+v, want the list %s", tc.file, r.Recipients, tc.list)
			continue
		}
		v := explainFixture(t, e, tc.file)
		if v.Reason != ReasonOnHold || v.HardBounce || !strings.Contains(v.Explanation, tc.list) ||
			!strings.Contains(v.Fix, "do not send the message again") || !strings.Contains(v.Fix, "subscribe to the list") {
			t.Errorf("%s: reason %s hard %v explanation %q fix %q, want onhold naming the list, not to resend and to subscribe",
				tc.file, v.Reason, v.HardBounce, v.Explanation, v.Fix)
		}
	}
}
