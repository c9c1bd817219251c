package rules

import "github.com/ndrmilter/ndrmilter/smtpcode"

// A record without a phrase of any rule in its text (every record of
// "ndrmilter code 5.1.1", which has no text) can only match the rules that
// require no phrase: the others fail on their first test. textFreeIndex
// lists those rules by the class of the record's status code, so that such
// a record is tried against a few dozen rules instead of all of them, and
// the others' data is never read (issue 14: start-up). For the built-in
// rules go generate writes it into builtin_gen.go with the rules.

// statusKeys is the number of lists of a textFreeIndex: no status code,
// then classes 2, 4 and 5.
const statusKeys = 4

// textFreeIndex holds, by status key (statusKey), the indexes in a rule set
// of the rules that require no phrase and whose status condition can hold
// for a code of that key, in the set's order.
type textFreeIndex [statusKeys][]int32

// statusKey returns the list of a textFreeIndex for a record's status code
// (has: the record has one); false for a class none of the lists is for.
func statusKey(st smtpcode.Status, has bool) (int, bool) {
	if !has {
		return 0, true
	}
	switch st.Class {
	case smtpcode.ClassSuccess:
		return 1, true
	case smtpcode.ClassTransient:
		return 2, true
	case smtpcode.ClassPermanent:
		return 3, true
	}
	return 0, false
}

// newTextFreeIndex returns the textFreeIndex of rules.
func newTextFreeIndex(rules []*rule) textFreeIndex {
	var x textFreeIndex
	for i, r := range rules {
		if len(r.text) > 0 || len(r.all) > 0 {
			continue
		}
		for key := range statusKeys {
			if r.statusCanHold(key) {
				x[key] = append(x[key], int32(i))
			}
		}
	}
	return x
}

// statusCanHold reports whether r's status condition can hold for some
// code of the status key.
func (r *rule) statusCanHold(key int) bool {
	if len(r.status) == 0 {
		return true
	}
	classes := [statusKeys]smtpcode.Class{0, smtpcode.ClassSuccess, smtpcode.ClassTransient, smtpcode.ClassPermanent}
	for _, p := range r.status {
		switch {
		case p.none:
			if key == 0 {
				return true
			}
		case key != 0 && (p.class < 0 || p.class == int(classes[key])):
			return true
		}
	}
	return false
}

// noHits reports whether a match bitset has no phrase in it.
func noHits(hits []uint64) bool {
	for _, w := range hits {
		if w != 0 {
			return false
		}
	}
	return true
}
