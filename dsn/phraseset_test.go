package dsn

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestPhraseSetFindsWhatASearchPerPhraseFinds holds the automaton to the
// loop it replaces (bytes.Contains for each phrase in list order): which
// phrase comes first in the list, and whether any occurs, over random texts
// of the phrases' bytes, with phrases that are prefixes, suffixes and
// infixes of one another.
func TestPhraseSetFindsWhatASearchPerPhraseFinds(t *testing.T) {
	lists := [][]string{
		{"abc", "bc", "c", "abcd", "xbcd"},
		{"message", "header", "content-type", "age", "ssa"},
		{"aa", "aaa", "a-a", "ba"},
		textFamilyPhrases(),
		originalSeparators,
	}
	rnd := rand.New(rand.NewSource(14))
	for _, list := range lists {
		ps := newPhraseSet(list...)
		var alphabet []byte
		for _, p := range list {
			alphabet = append(alphabet, p...)
		}
		alphabet = append(alphabet, 'z', '\n', 0x80)
		for n := 0; n < 2000; n++ {
			text := make([]byte, rnd.Intn(80))
			for i := range text {
				text[i] = alphabet[rnd.Intn(len(alphabet))]
			}
			if n%5 == 0 {
				// Plant a phrase.
				p := list[rnd.Intn(len(list))]
				at := rnd.Intn(len(text) + 1)
				text = append(text[:at], append([]byte(p), text[at:]...)...)
			}
			want := -1
			for i, p := range list {
				if bytes.Contains(text, []byte(p)) {
					want = i
					break
				}
			}
			if got := ps.firstIn(text); got != want {
				t.Fatalf("firstIn(%q) over %q = %d, a search per phrase gives %d", text, list, got, want)
			}
			if got := ps.in(text); got != (want >= 0) {
				t.Fatalf("in(%q) over %q = %v, a search per phrase gives %v", text, list, got, want >= 0)
			}
			if got := ps.inString(string(text)); got != (want >= 0) {
				t.Fatalf("inString(%q) over %q = %v, a search per phrase gives %v", text, list, got, want >= 0)
			}
		}
	}
}

// textFamilyPhrases returns the phrases of textFamilies, in order.
func textFamilyPhrases() []string {
	var out []string
	for _, f := range textFamilies {
		out = append(out, f.phrase)
	}
	return out
}
