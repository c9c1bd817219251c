package dsn

import (
	"slices"
	"sync"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// phraseSet finds, in one pass over a text, whether any of a fixed list of
// phrases occurs in it as bytes, and which comes first in the list: an
// Aho-Corasick automaton (Aho and Corasick, "Efficient string matching",
// CACM 18(6), 1975) with a dense transition table over byte classes. It
// stands for a loop of one strings.Index per phrase, which read the same
// text once per phrase (issue 14: the family, separator, list-intro and
// contact word lists were a tenth of Parse's instructions). The rules
// package has its own, larger one (rules/phrases.go), which normalizes the
// text; this one compares bytes exactly, as the loops it replaces did.
//
// The automaton is built on first use, not at start: a command that reads
// no notice builds none (issue 14: start-up).
type phraseSet struct {
	phrases []string
	fold    bool // a text byte matches a phrase byte that is its ASCII lower case (ascii.HasPrefixFold)
	once    sync.Once
	a       *phraseAutomaton
}

// newPhraseSet returns the set of phrases (non-empty, at most 32767).
func newPhraseSet(phrases ...string) *phraseSet {
	return &phraseSet{phrases: phrases}
}

// newFoldPhraseSet returns the set of lower-case phrases, matched without
// regard to the ASCII case of the text.
func newFoldPhraseSet(phrases ...string) *phraseSet {
	return &phraseSet{phrases: phrases, fold: true}
}

// phraseAutomaton is the automaton of a phraseSet.
//
// A state is named by the offset of its row in next (the state's number
// times width), so that a step is one load and one add: next[row+class]
// is the row of the state after the byte, negated (minus one) when
// phrases end at that state.
type phraseAutomaton struct {
	class [256]uint8 // the class of each byte; 0 for bytes no phrase has
	width int        // the number of classes
	next  []int32    // next[row+c]: the row of the state after a byte of class c, ^row when phrases end there
	first []int16    // first[row/width]: the least index of the phrases that end at the state (itself or by its suffixes), -1 when none
	outs  [][]int16  // outs[row/width]: the indexes of all those phrases, in list order
}

// automaton returns the automaton of the set, built on its first use.
func (ps *phraseSet) automaton() *phraseAutomaton {
	ps.once.Do(func() { ps.a = buildPhraseAutomaton(ps.phrases, ps.fold) })
	return ps.a
}

// buildPhraseAutomaton builds the trie of the phrases, its failure links
// and from them the full transition table.
func buildPhraseAutomaton(phrases []string, fold bool) *phraseAutomaton {
	a := &phraseAutomaton{}
	n := 1
	for _, p := range phrases {
		if len(p) == 0 || len(phrases) > 1<<15-1 {
			panic("dsn: phraseSet phrase empty or too many phrases")
		}
		for i := 0; i < len(p); i++ {
			if fold && ascii.Lower(p[i]) != p[i] {
				panic("dsn: phraseSet phrase matched without regard to case is not lower case: " + p)
			}
			if a.class[p[i]] == 0 {
				a.class[p[i]] = uint8(n)
				n++
			}
		}
	}
	if n > 256 {
		panic("dsn: phraseSet phrases use too many distinct bytes")
	}
	a.width = n
	if fold {
		raw := a.class
		for b := range a.class {
			a.class[b] = raw[ascii.Lower(byte(b))]
		}
	}
	// The trie is built in next itself: next[s*width+c] is the child of s
	// by c, 0 when none (the root is never a child), until the breadth
	// first pass below fills in every other transition, row by row. A
	// second table for the trie cost as much again to build as next, at
	// the first notice a process reads (issue 14: explain --json).
	maxStates := 1
	for _, p := range phrases {
		maxStates += len(p)
	}
	next := make([]int32, maxStates*a.width)
	out := make([]int16, 1, maxStates) // the least phrase that ends at each state by its own path, -1 for none
	out[0] = -1
	for i, p := range phrases {
		s := int32(0)
		for j := 0; j < len(p); j++ {
			k := int(s)*a.width + int(a.class[p[j]])
			if next[k] == 0 {
				next[k] = int32(len(out))
				out = append(out, -1)
			}
			s = next[k]
		}
		if out[s] < 0 || int16(i) < out[s] {
			out[s] = int16(i)
		}
	}
	states := len(out)
	a.next = next[:states*a.width]
	a.first = make([]int16, states)
	a.outs = make([][]int16, states)
	for i, p := range phrases {
		// The phrases that end at a state by its own path: the same
		// phrase listed more than once.
		s := int32(0)
		for j := 0; j < len(p); j++ {
			s = a.next[int(s)*a.width+int(a.class[p[j]])]
		}
		a.outs[s] = append(a.outs[s], int16(i))
	}
	fail := make([]int32, states)
	// Breadth first: a state's failure link is a shorter state, whose row
	// is complete when the state's is filled in; the state's row still
	// holds its trie children when it is read.
	queue := make([]int32, 0, states)
	a.first[0] = out[0]
	for c := 1; c < a.width; c++ {
		if child := a.next[c]; child != 0 {
			fail[child] = 0
			queue = append(queue, child)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := fail[s]
		a.first[s] = out[s]
		if ff := a.first[f]; ff >= 0 && (a.first[s] < 0 || ff < a.first[s]) {
			a.first[s] = ff
		}
		if len(a.outs[f]) > 0 {
			a.outs[s] = append(a.outs[s], a.outs[f]...)
			slices.Sort(a.outs[s])
		}
		row, frow := a.next[int(s)*a.width:int(s+1)*a.width], a.next[int(f)*a.width:int(f+1)*a.width]
		for c := 1; c < a.width; c++ {
			child := row[c]
			if child == 0 {
				row[c] = frow[c]
				continue
			}
			fail[child] = frow[c]
			queue = append(queue, child)
		}
	}
	for i, t := range a.next {
		row := t * int32(a.width)
		if a.first[t] >= 0 {
			row = ^row
		}
		a.next[i] = row
	}
	return a
}

// firstIn returns the least list index of the phrases that occur in text,
// -1 when none does: the phrase a loop over the list with bytes.Contains
// would find first.
func (ps *phraseSet) firstIn(text []byte) int {
	a := ps.automaton()
	best := int16(-1)
	row := int32(0)
	for _, b := range text {
		if row = a.next[row+int32(a.class[b])]; row < 0 {
			row = ^row
			if f := a.first[int(row)/a.width]; best < 0 || f < best {
				if best = f; best == 0 {
					break
				}
			}
		}
	}
	return int(best)
}

// in says whether any of the phrases occurs in text.
func (ps *phraseSet) in(text []byte) bool {
	a := ps.automaton()
	row := int32(0)
	for _, b := range text {
		if row = a.next[row+int32(a.class[b])]; row < 0 {
			return true
		}
	}
	return false
}

// inString is in for a string.
func (ps *phraseSet) inString(text string) bool {
	a := ps.automaton()
	row := int32(0)
	for i := 0; i < len(text); i++ {
		if row = a.next[row+int32(a.class[text[i]])]; row < 0 {
			return true
		}
	}
	return false
}

// firstEnds sets ends[i] (zeroed by the caller) to one past where phrase
// i first ends in text; it stays 0 for a phrase that does not occur, and
// phrases beyond len(ends) are left out.
func (ps *phraseSet) firstEnds(text []byte, ends []int) {
	a := ps.automaton()
	row := int32(0)
	for e, b := range text {
		if row = a.next[row+int32(a.class[b])]; row < 0 {
			row = ^row
			for _, m := range a.outs[int(row)/a.width] {
				if int(m) < len(ends) && ends[m] == 0 {
					ends[m] = e + 1
				}
			}
		}
	}
}
