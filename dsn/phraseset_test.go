package dsn

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
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

// TestFindCommandFindsTheFirstMarkInListOrder holds findCommand (an
// automaton over the marks) to the plain definition: the command of the
// mark earliest in commandMarks that the text holds, without regard to
// case, as whole words; over texts made of pieces of marks, in both cases,
// with word bytes around them.
func TestFindCommandFindsTheFirstMarkInListOrder(t *testing.T) {
	reference := func(diag string) string {
		for _, m := range commandMarks {
			for i := 0; i+len(m.mark) <= len(diag); i++ {
				if ascii.HasPrefixFold(diag[i:], m.mark) && wholeWords(diag, i, len(m.mark)) {
					return m.command
				}
			}
		}
		return ""
	}
	rnd := rand.New(rand.NewSource(14))
	pieces := []string{"x", "a", " ", ":", "<", "1", "é"}
	for _, m := range commandMarks {
		pieces = append(pieces, m.mark, strings.ToUpper(m.mark), m.mark[:len(m.mark)/2], m.mark[len(m.mark)/2:])
	}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rnd.Intn(8); k >= 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		diag := b.String()
		if got, want := findCommand(diag), reference(diag); got != want {
			t.Fatalf("findCommand(%q) = %q, the first mark in list order gives %q", diag, got, want)
		}
	}
}
