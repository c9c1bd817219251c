package rules

import "testing"

// TestSendmailMultiHostNoticeGivesEachRecipientItsOwnReasonAndOwner: a
// Sendmail notice about recipients at different hosts that failed for
// different causes ("The following addresses had permanent fatal errors",
// then "Transcript of session follows", savemail.c errbody; with and
// without the RFC 3464 delivery-status part) reads each recipient with its
// own cause: a blocklisted sender's refusal is the sender's admin's to fix
// even when the next recipient's server denied relaying.
func TestSendmailMultiHostNoticeGivesEachRecipientItsOwnReasonAndOwner(t *testing.T) {
	e := builtin(t)
	type want struct {
		reason string
		owner  Owner
	}
	cases := []struct {
		file string
		want map[string]want
	}{
		{"sendmail-transcript-two-hosts-01.eml", map[string]want{
			"orders@linden-supply.example": {"blocked", OwnerSenderAdmin},
			"t.moreau@quaywise.example":    {"norelaying", OwnerRecipientAdmin},
		}},
		{"sendmail-transcript-three-hosts-01.eml", map[string]want{
			"planning@tolland-county.example":     {"userunknown", OwnerSender},
			"a.brandt@rheinwerk-bau.example":      {"mailboxfull", OwnerRecipient},
			"permits@harbourview-council.example": {"norelaying", OwnerRecipientAdmin},
		}},
		{"sendmail-transcript-plain-two-hosts-01.eml", map[string]want{
			"filings@corrister-court.example":      {"blocked", OwnerSenderAdmin},
			"e.whitlow@marchbank-advisors.example": {"userunknown", OwnerSender},
		}},
		{"sendmail-transcript-plain-three-hosts-01.eml", map[string]want{
			"claims@brightwater-insurance.example": {"mailboxfull", OwnerRecipient},
			"lab@prismcast-orthodontics.example":   {"userunknown", OwnerSender},
			"referrals@eastgate-clinic.example":    {"norelaying", OwnerRecipientAdmin},
		}},
	}
	for _, c := range cases {
		rds := e.Explain(parseFixture(t, c.file))
		if len(rds) != len(c.want) {
			t.Errorf("%s: %d readings, want %d", c.file, len(rds), len(c.want))
		}
		for _, rd := range rds {
			w, ok := c.want[rd.Recipient.Address]
			if !ok {
				t.Errorf("%s: unexpected recipient %q", c.file, rd.Recipient.Address)
				continue
			}
			if string(rd.Reason) != w.reason || rd.Owner != w.owner {
				t.Errorf("%s: %s: reason %s owner %s, want %s %s (diagnostic %q)", c.file, rd.Recipient.Address, rd.Reason, rd.Owner, w.reason, w.owner, rd.Recipient.Diagnostic)
			}
		}
	}
}
