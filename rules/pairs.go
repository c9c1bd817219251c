package rules

import "slices"

// A record's diagnostic meets the literal filters of many patterns, about
// 140 literals a message over the shared corpus, and most of them are not
// in it: each was a search of the whole text for the literal's rarest byte
// and a comparison at every place it occurs (literal.in), 7% of parse and
// classify (issue 14). A pairSet, made in one pass over the text, says
// which pairs of adjacent bytes may occur in it: a literal with a pair that
// does not occur is not in the text, and is not searched for. The set is
// hashed (pairBits bits), so a pair may seem to occur when it does not,
// never the other way round: the answer of allows does not change, only
// its cost.

// pairBits is the size of a pairSet, in bits; maxPairText the longest text
// a set is made for: beyond it, making the set costs more than the searches
// it saves (a notice, up to maxNotice; over the shared corpus 1 KiB did
// better than 512 bytes and 2 KiB).
const (
	pairBits    = 1 << 12
	maxPairText = 1 << 10
	// maxLiteralPairs bounds the pairs of a literal that are tested: the
	// rarest ones tell enough.
	maxLiteralPairs = 4
)

// pairSet is the hashed set of the pairs of adjacent bytes of a text.
type pairSet struct {
	bits [pairBits / 64]uint64
	// state is pairsUnmade until the first filter needs the set, then
	// pairsMade, or pairsNone for a text too long to be worth one.
	state uint8
}

const (
	pairsUnmade = iota
	pairsMade
	pairsNone
)

// reset makes the set that of a new text, made when first needed.
func (ps *pairSet) reset() { ps.state = pairsUnmade }

// pairHash returns the bit of the pair (a, b).
func pairHash(a, b byte) uint16 {
	return uint16((uint32(a)<<8 | uint32(b)) * 0x9e3779b1 >> (32 - 12))
}

// usable makes the set of text when it is not made yet, and reports
// whether it may be asked.
func (ps *pairSet) usable(text []byte) bool {
	switch ps.state {
	case pairsMade:
		return true
	case pairsNone:
		return false
	}
	if len(text) > maxPairText {
		ps.state = pairsNone
		return false
	}
	clear(ps.bits[:])
	for i := 0; i+1 < len(text); i++ {
		h := pairHash(text[i], text[i+1])
		ps.bits[h>>6] |= 1 << (h & 63)
	}
	ps.state = pairsMade
	return true
}

// mayHold reports whether the text of the set may hold l: every pair of l
// that is tested may occur in it.
func (ps *pairSet) mayHold(l *literal) bool {
	for _, h := range l.pairs {
		if ps.bits[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// literalPairs returns the hashes of the pairs of adjacent bytes of s,
// the rarest first (byteRarity; of pairs as rare, the first in s), each
// once: a literal that is not in a text is most often told by its first
// pair. maxLiteralPairs at most. The rarest are picked in turn, not
// sorted: a process analyses hundreds of literals on their first use, and
// sorting the pairs of each was 1% of explain --json over the shared
// corpus (issue 14).
func literalPairs(s string) []uint16 {
	if len(s) < 2 {
		return nil
	}
	var buf [maxLiteralLen]int
	n := len(s) - 1
	rarity := buf[:0]
	if n > len(buf) {
		rarity = make([]int, 0, n) // cannot happen: literals are cut at maxLiteralLen
	}
	for i := range n {
		rarity = append(rarity, byteRarity(s[i])+byteRarity(s[i+1]))
	}
	var out []uint16
	for len(out) < maxLiteralPairs {
		best := -1
		for i := range n {
			if rarity[i] >= 0 && (best < 0 || rarity[i] > rarity[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		rarity[best] = -1 // taken
		if h := pairHash(s[best], s[best+1]); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}
