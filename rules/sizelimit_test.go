package rules

import (
	"strings"
	"testing"
)

// TestSizeLimitIsNotTheNextReplyCode: a size refusal that states no limit,
// followed by another reply ("... fixed maximum message size" then "554
// 5.0.0 Service unavailable" in a Sendmail transcript), names no limit; a
// limit without a unit is bytes, four digits or more.
func TestSizeLimitIsNotTheNextReplyCode(t *testing.T) {
	e := builtin(t)
	for diag, want := range map[string]string{
		"552 5.3.4 Message size exceeds fixed maximum message size 554 5.0.0 Service unavailable": "",
		"552 5.3.4 Message size exceeds maximum allowed 550 5.0.0 Service unavailable":            "",
		"552 5.3.4 Message size exceeds fixed maximum message size: 10485760":                     "10485760",
	} {
		v := e.Classify(Input{Status: "5.3.4", Diagnostic: diag})
		if v.Reason != ReasonMesgTooBig || (want == "") != (v.Facts.Get(FactLimit) == "") || !strings.Contains(v.Facts.Get(FactLimit), want) {
			t.Errorf("%q: reason %s limit %q, want mesgtoobig and a limit of %q bytes (none for \"\")", diag, v.Reason, v.Facts.Get(FactLimit), want)
		}
	}
}
