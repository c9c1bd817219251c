package rules

import (
	"strings"
	"testing"
)

// cPanel's hourly limits (WHM Tweak Settings "Max hourly emails per domain"
// and "Maximum percentage of failed or deferred messages a domain may send
// per hour") are written by the Exim of the sender's own provider: the
// sender's hosting account is at fault, not the receiver's connection
// limit. The explanation names the limit the bounce states (the second of
// "N/N") and says the message was discarded; the fix says to send it
// again later, since a discarded message is not retried.
func TestCPanelHourlyLimitIsTheSendersOwnAccountNotTooManyConnections(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, rule, limit string }{
		{"cpanel-hourly-limit-01.eml", "cpanel-max-emails-per-hour", "150"},
		{"cpanel-hourly-limit-02.eml", "cpanel-max-defers-failures-per-hour", "5"},
		{"cpanel-hourly-limit-03.eml", "cpanel-max-emails-per-hour", "500"},
	} {
		v := explainFixture(t, e, c.file)
		if v.Rule != c.rule {
			t.Errorf("%s: rule %q, want %q", c.file, v.Rule, c.rule)
		}
		if v.Owner != OwnerSenderAdmin || v.HardBounce {
			t.Errorf("%s: owner %s hard %v, want sender-admin and no hard bounce (the address is fine)", c.file, v.Owner, v.HardBounce)
		}
		if strings.Contains(v.Explanation, "connections") {
			t.Errorf("%s: explanation %q speaks of connections", c.file, v.Explanation)
		}
		if !strings.Contains(v.Explanation, "hosting account") || !strings.Contains(v.Explanation, "discarded") || !strings.Contains(v.Explanation, c.limit) {
			t.Errorf("%s: explanation %q, want the hosting account, the limit %s and the discard", c.file, v.Explanation, c.limit)
		}
		if !strings.Contains(v.Fix, "not retried") || !strings.Contains(v.Fix, "break-in") {
			t.Errorf("%s: fix %q, want send again (not retried) and the break-in check", c.file, v.Fix)
		}
	}
}

// cPanel's deferring form ("Message will be reattempted later") keeps the
// message in the provider's queue: no claim that it was discarded.
func TestCPanelHourlyLimitReattemptedLaterIsHeldNotDiscarded(t *testing.T) {
	v := explainFixture(t, builtin(t), "cpanel-hourly-limit-04.eml")
	if v.Rule != "cpanel-hourly-limit-retried" || v.Permanent {
		t.Errorf("rule %q permanent %v, want cpanel-hourly-limit-retried, not permanent", v.Rule, v.Permanent)
	}
	if strings.Contains(v.Explanation, "discarded") || !strings.Contains(v.Explanation, "try again later") {
		t.Errorf("explanation %q, want held and retried, not discarded", v.Explanation)
	}
}
