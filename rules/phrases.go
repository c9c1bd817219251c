package rules

// phraseSet finds, in one pass over a text, which of a fixed set of phrases
// occur in it (an Aho-Corasick automaton over bytes). Every phrase of every
// rule is compiled into one set at Load, so Classify scans the diagnostic text
// once, whatever the number of rules, instead of running one substring search
// per phrase.
//
// Phrases and texts are compared after normalize: ASCII lower case, runs of
// white space as one space.
type phraseSet struct {
	n       int        // number of phrases
	classes [256]uint8 // byte -> alphabet class; 0 is "a byte no phrase uses"
	width   int        // number of classes
	// next[state*width+class] is the next state; its sign bit is set when
	// phrases end there, so the common case (none) costs one test.
	next []int32
	// The phrases that end at state st (fail chain included) are
	// outIDs[outStart[st]:outStart[st+1]].
	outStart []int32
	outIDs   []int32
}

// newPhraseSet compiles phrases (already normalized, non-empty). Phrase i of
// the slice has id i.
func newPhraseSet(phrases []string) *phraseSet {
	ps := &phraseSet{n: len(phrases)}
	width := 1
	for _, p := range phrases {
		for i := 0; i < len(p); i++ {
			// At most 255 classes: further distinct bytes stay in class 0,
			// which never advances the automaton (cannot happen with the
			// ASCII phrases of real rules).
			if ps.classes[p[i]] == 0 && width < 255 {
				ps.classes[p[i]] = uint8(width)
				width++
			}
		}
	}
	ps.width = width

	// Trie. A phrase adds at most one state per byte: sizing the table for
	// that bound once spares copying it at every growth.
	bound := 1
	for _, p := range phrases {
		bound += len(p)
	}
	next := make([]int32, width, bound*width) // state 0 = root
	for i := range next {
		next[i] = -1
	}
	out := [][]int32{nil}
	for id, p := range phrases {
		if !ps.mappable(p) {
			continue // never matches; see the class cap above
		}
		s := int32(0)
		for i := 0; i < len(p); i++ {
			c := int(ps.classes[p[i]])
			t := next[int(s)*width+c]
			if t < 0 {
				t = int32(len(out))
				out = append(out, nil)
				for j := 0; j < width; j++ {
					next = append(next, -1)
				}
				next[int(s)*width+c] = t
			}
			s = t
		}
		out[s] = append(out[s], int32(id))
	}

	// Breadth-first fail links, folded into next so matching is one lookup
	// per byte.
	nstates := len(out)
	fail := make([]int32, nstates)
	queue := make([]int32, 0, nstates)
	for c := 0; c < width; c++ {
		t := next[c]
		if t < 0 {
			next[c] = 0
		} else {
			fail[t] = 0
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		out[s] = append(out[s], out[fail[s]]...)
		for c := 0; c < width; c++ {
			t := next[int(s)*width+c]
			if t < 0 {
				next[int(s)*width+c] = next[int(fail[s])*width+c]
				continue
			}
			fail[t] = next[int(fail[s])*width+c]
			queue = append(queue, t)
		}
	}
	// Mark the states where phrases end, flatten the outputs.
	for i, t := range next {
		if len(out[t]) > 0 {
			next[i] = t | outFlag
		}
	}
	ps.next = next
	ps.outStart = make([]int32, nstates+1)
	for st, ids := range out {
		ps.outStart[st] = int32(len(ps.outIDs))
		ps.outIDs = append(ps.outIDs, ids...)
	}
	ps.outStart[nstates] = int32(len(ps.outIDs))
	return ps
}

// outFlag marks, in next, a state where phrases end.
const outFlag = -1 << 31

func (ps *phraseSet) mappable(p string) bool {
	for i := 0; i < len(p); i++ {
		if ps.classes[p[i]] == 0 {
			return false
		}
	}
	return true
}

// words returns the number of uint64 words a match bitset needs.
func (ps *phraseSet) words() int { return (ps.n + 63) / 64 }

// match sets in hits (len >= ps.words(), zeroed by the caller) the bit of
// every phrase that occurs in text (normalized).
func (ps *phraseSet) match(text []byte, hits []uint64) {
	if ps.n == 0 {
		return
	}
	st := int32(0)
	w := int32(ps.width)
	next, classes := ps.next, &ps.classes
	for _, b := range text {
		v := next[st*w+int32(classes[b])]
		st = v &^ outFlag
		if v < 0 {
			for _, id := range ps.outIDs[ps.outStart[st]:ps.outStart[st+1]] {
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
