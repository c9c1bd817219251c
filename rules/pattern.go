package rules

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// pattern is a regexp of a rules file (a rule's "regexp" or an extractor's),
// compiled the first time a record reaches it rather than when the rules
// load: a command reads one record or a few, and most of the rules' regexps
// are never tried (issue 14: start-up). Load checks every pattern of a file
// it reads; the built-in ones were checked when builtin_gen.go was
// generated. A pattern is safe for concurrent use.
//
// A record first meets the pattern's literal filter and leading literals,
// made from its syntax when first needed; a regexp is compiled only when a
// text passes them: the all-ASCII one (asciiRegexp) for the texts that are
// all ASCII, the (?i) one for the others.
type pattern struct {
	src      string // as written in the rules file; matched case-insensitively
	captures bool   // it has named groups, each a fact

	once   sync.Once // made the fields below
	bad    bool      // src does not parse (cannot happen: checked at load)
	filter literalFilter
	// lead, when not nil, holds the literals every match starts with:
	// the regexp is run from just before the first of them (leadingLiterals).
	lead [][]byte
	// names are the regexp's group names, by group number (SubexpNames).
	names []string
	// factBits has the bit 1<<i of every fact facts[i] a group of the
	// regexp captures.
	factBits factSet
	// asciiTree is the regexp for texts that are all ASCII (and lower
	// case, as normalize makes them): its literals written in lower case
	// rather than folded, which Go matches faster, and a literal prefix
	// lets Go skip to it. nil when it could not be made: re serves. It is
	// written out (String) only when compiled: most patterns never are,
	// and writing every one out was 7% of explain over the shared corpus.
	asciiTree *syntax.Regexp

	reOnce sync.Once
	re     *regexp.Regexp // nil when src does not compile (cannot happen: checked at load)

	asciiOnce sync.Once
	ascii     *regexp.Regexp // compiled from asciiTree
}

// newPattern returns the pattern of re, compiled from src already.
func newPattern(src string, re *regexp.Regexp) *pattern {
	p := &pattern{src: src, captures: hasCaptures(re)}
	p.reOnce.Do(func() { p.re = re })
	return p
}

// regexp returns the compiled (?i) pattern, nil if it does not compile.
func (p *pattern) regexp() *regexp.Regexp {
	p.reOnce.Do(func() {
		p.re, _ = regexp.Compile("(?i)" + p.src)
	})
	return p.re
}

// asciiRegexp returns the regexp for all-ASCII texts.
func (p *pattern) asciiRegexp() *regexp.Regexp {
	p.asciiOnce.Do(func() {
		if p.asciiTree != nil {
			p.ascii, _ = regexp.Compile(regexpSource(p.asciiTree))
		}
	})
	if p.ascii == nil {
		return p.regexp()
	}
	return p.ascii
}

// analyse makes the pattern's filter, leading literals and group names
// from its syntax, once.
func (p *pattern) analyse() {
	p.once.Do(func() {
		tree, err := syntax.Parse("(?i)"+p.src, syntax.Perl)
		if err != nil {
			p.bad = true
			return
		}
		p.filter = literalFilterOf(tree)
		for _, l := range leadingLiterals(tree) {
			p.lead = append(p.lead, []byte(l))
		}
		p.names = make([]string, tree.MaxCap()+1)
		groupNames(tree, p.names)
		for _, name := range p.names {
			if i, ok := factIndex(name); ok {
				p.factBits |= 1 << i
			}
		}
		if lowerLiterals(tree) {
			p.asciiTree = tree
		}
	})
}

// groupNames sets names[n] to the name of group n of re, as SubexpNames
// does.
func groupNames(re *syntax.Regexp, names []string) {
	if re.Op == syntax.OpCapture {
		names[re.Cap] = re.Name
	}
	for _, s := range re.Sub {
		groupNames(s, names)
	}
}

// captureBits returns the facts the pattern's groups capture.
func (p *pattern) captureBits() factSet {
	p.analyse()
	return p.factBits
}

// subexpNames returns the names of the pattern's groups, by number.
func (p *pattern) subexpNames() []string {
	p.analyse()
	return p.names
}

// lowerLiterals rewrites the case-folded ASCII literals of re in lower
// case, without folding: on a text without upper-case ASCII nor any
// other byte above 0x7f they match what they matched. A class, already
// expanded with the folded letters by the parser, stays as it is. It
// reports whether re may be compiled as rewritten: its capture names are
// kept, and it has no (?i) left that would fold a non-ASCII literal.
func lowerLiterals(re *syntax.Regexp) bool {
	ok := true
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase != 0 {
		for i, r := range re.Rune {
			switch {
			case 'A' <= r && r <= 'Z':
				re.Rune[i] = r + 'a' - 'A'
			case r >= 0x80:
				ok = false
			}
		}
		re.Flags &^= syntax.FoldCase
	}
	for _, s := range re.Sub {
		ok = lowerLiterals(s) && ok
	}
	return ok
}

// start returns where in text (normalized; ascii says it is all ASCII) the
// regexp may be run from without changing what it finds, -1 when it cannot
// match. A match starts at the first leading literal or after it; the
// regexp is run from one byte before, so that an assertion at the start of
// a match (\b) sees the character before it, as it would in the whole
// text. Go's regexps have no "match from" of their own.
func (p *pattern) start(text []byte, ascii bool) int {
	if !ascii {
		return 0
	}
	if !p.filter.allows(text) {
		return -1
	}
	if p.lead == nil {
		return 0
	}
	i := firstIndex(text, p.lead)
	if i > 0 {
		i--
	}
	return i
}

// find returns the submatch indexes of the leftmost match of the pattern
// in text (normalized; ascii says it is all ASCII), nil when it does not
// match.
func (p *pattern) find(text []byte, ascii bool) []int {
	p.analyse()
	if p.bad {
		return nil
	}
	from := p.start(text, ascii)
	if from < 0 {
		return nil
	}
	re := p.regexp()
	if ascii {
		re = p.asciiRegexp()
	}
	if re == nil {
		return nil
	}
	m := re.FindSubmatchIndex(text[from:])
	if from > 0 {
		for i, x := range m {
			if x >= 0 {
				m[i] = x + from
			}
		}
	}
	return m
}

// match reports whether the pattern matches text (normalized; ascii says
// it is all ASCII).
func (p *pattern) match(text []byte, ascii bool) bool {
	p.analyse()
	if p.bad {
		return false
	}
	from := p.start(text, ascii)
	if from < 0 {
		return false
	}
	re := p.regexp()
	if ascii {
		re = p.asciiRegexp()
	}
	return re != nil && re.Match(text[from:])
}
