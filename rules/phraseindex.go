package rules

import (
	"math/bits"
	"sync"
)

// A record with phrases in its text can only match the rules that require
// one of them (their text names it, or their all starts with it) and the
// rules that require none (textFreeIndex): the others fail on their first
// test. phraseIndex lists, by phrase, the rules that the phrase lets
// through, so that such a record is tried against those few, in the set's
// order, rather than against every rule (issue 14: parsing). It is made
// the first time a record has phrases: "ndrmilter code 5.1.1" never needs
// it.
type phraseIndex struct {
	once     sync.Once
	byPhrase [][]int32 // by phrase id, the indexes of the rules, in order
}

// rulesOf returns the index of rules over phrases phrase ids, made once.
func (x *phraseIndex) rulesOf(rules []*rule, phrases int) [][]int32 {
	x.once.Do(func() {
		x.byPhrase = make([][]int32, phrases)
		add := func(id int, i int) {
			if id < len(x.byPhrase) {
				x.byPhrase[id] = append(x.byPhrase[id], int32(i))
			}
		}
		for i, r := range rules {
			switch {
			case len(r.text) > 0:
				for _, w := range r.text {
					for b := w.bits; b != 0; b &= b - 1 {
						add(w.index*64+bits.TrailingZeros64(b), i)
					}
				}
			case len(r.all) > 0:
				add(int(r.all[0]), i) // all must occur: the first too
			}
		}
	})
	return x.byPhrase
}

// candidates sets in set (one bit per rule, zeroed by the caller) the rules
// a record of status key key with phrases hits may match: those its
// phrases let through and those that require no phrase.
func (e *Engine) candidates(key int, hits []uint64, set []uint64) {
	for _, i := range e.textFree[key] {
		set[i>>6] |= 1 << (uint(i) & 63)
	}
	byPhrase := e.byPhrase.rulesOf(e.rules, len(e.phraseList))
	for w, word := range hits {
		for b := word; b != 0; b &= b - 1 {
			id := w*64 + bits.TrailingZeros64(b)
			if id >= len(byPhrase) {
				continue
			}
			for _, i := range byPhrase[id] {
				set[i>>6] |= 1 << (uint(i) & 63)
			}
		}
	}
}
