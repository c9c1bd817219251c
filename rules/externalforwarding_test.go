package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// TestExternalForwardingBlockedIsTheRecipientsWhenTheirMailboxForwarded
// checks whose organisation Exchange Online's 5.7.520 is read to block:
// the recipient's, owned by the recipient's admin with nothing for the
// sender to do, when the report reaches the author of the returned message
// and the failed address is not one it was sent to; the addressee's own,
// as seed 000 reads it, when the report reaches the mailbox owner (someone
// else's message, or the owner's own forward to the target); unknown when
// the report does not show it.
func TestExternalForwardingBlockedIsTheRecipientsWhenTheirMailboxForwarded(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		file  string
		owner Owner
		words []string
	}{
		{"external-forwarding-blocked-01.eml", OwnerRecipientAdmin, []string{"Your message to j.doe@contoso.example reached the recipient's mailbox", "jdoe.private@freemail.example", "most likely still received", "Nothing to do on your side"}},
		{"external-forwarding-blocked-02.eml", OwnerRecipientAdmin, []string{"reached the recipient's mailbox", "k.brandt.home@mailbox.example", "Nothing to do on your side"}},
		{"external-forwarding-blocked-03.eml", OwnerSenderAdmin, []string{"your organization does not allow"}},
		{"external-forwarding-blocked-04.eml", OwnerSenderAdmin, []string{"your organization does not allow"}},
		{"external-forwarding-blocked-05.eml", OwnerUnknown, []string{"does not show whether that mailbox is yours or the recipient's"}},
	} {
		b, err := os.ReadFile("../internal/testdata/bounces/eml/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := dsn.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		rs := e.Explain(r)
		if len(rs) != 1 {
			t.Fatalf("%s: %d readings, want 1", c.file, len(rs))
		}
		v := rs[0].Classification
		if v.Rule != externalForwardingRule || v.Owner != c.owner {
			t.Errorf("%s: rule %s, owner %s; want %s, %s", c.file, v.Rule, v.Owner, externalForwardingRule, c.owner)
		}
		all := v.Explanation + " " + v.Fix
		for _, w := range c.words {
			if !strings.Contains(all, w) {
				t.Errorf("%s: %q lacks %q", c.file, all, w)
			}
		}
	}
}
