package rules

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A literalFilter is what any match of a pattern must contain, found from
// the regexp's syntax: a list of sets of literals, every set of which has
// one member in the matched text. "(?:your|the) ip(?:v[46])? address" can
// only match a text that contains "your ip" or "the ip", and " address"
// too; a text that lacks them is not given to the regexp at all. Most
// records lack the words of most patterns, and the regexp (Go's
// backtracker over the whole diagnostic, case-insensitive, so without
// Go's own literal prefix search) is the cost of a pattern: the filter is a
// few substring searches (issue 14: parsing).
//
// The literals hold for a text as normalize makes it and that is all
// ASCII: normalize lowers A-Z, so an upper-case letter never occurs in it,
// and a case-insensitive literal can then only occur in lower case. A text
// with a byte above 0x7f is given to the regexp unfiltered: (?i)k also
// matches the Kelvin sign, (?i)s the long s.
type literalFilter [][]literal

// literal is a literal of a filter, with the position of its rarest byte
// (by byteRarity): the search looks for that byte, not the first, since a
// literal's first letter is as often as not a common one.
type literal struct {
	s      string
	b      []byte // s, for bytes.Index
	anchor int
	pairs  []uint16 // its first pairs of bytes (literalPairs), for a pairSet
}

// newLiteral returns s with its rarest byte found.
func newLiteral(s string) literal {
	l := literal{s: s, b: []byte(s), pairs: literalPairs(s)}
	for i := 1; i < len(s); i++ {
		if byteRarity(s[i]) > byteRarity(s[l.anchor]) {
			l.anchor = i
		}
	}
	return l
}

// commonBytes are the bytes of diagnostic texts (English, lower case,
// codes), the most frequent first.
const commonBytes = " eotainsrlcdhmupf.gyb0w5v1k2,3:-4x@/7j6q89z"

// byteRarity ranks c: the higher, the rarer in a diagnostic text.
func byteRarity(c byte) int {
	if i := strings.IndexByte(commonBytes, c); i >= 0 {
		return i
	}
	return len(commonBytes)
}

// maxLiteralSet bounds the members of a set of literals (the product of an
// alternation by an alternation grows fast), maxLiteralLen their length,
// maxAlternatives the members an alternation of literals gives; beyond them
// the analysis keeps the sets it has. maxFilterSets bounds the sets a
// filter tests.
const (
	maxLiteralSet   = 16
	maxLiteralLen   = 64
	maxAlternatives = 64
	maxFilterSets   = 4
)

// newLiteralFilter returns the filter of the pattern src (compiled, as
// every pattern, case-insensitively), nil when nothing is known.
func newLiteralFilter(src string) literalFilter {
	re, err := syntax.Parse("(?i)"+src, syntax.Perl)
	if err != nil {
		return nil
	}
	return literalFilterOf(re)
}

// literalFilterOf returns the filter of re, parsed with (?i).
func literalFilterOf(re *syntax.Regexp) literalFilter {
	info := literalsOf(re)
	if info.isNever() {
		return literalFilter{{}} // a set without members: no text has one
	}
	need := info.need
	if set := info.exact; set != nil && required(set) {
		need = append(need, set)
	}
	var sets [][]string
	for _, set := range need {
		set = reduced(set)
		if len(set) > 0 && len(set) <= maxAlternatives && required(set) && !slices.ContainsFunc(sets, func(s []string) bool { return slices.Equal(s, set) }) {
			sets = append(sets, set)
		}
	}
	// The most selective sets first: a record fails on the first one it
	// lacks.
	slices.SortStableFunc(sets, func(a, b []string) int { return literalScore(b) - literalScore(a) })
	if len(sets) > maxFilterSets {
		sets = sets[:maxFilterSets]
	}
	f := make(literalFilter, len(sets))
	for i, set := range sets {
		for _, s := range set {
			f[i] = append(f[i], newLiteral(s))
		}
	}
	return f
}

// reduced returns the members of set, sorted, without those that contain
// another member: a text that contains "listed at the " contains "listed
// at ", so the longer one tells nothing more.
func reduced(set []string) []string {
	set = slices.Compact(slices.Sorted(slices.Values(set)))
	out := set[:0:0]
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && strings.Contains(s, t) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// leadingLiterals returns the literals every match of re starts with,
// nil when they are not known: the first consuming parts of the regexp are
// literals, small classes, optional ones, or alternations of them. The
// literals run on over the parts that follow as long as they are exact
// ("e-?mail" starts "email" or "e-mail", not merely "e"), within
// maxLiteralSet strings each: a longer literal occurs at fewer places,
// each of which leadMatch tries with the regexp.
func leadingLiterals(re *syntax.Regexp) []string {
	return leads(re, true)
}

// leads is leadingLiterals; with extend false, a concatenation's literals
// stop at its first consuming part that gives some (an alternation whose
// branches, extended, would give more than maxAlternatives).
func leads(re *syntax.Regexp, extend bool) []string {
	switch re.Op {
	case syntax.OpNoMatch:
		return []string{} // no match starts anywhere
	case syntax.OpLiteral, syntax.OpCharClass:
		li := literalsOf(re)
		if li.exact != nil && required(li.exact) {
			return li.exact
		}
	case syntax.OpCapture, syntax.OpPlus:
		return leads(re.Sub[0], extend)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return leads(re.Sub[0], extend)
		}
	case syntax.OpConcat:
		return concatLeads(re.Sub, extend)
	case syntax.OpAlternate:
		var all []string
		for _, s := range re.Sub {
			l := leads(s, extend)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		if all = withoutLonger(all); len(all) <= maxAlternatives {
			return all
		}
		if extend {
			return leads(re, false)
		}
	}
	return nil
}

// concatLeads returns the leading literals of a concatenation: the strings
// of its parts from the first, joined (their product), as long as the
// parts are exact (an assertion is, with ""), then the leading literals of
// the first part that is not, when known; nil when they may be empty.
func concatLeads(subs []*syntax.Regexp, extend bool) []string {
	cur := []string{""}
	for _, s := range subs {
		li := literalsOf(s)
		if li.isNever() {
			return []string{}
		}
		if required(cur) && (!extend || shortest(cur) >= minLead) {
			// Long enough: joined with a part of one string (no
			// more literals to search for) but no other.
			if extend && len(li.exact) == 1 {
				if p := product(cur, li.exact); p != nil {
					cur = p
					continue
				}
			}
			break
		}
		if li.exact != nil {
			if l := leads(s, extend); len(li.exact) > 1 && len(l) > 0 && len(l) < len(li.exact) && shortest(l) >= minLead {
				// Fewer literals, long enough ("urlbl" rather than
				// its four codes): the part's own leading ones.
				if p := leadProduct(cur, l); p != nil {
					cur = p
				}
				break
			}
			if p := leadProduct(cur, li.exact); p != nil {
				cur = p
				continue
			}
		}
		// Not exact, or too many strings: its own leading literals.
		if l := leads(s, extend); len(l) > 0 {
			if p := leadProduct(cur, l); p != nil {
				cur = p
			}
		}
		break
	}
	if !required(cur) {
		return nil
	}
	return withoutLonger(cur)
}

// minLead is the length from which a leading literal is run on only over
// parts of one string: "delivery failed " followed by a digit is searched
// for as it is, not as ten literals, while "e" of "e-?mail" is run on to
// "email" and "e-mail", which occur at far fewer places.
const minLead = 3

// shortest returns the length of the shortest member of set.
func shortest(set []string) int {
	n := maxLiteralLen
	for _, s := range set {
		n = min(n, len(s))
	}
	return n
}

// leadProduct is product for leading literals: the first part's strings
// may be as many as an alternation's (maxAlternatives).
func leadProduct(as, bs []string) []string {
	if len(as) == 1 && as[0] == "" && len(bs) <= maxAlternatives {
		return bs
	}
	return product(as, bs)
}

// withoutLonger returns the members of set, sorted, without those that
// start with another member: where the longer occurs, so does the shorter.
func withoutLonger(set []string) []string {
	set = slices.Compact(slices.Sorted(slices.Values(set)))
	out := set[:0]
	for _, s := range set {
		// Sorted: a member's prefixes in the set come before it, the
		// last kept one among them.
		if len(out) > 0 && strings.HasPrefix(s, out[len(out)-1]) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// firstIndex returns the first position in text where a member of set
// occurs, -1 when none does.
func firstIndex(text []byte, set [][]byte) int {
	first := -1
	for _, lit := range set {
		limit := text
		if first >= 0 {
			// Only an occurrence that starts before first counts.
			limit = text[:min(len(text), first+len(lit)-1)]
		}
		if i := bytes.Index(limit, lit); i >= 0 {
			first = i
		}
	}
	return first
}

// allows reports whether text (normalized, all ASCII) may match: it
// contains a member of each set. ps, when not nil, is the pairSet of text
// (made here when first needed): a member it rules out is not searched for.
func (f literalFilter) allows(text []byte, ps *pairSet) bool {
	if ps != nil && !ps.usable(text) {
		ps = nil
	}
	for _, set := range f {
		found := false
		for i := range set {
			lit := &set[i]
			if ps != nil && !ps.mayHold(lit) {
				continue
			}
			if lit.in(text) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// in reports whether text contains l: it looks for the anchor byte, then
// compares the bytes around it.
func (l *literal) in(text []byte) bool {
	n, a := len(l.s), l.anchor
	c := l.s[a]
	for i := a; i+n-a <= len(text); {
		j := bytes.IndexByte(text[i:len(text)-(n-a-1)], c)
		if j < 0 {
			return false
		}
		i += j
		if string(text[i-a:i-a+n]) == l.s {
			return true
		}
		i++
	}
	return false
}

// textClass says whether the literals of the patterns hold in a text
// (normalized): they are written in ASCII lower case, and under (?i) an
// ASCII letter matches itself, its upper case (which normalize lowered)
// and, for k and s alone, two letters beyond ASCII, the Kelvin sign
// U+212A and the long s U+017F (unicode.SimpleFold).
type textClass uint8

const (
	// textASCII: no byte above 0x7f. A character is a byte.
	textASCII textClass = iota
	// textFoldSafe: bytes above 0x7f, but neither U+212A nor U+017F, so
	// that the literals hold as in an ASCII text (literalsOf reads a
	// character beyond ASCII as its UTF-8 bytes, or promises nothing).
	textFoldSafe
	// textFolding: U+212A or U+017F occur: a pattern runs as written, (?i),
	// over the whole text.
	textFolding
)

// classOfText returns the class of a text (normalized).
func classOfText(b []byte) textClass {
	i := 0
	for i < len(b) && b[i] < 0x80 {
		i++
	}
	if i == len(b) {
		return textASCII
	}
	// U+212A is E2 84 AA, U+017F is C5 BF in UTF-8.
	if bytes.Contains(b[i:], []byte("\xe2\x84\xaa")) || bytes.Contains(b[i:], []byte("\xc5\xbf")) {
		return textFolding
	}
	return textFoldSafe
}

// literalInfo is what a node of a regexp says about the texts it matches
// (normalized, all ASCII).
type literalInfo struct {
	// exact, when not nil, lists every string the node can match ("" for
	// an empty match); empty, not nil, for a node that matches nothing
	// (never).
	exact []string
	// need lists sets of literals: the text matched by the node contains
	// a member of each (none of them is "").
	need [][]string
}

// required reports whether the set is a requirement: it has no empty
// member.
func required(set []string) bool {
	return len(set) > 0 && !slices.Contains(set, "")
}

// literalScore orders sets by selectivity: the shortest member counts most,
// then fewer members.
func literalScore(set []string) int {
	short := maxLiteralLen
	for _, s := range set {
		short = min(short, len(s))
	}
	return short*64 - len(set)
}

// best returns the most selective set the node requires, nil if none.
func (li literalInfo) best() []string {
	var b []string
	if li.exact != nil && required(li.exact) {
		b = li.exact
	}
	for _, set := range li.need {
		if b == nil || literalScore(set) > literalScore(b) {
			b = set
		}
	}
	return b
}

// never is what a node that matches nothing says: no string.
var never = literalInfo{exact: []string{}}

// isNever reports whether li is said of a node that matches nothing.
func (li literalInfo) isNever() bool {
	return li.exact != nil && len(li.exact) == 0
}

// literalsOf analyses re (as syntax.Parse made it, with (?i)).
func literalsOf(re *syntax.Regexp) literalInfo {
	switch re.Op {
	case syntax.OpNoMatch:
		return never
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return literalInfo{exact: []string{""}}
	case syntax.OpLiteral:
		b := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return literalsBeyondASCII(re)
			}
			c := byte(r)
			if re.Flags&syntax.FoldCase != 0 && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
		if len(b) > maxLiteralLen {
			return literalInfo{}
		}
		return literalInfo{exact: []string{string(b)}}
	case syntax.OpCharClass:
		// The members that can occur in the text: not A-Z, nor the two
		// letters that make a text textFolding. The parser has
		// already added the letters (?i) folds onto the class's.
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if 'A' <= r && r <= 'Z' || r == kelvin || r == longS {
					continue
				}
				if len(set) == maxLiteralSet || r == utf8.RuneError {
					return literalInfo{}
				}
				set = append(set, string(r))
			}
		}
		if len(set) == 0 {
			return literalInfo{}
		}
		return literalInfo{exact: set}
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpQuest:
		sub := literalsOf(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxLiteralSet {
			return literalInfo{exact: append(slices.Clip(sub.exact), "")}
		}
		return literalInfo{}
	case syntax.OpPlus:
		return repeated(literalsOf(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return repeated(literalsOf(re.Sub[0]))
		}
		if re.Max == 1 {
			return literalsOf(&syntax.Regexp{Op: syntax.OpQuest, Sub: re.Sub})
		}
		return literalInfo{}
	case syntax.OpConcat:
		return concatLiterals(re.Sub)
	case syntax.OpAlternate:
		return alternateLiterals(re.Sub)
	}
	return literalInfo{} // any character, star, no match
}

// literalsBeyondASCII analyses a literal with characters beyond ASCII: the
// strings of UTF-8 it may be in a text (never in an ASCII one), one for
// each way (?i) may fold it (folded onto A-Z, normalize lowered, or onto
// the Kelvin sign and the long s, which make a text textFolding). U+FFFD,
// which an invalid byte matches, makes no promise.
func literalsBeyondASCII(re *syntax.Regexp) literalInfo {
	fold := re.Flags&syntax.FoldCase != 0
	cur := []string{""}
	for _, r := range re.Rune {
		if r == utf8.RuneError {
			return literalInfo{}
		}
		forms := []string{string(r)}
		if fold {
			forms = forms[:0]
			f := r
			for {
				if !('A' <= f && f <= 'Z') && f != kelvin && f != longS {
					forms = append(forms, string(f))
				}
				if f = unicode.SimpleFold(f); f == r {
					break
				}
			}
		}
		if cur = product(cur, forms); cur == nil {
			return literalInfo{}
		}
	}
	return literalInfo{exact: cur}
}

// repeated returns what one or more repetitions of a node require: what
// one does (nothing matches when one cannot).
func repeated(sub literalInfo) literalInfo {
	if sub.isNever() {
		return never
	}
	need := sub.need
	if sub.exact != nil && required(sub.exact) {
		need = append(slices.Clip(need), sub.exact)
	}
	return literalInfo{need: need}
}

// concatLiterals analyses a concatenation: the strings of consecutive
// exact parts are joined (their product), and each part's requirements
// are the whole's. It matches nothing when a part matches nothing.
func concatLiterals(subs []*syntax.Regexp) literalInfo {
	var out literalInfo
	cur := []string{""}
	allExact := true
	flush := func() {
		if required(cur) {
			out.need = append(out.need, cur)
		}
		cur = []string{""}
	}
	for _, s := range subs {
		li := literalsOf(s)
		if li.isNever() {
			return never
		}
		if li.exact == nil {
			allExact = false
			flush()
			out.need = append(out.need, li.need...)
			continue
		}
		if p := product(cur, li.exact); p != nil {
			cur = p
			continue
		}
		allExact = false
		flush()
		cur = li.exact
	}
	if allExact {
		out.exact = cur
		return out
	}
	flush()
	return out
}

// product returns every a+b, nil when there would be too many or too long.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxLiteralSet {
		return nil
	}
	p := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			if len(a)+len(b) > maxLiteralLen {
				return nil
			}
			p = append(p, a+b)
		}
	}
	return p
}

// alternateLiterals analyses an alternation: exact when every branch is,
// else it requires the union of one required set per branch (when every
// branch requires one). A branch that matches nothing adds nothing; when
// none can match, neither can the alternation.
func alternateLiterals(subs []*syntax.Regexp) literalInfo {
	var exact, union []string
	allExact, allNeed, any := true, true, false
	for _, s := range subs {
		li := literalsOf(s)
		if li.isNever() {
			continue
		}
		any = true
		if li.exact == nil {
			allExact = false
		} else if allExact {
			exact = append(exact, li.exact...)
		}
		if b := li.best(); b != nil && allNeed {
			union = append(union, b...)
		} else {
			allNeed = false
		}
	}
	if !any {
		return never
	}
	if allExact && len(exact) <= maxAlternatives {
		return literalInfo{exact: exact}
	}
	if allNeed && len(union) <= maxAlternatives {
		return literalInfo{need: [][]string{reduced(union)}}
	}
	return literalInfo{}
}

// literalsString writes a filter for tests and debugging: the sets joined
// by " & ", their members by "|".
func (f literalFilter) String() string {
	parts := make([]string, len(f))
	for i, set := range f {
		ss := make([]string, len(set))
		for j, l := range set {
			ss[j] = l.s
		}
		parts[i] = strings.Join(ss, "|")
	}
	return strings.Join(parts, " & ")
}
