package rules

import (
	"strings"
	"testing"
)

// TestLoadWithoutFallsThroughToTheNextRule leaves out the rule that decides a
// reply and checks that the next matching rule decides instead, while an
// engine loaded in full is unchanged.
func TestLoadWithoutFallsThroughToTheNextRule(t *testing.T) {
	in := Input{Action: "failed", Status: "5.2.2", Diagnostic: "552 5.2.2 the box of this user holds no more mail"}
	full := builtin(t)
	first := full.Classify(in)
	if first.Rule == "" {
		t.Fatalf("no rule decides %q", in.Diagnostic)
	}
	e, err := LoadWithout([]string{first.Rule})
	if err != nil {
		t.Fatalf("LoadWithout(%s): %v", first.Rule, err)
	}
	v := e.Classify(in)
	if v.Rule == first.Rule || v.Rule == "" {
		t.Errorf("without %s the reply is decided by %q, want another rule", first.Rule, v.Rule)
	}
	if again := full.Classify(in); again.Rule != first.Rule {
		t.Errorf("the full engine changed: %s, want %s", again.Rule, first.Rule)
	}
	if n, m := len(e.RuleIDs()), len(full.RuleIDs()); n != m-1 {
		t.Errorf("%d rules left, want %d", n, m-1)
	}
}

// TestLoadWithoutUnknownID refuses an id that names no rule, so that a typo
// is not taken for a measurement.
func TestLoadWithoutUnknownID(t *testing.T) {
	_, err := LoadWithout([]string{"no-such-rule-anywhere"})
	if err == nil || !strings.Contains(err.Error(), "no-such-rule-anywhere") {
		t.Fatalf("err = %v, want one naming the unknown id", err)
	}
}
