package rules

import (
	"strings"
	"testing"
)

// TestPairSetRulesOutAbsentLiterals: a literal with a pair of bytes the
// text lacks is ruled out, every literal of the text is kept, and a text
// too long for a set is searched as before.
func TestPairSetRulesOutAbsentLiterals(t *testing.T) {
	text := normalize(nil, "550 5.1.1 <jdoe@example.com>: Recipient address rejected: User unknown in virtual mailbox table")
	var ps pairSet
	if !ps.usable(text) {
		t.Fatal("no set for a short text")
	}
	for i := 0; i+2 <= len(text); i++ {
		for j := i + 2; j <= len(text) && j <= i+12; j++ {
			l := newLiteral(string(text[i:j]))
			if !ps.mayHold(&l) {
				t.Fatalf("literal %q of the text ruled out", l.s)
			}
		}
	}
	ruledOut := 0
	for _, s := range []string{"blocked using", "spamhaus", "quota exceeded", "too many recipients", "greylisted"} {
		if l := newLiteral(s); !ps.mayHold(&l) {
			ruledOut++
		}
	}
	if ruledOut < 4 {
		t.Errorf("%d of 5 absent literals ruled out, want at least 4", ruledOut)
	}
	f := literalFilter{{newLiteral("spamhaus"), newLiteral("user unknown")}}
	if !f.allows(text, &ps) {
		t.Error("the filter with the set rejects a text that has one of its literals")
	}
	long := []byte(strings.Repeat("x", maxPairText) + " user unknown")
	var lps pairSet
	if lps.usable(long) {
		t.Error("a set made for a text longer than maxPairText")
	}
	if !f.allows(long, &lps) {
		t.Error("the filter rejects a long text that has one of its literals")
	}
}
