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

	once   sync.Once
	re     *regexp.Regexp // nil when src does not compile (cannot happen: checked at load)
	filter literalFilter  // what a match must contain, made with re
}

// newPattern returns the pattern of re, compiled from src already.
func newPattern(src string, re *regexp.Regexp) *pattern {
	return &pattern{src: src, captures: hasCaptures(re), re: re}
}

// regexp returns the compiled pattern, nil if it does not compile.
func (p *pattern) regexp() *regexp.Regexp {
	p.once.Do(p.compile)
	return p.re
}

// compile compiles src, unless newPattern was given it compiled, and makes
// its literal filter.
func (p *pattern) compile() {
	if p.re == nil {
		p.re, _ = regexp.Compile("(?i)" + p.src)
	}
	if p.re != nil {
		p.filter = newLiteralFilter(p.src)
	}
}

// find returns the submatch indexes of the leftmost match of the pattern
// in text (normalized; ascii says it is all ASCII), nil when it does not
// match.
func (p *pattern) find(text []byte, ascii bool) []int {
	re := p.regexp()
	if re == nil || ascii && !p.filter.allows(text) {
		return nil
	}
	return re.FindSubmatchIndex(text)
}

// match reports whether the pattern matches text (normalized; ascii says
// it is all ASCII).
func (p *pattern) match(text []byte, ascii bool) bool {
	re := p.regexp()
	if re == nil || ascii && !p.filter.allows(text) {
		return false
	}
	return re.Match(text)
}
