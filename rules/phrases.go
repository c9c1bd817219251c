package rules

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// phraseSet finds, in one pass over a text, which of a fixed set of phrases
// occur in it (an Aho-Corasick automaton over bytes). Every phrase of every
// rule is compiled into one set, so Classify scans the diagnostic text once,
// whatever the number of rules, instead of running one substring search per
// phrase.
//
// The automaton is made the first time a text is matched, not when the
// rules load: "ndrmilter code 5.1.1" matches no text at all (issue 14:
// start-up). Its trie (trie) is data: for the built-in rules go generate
// writes it into builtin_gen.go, so that no process builds it; for rules
// loaded from files it is built then. Its transitions are a dense table
// filled in as texts reach them, so a process pays for the states its
// texts visit, not for all of them (tens of thousands, times the
// alphabet): too large to generate.
//
// Phrases and texts are compared after normalize: ASCII lower case, runs of
// white space as one space.
type phraseSet struct {
	phrases []string // by id, normalized, non-empty
	// trie is the automaton's trie when it was built ahead of time: for
	// the built-in rules, by go generate (builtin_gen.go), so that no
	// process builds it (issue 14: start-up). Nil, it is built from
	// phrases on first use (rules loaded with --rules).
	trie *trie
	once sync.Once
	ac   *automaton
}

// newPhraseSet returns the set of phrases (already normalized, non-empty).
// Phrase i of the slice has id i.
func newPhraseSet(phrases []string) *phraseSet {
	return &phraseSet{phrases: phrases}
}

// words returns the number of uint64 words a match bitset needs.
func (ps *phraseSet) words() int { return (len(ps.phrases) + 63) / 64 }

// match sets in hits (len >= ps.words(), zeroed by the caller) the bit of
// every phrase that occurs in text (normalized).
func (ps *phraseSet) match(text []byte, hits []uint64) {
	if len(ps.phrases) == 0 || len(text) == 0 {
		return
	}
	ps.once.Do(func() {
		t := ps.trie
		if t == nil {
			t = newTrie(ps.phrases)
		}
		ps.ac = newAutomaton(t)
	})
	ps.ac.match(text, hits)
}

// trie is the part of an Aho-Corasick automaton that depends on the
// phrases alone: the trie of the phrases with its failure links and
// outputs. It is plain data, so that go generate can write the built-in
// rules' one as Go literals (builtin_gen.go) that the binary maps without
// running any code.
type trie struct {
	classes [256]uint8 // byte -> alphabet class; 0 is "a byte no phrase uses"
	width   int32      // number of classes
	// The trie: the children of state s are edgeTo[first[s]:first[s+1]],
	// reached by the classes edgeClass[first[s]:first[s+1]]. State 0 is the
	// root.
	first     []int32
	edgeClass []uint8
	edgeTo    []int32
	fail      []int32 // the longest proper suffix of a state's path that is a state
	// The phrases that end at state st (fail chain included) are
	// outIDs[outStart[st]:outStart[st+1]].
	outStart []int32
	outIDs   []int32
}

// automaton is the Aho-Corasick automaton of a phraseSet: its trie, and
// the table of transitions computed from it on first use.
type automaton struct {
	*trie
	// The transitions, a row of width entries per state, filled in as
	// texts reach them: next[row*width+class] is 0 while not computed,
	// else the offset of the next state's row (its row times width: no
	// multiplication per byte) plus one, with the sign bit (outFlag)
	// set when phrases end there, so that the common case costs one load
	// and one test. Rows are given to states in the order texts reach
	// them, so that the few hundred a process uses lie together in memory
	// rather than scattered over the whole table (tens of megabytes of
	// address space, mostly never touched). Entries are written once, with
	// the same value by whichever goroutine computes them first.
	next       []atomic.Int32
	rowOf      []atomic.Int32 // the row of a state plus one, 0 when it has none yet
	stateOfRow []int32        // the state of a row: written under mu before the row is published
	mu         sync.Mutex     // serializes giving rows
	rows       int32          // rows given, under mu
}

// outFlag marks, in next, a state where phrases end.
const outFlag = -1 << 31

// newAutomaton returns the automaton of a trie; the transitions are
// computed as texts need them.
func newAutomaton(t *trie) *automaton {
	states := len(t.fail)
	a := &automaton{trie: t}
	// Zeroed memory straight from the system: only the rows texts reach
	// are ever touched.
	a.next = make([]atomic.Int32, states*int(t.width))
	a.rowOf = make([]atomic.Int32, states)
	a.stateOfRow = make([]int32, states)
	a.rowFor(0) // the root's row is row 0
	return a
}

// newTrie builds the trie of the phrases and its failure links.
func newTrie(phrases []string) *trie {
	a := &trie{}
	width := int32(1)
	for _, p := range phrases {
		for i := 0; i < len(p); i++ {
			// At most 255 classes: further distinct bytes stay in class 0,
			// which never advances the automaton (cannot happen with the
			// ASCII phrases of real rules).
			if a.classes[p[i]] == 0 && width < 255 {
				a.classes[p[i]] = uint8(width)
				width++
			}
		}
	}
	a.width = width

	// The trie, from the phrases in byte order: a phrase shares with the
	// one before it the states of their common prefix, so no lookup is
	// needed to insert it. The states come out in depth-first order.
	order := make([]int32, 0, len(phrases))
	for id, p := range phrases {
		if a.mappable(p) {
			order = append(order, int32(id))
		}
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(phrases[x], phrases[y]) })
	type edge struct {
		from, to int32
		class    uint8
	}
	total := 0
	for _, id := range order {
		total += len(phrases[id])
	}
	edges := make([]edge, 0, total)   // at most one per byte of the phrases
	ends := make([]int32, len(order)) // the state where order[i] ends
	path := []int32{0}                // the states of the previous phrase, root first
	prev := ""
	states := int32(1)
	for i, id := range order {
		p := phrases[id]
		common := 0
		for common < len(p) && common < len(prev) && p[common] == prev[common] {
			common++
		}
		path = path[:common+1]
		for j := common; j < len(p); j++ {
			edges = append(edges, edge{path[j], states, a.classes[p[j]]})
			path = append(path, states)
			states++
		}
		ends[i] = path[len(p)]
		prev = p
	}
	// Children by state (counting sort on the parent, stable).
	a.first = make([]int32, states+1)
	for _, e := range edges {
		a.first[e.from+1]++
	}
	for s := int32(1); s <= states; s++ {
		a.first[s] += a.first[s-1]
	}
	a.edgeClass = make([]uint8, len(edges))
	a.edgeTo = make([]int32, len(edges))
	fill := slices.Clone(a.first[:states])
	for _, e := range edges {
		a.edgeClass[fill[e.from]] = e.class
		a.edgeTo[fill[e.from]] = e.to
		fill[e.from]++
	}

	// Failure links and outputs, breadth first: a state's failure is
	// shallower than the state, so its outputs are complete when the
	// state's are made.
	own := make([][]int32, states)
	for i, id := range order {
		own[ends[i]] = append(own[ends[i]], id)
	}
	a.fail = make([]int32, states)
	out := make([][]int32, states)
	queue := make([]int32, 0, states)
	queue = append(queue, 0)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s != 0 {
			out[s] = append(own[s], out[a.fail[s]]...)
		}
		for k := a.first[s]; k < a.first[s+1]; k++ {
			t, c := a.edgeTo[k], a.edgeClass[k]
			if s != 0 {
				f := a.fail[s]
				for {
					if g := a.child(f, c); g >= 0 {
						a.fail[t] = g
						break
					}
					if f == 0 {
						break // fail[t] stays the root
					}
					f = a.fail[f]
				}
			}
			queue = append(queue, t)
		}
	}
	a.outStart = make([]int32, states+1)
	outs := 0
	for _, ids := range out {
		outs += len(ids)
	}
	a.outIDs = make([]int32, 0, outs)
	for st, ids := range out {
		a.outStart[st] = int32(len(a.outIDs))
		a.outIDs = append(a.outIDs, ids...)
	}
	a.outStart[states] = int32(len(a.outIDs))
	return a
}

// mappable reports whether every byte of p has a class.
func (a *trie) mappable(p string) bool {
	for i := 0; i < len(p); i++ {
		if a.classes[p[i]] == 0 {
			return false
		}
	}
	return true
}

// child returns the trie child of s by class c, -1 when there is none.
func (a *trie) child(s int32, c uint8) int32 {
	for k := a.first[s]; k < a.first[s+1]; k++ {
		if a.edgeClass[k] == c {
			return a.edgeTo[k]
		}
	}
	return -1
}

// rowFor returns the row of state s, giving it one if it has none.
func (a *automaton) rowFor(s int32) int32 {
	if r := a.rowOf[s].Load(); r != 0 {
		return r - 1
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.rowOf[s].Load(); r != 0 {
		return r - 1
	}
	r := a.rows
	a.rows++
	a.stateOfRow[r] = s
	a.rowOf[s].Store(r + 1)
	return r
}

// step returns the entry of next for the row at offset off (row times
// width) and class c, computing it (and those it depends on) when it is not
// there yet.
func (a *automaton) step(off int32, c uint8) int32 {
	cell := &a.next[off+int32(c)]
	if v := cell.Load(); v != 0 {
		return v
	}
	s := a.stateOfRow[off/a.width]
	t := int32(0)
	switch g := a.child(s, c); {
	case c != 0 && g >= 0:
		t = g
	case s != 0:
		t = a.stateOfRow[((a.step(a.rowFor(a.fail[s])*a.width, c)&^outFlag)-1)/a.width]
	}
	v := a.rowFor(t)*a.width + 1
	if a.outStart[t] != a.outStart[t+1] {
		v |= outFlag
	}
	cell.Store(v)
	return v
}

// match sets in hits the bit of every phrase that occurs in text.
func (a *automaton) match(text []byte, hits []uint64) {
	off := int32(0) // the root's row
	next, classes := a.next, &a.classes
	for _, b := range text {
		c := classes[b]
		v := next[off+int32(c)].Load()
		if v == 0 {
			v = a.step(off, c)
		}
		off = (v &^ outFlag) - 1
		if v < 0 {
			st := a.stateOfRow[off/a.width]
			for _, id := range a.outIDs[a.outStart[st]:a.outStart[st+1]] {
				hits[id>>6] |= 1 << (uint(id) & 63)
			}
		}
	}
}

// normalize appends to dst the text in ASCII lower case with every run of
// white space (and control bytes) as one space, trimmed.
func normalize(dst []byte, text string) []byte {
	space := true // drop leading space
	for i := 0; i < len(text); i++ {
		b := text[i]
		switch {
		case b <= ' ' || b == 0x7f:
			if !space {
				dst = append(dst, ' ')
				space = true
			}
			continue
		case 'A' <= b && b <= 'Z':
			b += 'a' - 'A'
		}
		dst = append(dst, b)
		space = false
	}
	if n := len(dst); n > 0 && dst[n-1] == ' ' {
		dst = dst[:n-1]
	}
	return dst
}
