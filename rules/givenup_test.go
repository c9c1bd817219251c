package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestGivenUpNetworkFailureDoesNotPromiseRetries: a temporary network
// failure the sending server stopped retrying (Action: failed with a
// class-4 code, as qmail's "I'm not going to try again" reads) is told as
// given up, not "the sending server retries on its own"; the same failure
// while the server still retries is told as a delay, and a class-5
// refusal keeps the "gave up for good" words.
func TestGivenUpNetworkFailureDoesNotPromiseRetries(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		name, action, status, diag string
		want, notWant              string
	}{
		{"given up, no connection", "failed", "4.4.1", "I'm not going to try again; this message has been in the queue too long. Sorry, I wasn't able to establish an SMTP connection. (#4.4.1)",
			"kept trying and then gave up", "retries on its own"},
		{"still retrying", "delayed", "4.4.1", "Sorry, I wasn't able to establish an SMTP connection. (#4.4.1)",
			"keeps trying", "gave up"},
		{"permanent", "failed", "5.4.0", "Sorry, I wasn't able to establish an SMTP connection. (#5.4.0)",
			"gave up for good", "kept trying and then gave up"},
	} {
		r := &dsn.Report{Kind: dsn.KindBounce, ReportingMTA: "mail.example.org", Recipients: []dsn.Recipient{{
			Address: "bo@example.net", Action: smtpcode.Action(c.action), Status: c.status, Diagnostic: c.diag,
		}}}
		if c.action == "delayed" {
			r.Kind = dsn.KindDelay
		}
		rd := e.Explain(r)[0]
		if rd.Reason != ReasonNetworkError {
			t.Errorf("%s: reason %s, want %s", c.name, rd.Reason, ReasonNetworkError)
			continue
		}
		if !strings.Contains(rd.Fix, c.want) || strings.Contains(rd.Fix, c.notWant) {
			t.Errorf("%s: fix %q: want %q in it and not %q", c.name, rd.Fix, c.want, c.notWant)
		}
	}
}
