package rules

import (
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// TestAQuotaWarningSaysTheReadersOwnMailboxIsNearlyFullWithItsFigures: a
// quota warning is no bounce; its reader acts in person (OwnerRecipient),
// the explanation gives the figures the warning states (also as facts)
// and says that mail will be refused once the mailbox is full, the fix
// says to delete or archive mail or ask for a larger quota.
func TestAQuotaWarningSaysTheReadersOwnMailboxIsNearlyFullWithItsFigures(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		file                 string
		percent, used, limit string
	}{
		{"quota-warning-zimbra-01.eml", "95%", "1946MB", "2048MB"},
		{"quota-warning-cpanel-01.eml", "89%", "912 MB", "1024 MB"},
		{"quota-warning-dovecot-01.eml", "85%", "", ""},
		{"quota-warning-exchange-01.eml", "", "", ""},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Owner != OwnerRecipient {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerRecipient)
		}
		if !strings.Contains(rd.Explanation, "not a bounce") || !strings.Contains(rd.Explanation, "your own mailbox is nearly full") ||
			!strings.Contains(rd.Explanation, "will be refused") {
			t.Errorf("%s: explanation %q, want a warning, not a bounce, of the reader's own nearly full mailbox", c.file, rd.Explanation)
		}
		if !strings.Contains(rd.Fix, "delete or archive") || !strings.Contains(rd.Fix, "larger quota") {
			t.Errorf("%s: fix %q, want delete or archive mail, or a larger quota", c.file, rd.Fix)
		}
		for _, f := range []struct {
			fact Fact
			want string
		}{{FactPercent, c.percent}, {FactUsed, c.used}, {FactLimit, c.limit}} {
			if got := rd.Facts.Get(f.fact); got != f.want {
				t.Errorf("%s: fact %s %q, want %q", c.file, f.fact, got, f.want)
			}
			if f.want != "" && !strings.Contains(rd.Explanation, f.want) {
				t.Errorf("%s: explanation %q does not give %s %q", c.file, rd.Explanation, f.fact, f.want)
			}
		}
	}
}

// TestAQuotaWarningIsExplainedInEveryLanguage: the quota warning's texts
// have translations, with its figures.
func TestAQuotaWarningIsExplainedInEveryLanguage(t *testing.T) {
	e := builtin(t)
	r := parseFixture(t, "quota-warning-zimbra-01.eml")
	en := e.Explain(r)[0]
	for _, lang := range []language.Tag{language.German, language.French, language.Spanish, language.Japanese} {
		rds := e.ExplainIn(lang, r)
		if len(rds) != 1 || rds[0].Explanation == en.Explanation || rds[0].Fix == en.Fix || !strings.Contains(rds[0].Explanation, "95%") {
			t.Errorf("%s: %+v, want a translated explanation and fix with the figures", lang, rds)
		}
	}
}
