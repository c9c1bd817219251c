package rules

import (
	"fmt"
	"strings"
)

// LoadWithout is Load with the rules whose id is in skip left out, as if they
// had not been written: for measuring how well the other rules read the
// bounces those rules were written for (internal/cmd/corpuseval leaves each
// corpus family's own rules out in turn). An id that names no rule is an
// error, so that a typo does not pass for a measurement.
func LoadWithout(skip []string, files ...string) (*Engine, error) {
	e, err := Load(files...)
	if err != nil {
		return nil, err
	}
	if len(skip) == 0 {
		return e, nil
	}
	drop := make(map[string]bool, len(skip))
	for _, id := range skip {
		drop[id] = true
	}
	found := make(map[string]bool, len(skip))
	kept := make([]*rule, 0, len(e.rules)) // e.rules may be the built-in set, shared
	for _, r := range e.rules {
		if drop[r.id] {
			found[r.id] = true
			continue
		}
		kept = append(kept, r)
	}
	if len(found) < len(drop) {
		var unknown []string
		for _, id := range skip {
			if !found[id] {
				unknown = append(unknown, id)
			}
		}
		return nil, fmt.Errorf("rules: cannot leave out %s: no rule has that id", strings.Join(unknown, ", "))
	}
	e.rules = kept
	x := newTextFreeIndex(kept)
	e.textFree = &x
	return e, nil
}

// RuleIDs returns the ids of e's rules in the order they are tried (local
// rules first), an id appearing once per file that defines it.
func (e *Engine) RuleIDs() []string {
	ids := make([]string, len(e.rules))
	for i, r := range e.rules {
		ids[i] = r.id
	}
	return ids
}
