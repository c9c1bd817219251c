package rules

import (
	"regexp"
	"regexp/syntax"
	"sync"
	"unicode"
	"unicode/utf8"
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
	// flagged says that src carries its own flags (written by
	// regexpSource: forASCII), and is compiled without (?i): under (?i)
	// the parser would fold again each range of its classes, written out
	// in full, rune by rune.
	flagged bool
	// minLen is the fewest characters a match takes (minMatchLen): a text
	// of fewer bytes holds no match. Zero when not known.
	minLen int

	once   sync.Once // made the fields below
	bad    bool      // src does not parse (cannot happen: checked at load)
	filter literalFilter
	// lead, when not nil, holds the literals every match starts with:
	// the regexp is run from just before the first of them (leadingLiterals).
	lead [][]byte
	// maxLen is the most characters a match can take (matchLen), and
	// maxBytes the most bytes in a text of any class; -1 when there is no
	// bound: a bounded pattern is run only over the windows around the
	// occurrences of its filter's first set (windows).
	maxLen, maxBytes int
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

	// forASCII, when not nil, is the pattern for texts all of ASCII:
	// this one without its literals that cannot match there (asciiOnly),
	// with a filter and leading literals where this one has none.
	forASCII *pattern

	reOnce sync.Once
	re     *regexp.Regexp // nil when src does not compile (cannot happen: checked at load)

	asciiOnce sync.Once
	ascii     *regexp.Regexp // compiled from asciiTree

	// The regexp for texts where the literals hold, anchored: at the
	// start of a text (atStart), and after one character (afterOne), so
	// that an assertion at the start of the match sees that character
	// (leadMatch). Each is compiled when first needed: many patterns
	// never meet a text that starts with their literals. Nil when it
	// could not be made.
	atStartOnce, afterOneOnce sync.Once
	atStart, afterOne         *regexp.Regexp
}

// anchoredSource returns the regexp the anchored ones are made from.
func (p *pattern) anchoredSource() string {
	if p.asciiTree != nil {
		return regexpSource(p.asciiTree)
	}
	return p.source()
}

// anchoredAtStart returns the regexp anchored at the start of a text.
func (p *pattern) anchoredAtStart() *regexp.Regexp {
	p.atStartOnce.Do(func() {
		p.atStart, _ = regexp.Compile(`^(?:` + p.anchoredSource() + `)`)
	})
	return p.atStart
}

// anchoredAfterOne returns the regexp anchored after one character.
func (p *pattern) anchoredAfterOne() *regexp.Regexp {
	p.afterOneOnce.Do(func() {
		p.afterOne, _ = regexp.Compile(`^(?s:.)(?:` + p.anchoredSource() + `)`)
	})
	return p.afterOne
}

// maxLeadTries bounds the occurrences of a pattern's leading literals that
// leadMatch tries one by one before it runs the regexp over the rest of the
// text.
const maxLeadTries = 8

// newPattern returns the pattern of re, compiled from src already.
func newPattern(src string, re *regexp.Regexp) *pattern {
	p := &pattern{src: src, captures: hasCaptures(re)}
	if tree, err := syntax.Parse(p.source(), syntax.Perl); err == nil {
		p.minLen = minMatchLen(tree)
	}
	p.reOnce.Do(func() { p.re = re })
	return p
}

// source returns the regexp to compile: src, case-insensitive.
func (p *pattern) source() string {
	if p.flagged {
		return p.src
	}
	return "(?i)" + p.src
}

// regexp returns the compiled (?i) pattern, nil if it does not compile.
func (p *pattern) regexp() *regexp.Regexp {
	p.reOnce.Do(func() {
		p.re, _ = regexp.Compile(p.source())
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
		if a, ok := asciiOnly(tree); ok {
			// Written out before analyseTree lowers its literals.
			q := &pattern{src: regexpSource(a), captures: p.captures, flagged: true}
			if sameGroups(q.src, tree) {
				q.once.Do(func() { q.analyseTree(a) })
				p.forASCII = q
			}
		}
		p.analyseTree(tree)
	})
}

// analyseTree makes the pattern's filter, leading literals and group
// names from its syntax tree (parsed with (?i)), which it may rewrite.
func (p *pattern) analyseTree(tree *syntax.Regexp) {
	p.filter = literalFilterOf(tree)
	for _, l := range leadingLiterals(tree) {
		p.lead = append(p.lead, []byte(l))
	}
	p.maxLen, p.maxBytes = matchLen(tree, false), matchLen(tree, true)
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
// kept, and it has no (?i) left that would fold a literal beyond ASCII (a
// character no case folds onto another, as Japanese ones, matches itself
// with or without it).
func lowerLiterals(re *syntax.Regexp) bool {
	ok := true
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase != 0 {
		for i, r := range re.Rune {
			switch {
			case 'A' <= r && r <= 'Z':
				re.Rune[i] = r + 'a' - 'A'
			case r >= utf8.RuneSelf && unicode.SimpleFold(r) != r:
				ok = false // (?i) folds it onto another letter
			}
		}
		re.Flags &^= syntax.FoldCase
	}
	for _, s := range re.Sub {
		ok = lowerLiterals(s) && ok
	}
	return ok
}

// A pattern is run over the part of a text where it may match, found
// from its literals, since Go's regexps have no "match from" of their own
// and search a whole text byte by byte (and, past a length that depends on
// the regexp's size, with their NFA, several times slower than their
// backtracker). On a text where the literals hold (textClass), after the
// filter:
//   - a pattern whose matches are at most maxLen characters long runs over
//     windows: each match holds an occurrence of a literal of the filter's
//     first set, so it lies within maxLen characters of one (windows);
//   - another pattern runs from just before its first leading literal
//     (start).
//
// On any other text it runs, as written, over the whole text.

// literalsHold reports whether the pattern's filter, leading literals and
// lower-case regexp hold in a text of class tc.
func (p *pattern) literalsHold(tc textClass) bool {
	return tc == textASCII || tc == textFoldSafe
}

// start returns where in text (normalized, its literals hold, allowed by
// the filter) the regexp may be run from without changing what it finds. A
// match starts at the first leading literal or after it; the regexp is run
// from the character before, so that an assertion at the start of a match
// (\b) sees the character before it, as it would in the whole text.
func (p *pattern) start(text []byte) int {
	if p.lead == nil {
		return 0
	}
	i := firstIndex(text, p.lead)
	if i > 0 {
		i--
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
	}
	return i
}

// windows returns the windows of text (of class tc, its literals hold,
// allowed by the filter), and whether the pattern runs over them: its
// matches are bounded, and short beside the text, so that windows leave
// some of it out.
func (p *pattern) windows(text []byte, tc textClass) (windows, bool) {
	w := windows{maxLen: p.maxLen, pad: 1, text: text}
	if tc != textASCII {
		w.maxLen, w.pad = p.maxBytes, utf8.UTFMax
	}
	if w.maxLen < 0 || len(p.filter) == 0 || 4*(w.maxLen+w.pad) >= len(text) {
		return windows{}, false
	}
	w.set = p.filter[0]
	return w, true
}

// find returns the submatch indexes of the leftmost match of the pattern
// in text (normalized, of class tc), nil when it does not match.
func (p *pattern) find(text []byte, tc textClass) []int {
	return p.findIn(text, tc, nil)
}

// findIn is find with the pairSet of text (nil when there is none), which
// spares the filter its searches for literals the text cannot hold.
func (p *pattern) findIn(text []byte, tc textClass, ps *pairSet) []int {
	if len(text) < p.minLen {
		return nil
	}
	p.analyse()
	if tc == textASCII && p.forASCII != nil {
		return p.forASCII.findIn(text, tc, ps)
	}
	if p.bad {
		return nil
	}
	if !p.literalsHold(tc) {
		if re := p.regexp(); re != nil {
			return re.FindSubmatchIndex(text)
		}
		return nil
	}
	if !p.filter.allows(text, ps) {
		return nil
	}
	re := p.asciiRegexp()
	if re == nil {
		return nil
	}
	if w, ok := p.windows(text, tc); ok {
		for x, y, ok := w.next(); ok; x, y, ok = w.next() {
			if m := re.FindSubmatchIndex(text[x:y]); m != nil {
				shift(m, x)
				return m
			}
		}
		return nil
	}
	m, from := p.leadMatch(text, true)
	if m != nil || from < 0 {
		return m
	}
	m = re.FindSubmatchIndex(text[from:])
	shift(m, from)
	return m
}

// leadMatch tries the occurrences of the pattern's leading literals in text
// (normalized, its literals hold, allowed by the filter) one by one, in
// order, with the anchored regexp: a match starts at one of them, so the
// first that starts a match starts the leftmost one, and the anchored
// regexp there finds the match the regexp prefers. The regexp reads the
// character before the occurrence (afterOne), so that an assertion at the
// start of the match (\b) sees it as in the whole text. Past maxLeadTries
// occurrences it returns, with a nil match, where the regexp may be run
// from to find the match (start); from is -1 when there is no match. With
// submatches false, a match is reported as a non-nil empty slice.
func (p *pattern) leadMatch(text []byte, submatches bool) (m []int, from int) {
	if p.lead == nil {
		return nil, 0
	}
	pos := 0
	for range maxLeadTries {
		o := firstIndex(text[pos:], p.lead)
		if o < 0 {
			return nil, -1
		}
		o += pos
		var atStart, afterOne *regexp.Regexp
		if o == 0 {
			atStart = p.anchoredAtStart()
		} else {
			afterOne = p.anchoredAfterOne()
		}
		if atStart == nil && afterOne == nil {
			return nil, p.start(text) // cannot happen: it compiled
		}
		switch {
		case o == 0 && submatches:
			m = atStart.FindSubmatchIndex(text)
		case o == 0:
			if atStart.Match(text) {
				m = []int{}
			}
		case submatches:
			if m = afterOne.FindSubmatchIndex(text[o-1:]); m != nil {
				shift(m, o-1)
				m[0] = o // the character before is not part of the match
			}
		default:
			if afterOne.Match(text[o-1:]) {
				m = []int{}
			}
		}
		if m != nil {
			return m, 0
		}
		pos = o + 1
	}
	// Many occurrences: the regexp from just before the next one.
	i := firstIndex(text[pos:], p.lead)
	if i < 0 {
		return nil, -1
	}
	i += pos
	if i > 0 {
		i--
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
	}
	return nil, i
}

// shift adds off to the indexes of a match found in text[off:].
func shift(m []int, off int) {
	if off == 0 {
		return
	}
	for i, x := range m {
		if x >= 0 {
			m[i] = x + off
		}
	}
}

// match reports whether the pattern matches text (normalized, of class
// tc).
func (p *pattern) match(text []byte, tc textClass) bool {
	return p.matchIn(text, tc, nil)
}

// matchIn is match with the pairSet of text (findIn).
func (p *pattern) matchIn(text []byte, tc textClass, ps *pairSet) bool {
	if len(text) < p.minLen {
		return false
	}
	p.analyse()
	if tc == textASCII && p.forASCII != nil {
		return p.forASCII.matchIn(text, tc, ps)
	}
	if p.bad {
		return false
	}
	if !p.literalsHold(tc) {
		re := p.regexp()
		return re != nil && re.Match(text)
	}
	if !p.filter.allows(text, ps) {
		return false
	}
	re := p.asciiRegexp()
	if re == nil {
		return false
	}
	if w, ok := p.windows(text, tc); ok {
		for x, y, ok := w.next(); ok; x, y, ok = w.next() {
			if re.Match(text[x:y]) {
				return true
			}
		}
		return false
	}
	m, from := p.leadMatch(text, false)
	if m != nil || from < 0 {
		return m != nil
	}
	return re.Match(text[from:])
}
