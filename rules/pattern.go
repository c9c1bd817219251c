package rules

import (
	"regexp"
	"sync"
)

// pattern is a regexp of a rules file (a rule's "regexp" or an extractor's),
// compiled the first time a record reaches it rather than when the rules
// load: a command reads one record or a few, and most of the rules' regexps
// are never tried (issue 14: start-up). Load checks every pattern of a file
// it reads; the built-in ones were checked when builtin_gen.go was
// generated. A pattern is safe for concurrent use.
type pattern struct {
	src      string // as written in the rules file; matched case-insensitively
	captures bool   // it has named groups, each a fact

	once sync.Once
	re   *regexp.Regexp // nil when src does not compile (cannot happen: checked at load)
}

// newPattern returns the pattern of re, compiled from src already.
func newPattern(src string, re *regexp.Regexp) *pattern {
	p := &pattern{src: src, captures: hasCaptures(re)}
	p.once.Do(func() { p.re = re })
	return p
}

// regexp returns the compiled pattern, nil if it does not compile.
func (p *pattern) regexp() *regexp.Regexp {
	p.once.Do(func() {
		p.re, _ = regexp.Compile("(?i)" + p.src)
	})
	return p.re
}

// match reports whether the pattern matches b.
func (p *pattern) match(b []byte) bool {
	re := p.regexp()
	return re != nil && re.Match(b)
}
