package dsn

import "testing"

// TestAMailboxQuotaWarningIsANoticeNotABounce: Zimbra's, Dovecot's,
// Exchange's and cPanel's warnings that the reader's own mailbox is nearly
// full report no failure: KindNone, FormatQuotaWarning, their text kept as
// Notice for the figures.
func TestAMailboxQuotaWarningIsANoticeNotABounce(t *testing.T) {
	for _, file := range []string{
		"quota-warning-zimbra-01.eml", "quota-warning-dovecot-01.eml",
		"quota-warning-exchange-01.eml", "quota-warning-cpanel-01.eml",
	} {
		r := parseBounceFixture(t, file)
		if r.Kind != KindNone || r.Format != FormatQuotaWarning {
			t.Errorf("%s: kind %q format %q, want kind %q format %q", file, r.Kind, r.Format, KindNone, FormatQuotaWarning)
		}
		if len(r.Recipients) != 0 {
			t.Errorf("%s: %d recipients, want none", file, len(r.Recipients))
		}
		if r.Notice == "" {
			t.Errorf("%s: no Notice, want the warning's text", file)
		}
	}
}

// TestMailThatOnlyMentionsAQuotaIsNoQuotaWarning: a person's subject with
// "quota warning" and no warning's text, a subject of the family over
// another text, and a bounce of a quota warning are not quota warnings.
func TestMailThatOnlyMentionsAQuotaIsNoQuotaWarning(t *testing.T) {
	if r := parseBounceFixture(t, "nonbounce-quota-mention-01.eml"); r.Format == FormatQuotaWarning {
		t.Errorf("nonbounce-quota-mention-01.eml: read as a quota warning")
	}
	for name, raw := range map[string][]byte{
		"subject alone": rawMessage("From: ann@example.org\nTo: bob@example.net\nSubject: The hall is almost full\n", "Bring chairs, please.\n"),
		"bounce of a warning": rawMessage("From: MAILER-DAEMON@mx.example.net\nTo: postmaster@example.org\nSubject: Undelivered Mail Returned to Sender: Quota warning\n",
			"I'm sorry to have to inform you that your message could not be delivered.\n\n<bob@example.net>: host mx.example.net said: 550 5.1.1 User unknown\n\n--- original ---\nSubject: Quota warning\n\nYour mailbox size has reached 90MB, which is over 90% of your 100MB quota.\n"),
	} {
		if r := mustParse(t, raw); r.Format == FormatQuotaWarning {
			t.Errorf("%s: read as a quota warning", name)
		}
	}
}
