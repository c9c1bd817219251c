package rules

import "testing"

// TestFactIndexIsThePositionInFacts: factIndex (a switch, for speed) gives
// every fact its position in facts, and no position to a name that is no
// fact.
func TestFactIndexIsThePositionInFacts(t *testing.T) {
	for i, f := range facts {
		if got, ok := factIndex(string(f)); !ok || got != i {
			t.Errorf("factIndex(%q) = %d, %v; its position in facts is %d", f, got, ok, i)
		}
	}
	for _, name := range []string{"", "List", "lis", "lists", "retry", "score ", "unknown_fact"} {
		if i, ok := factIndex(name); ok {
			t.Errorf("factIndex(%q) = %d, true; it is no fact", name, i)
		}
	}
}
