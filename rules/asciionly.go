package rules

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A pattern that names a thing in several languages ("添付ファイル名|
// anhang|pièce jointe|...") has literals that cannot occur in a text all
// of ASCII, and the analysis of its literals (literalsOf) can promise
// nothing about them: the alternation gives no filter and no leading
// literals, and the (?i) regexp ran over the whole of every English text
// (issue 14: one such pattern was 17% of parse+classify over the shared
// corpus). On an ASCII text those literals match nothing, so the pattern
// matches there what the same pattern without them matches: asciiOnly
// makes that pattern, and find and match use it for ASCII texts
// (pattern.forASCII). Texts beyond ASCII still meet the pattern as
// written.

// asciiOnly returns a copy of re (parsed with (?i)) for texts all of
// ASCII: every literal that cannot match in such a text is replaced by a
// node that matches nothing. The copy has the groups of re, in the same
// order, so that a match's indexes are those of re. ok is false when re has
// no such literal.
func asciiOnly(re *syntax.Regexp) (out *syntax.Regexp, ok bool) {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if !matchesInASCII(r, re.Flags&syntax.FoldCase != 0) {
				return &syntax.Regexp{Op: syntax.OpNoMatch, Flags: re.Flags}, true
			}
		}
	}
	c := *re
	c.Rune = slices.Clone(re.Rune) // lowerLiterals rewrites them in place
	c.Rune0 = [2]rune{}
	c.Sub0 = [1]*syntax.Regexp{}
	c.Sub = nil
	for _, s := range re.Sub {
		cs, changed := asciiOnly(s)
		c.Sub = append(c.Sub, cs)
		ok = ok || changed
	}
	return &c, ok
}

// matchesInASCII reports whether the character r of a literal, folded
// when fold is set, can match a character of an ASCII text: r is ASCII,
// or its case folding orbit has an ASCII member (the Kelvin sign K and the
// long s, U+212A and U+017F).
func matchesInASCII(r rune, fold bool) bool {
	if r < utf8.RuneSelf {
		return true
	}
	if !fold {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			return true
		}
	}
	return false
}

// sameGroups reports whether the regexp src has the groups of tree, by
// number and name: a copy written out by regexpSource and parsed again
// gives the same submatch indexes.
func sameGroups(src string, tree *syntax.Regexp) bool {
	re, err := syntax.Parse(src, syntax.Perl)
	return err == nil && re.MaxCap() == tree.MaxCap() && slices.Equal(re.CapNames(), tree.CapNames())
}
