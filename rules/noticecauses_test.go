package rules

import (
	"strings"
	"testing"
)

// An Exchange delay notification's summary ("400 4.4.7 Message delayed")
// is the reporting server's: the cause so far is its last attempt's reply
// (dsn/lastattempt.go), and the words say the server keeps trying, never
// that it gave up.
func TestAnExchangeDelayIsExplainedByItsLastAttemptNotItsSummary(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, reply, words string }{
		{"delay-attempt-error-01.eml", "451 4.4.316 Connection refused", "refused the connection"},
		{"delay-attempt-error-02.eml", "421 4.4.2 mail.kanzlei.example connection timed out", "does not answer"},
		{"delay-attempt-error-03.eml", "450 4.2.0 <vorstand@verein.example>: Recipient address rejected: Greylisted", "greylisting"},
		{"delay-warning-03.eml", "441 4.4.1 Error encountered", "does not answer"},
	} {
		rd := explainFixture(t, e, c.file)
		if !strings.HasPrefix(rd.Recipient.Reply, c.reply) {
			t.Errorf("%s: reply %q, want the last attempt's %q", c.file, rd.Recipient.Reply, c.reply)
		}
		if !strings.Contains(rd.Explanation, c.words) || !strings.Contains(rd.Explanation, "keeps trying") && !strings.Contains(rd.Explanation, "tries again") {
			t.Errorf("%s: explanation %q, want the cause so far (%q) and that the server keeps trying", c.file, rd.Explanation, c.words)
		}
		for _, no := range []string{"gave up", "given up", "could not be reached so far, or keeps putting"} {
			if strings.Contains(rd.Explanation, no) {
				t.Errorf("%s: explanation %q says %q", c.file, rd.Explanation, no)
			}
		}
		if rd.Owner != OwnerNone {
			t.Errorf("%s: owner %s, want nobody yet", c.file, rd.Owner)
		}
	}
}
