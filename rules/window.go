package rules

import (
	"bytes"
	"regexp/syntax"
	"unicode/utf8"
)

// maxMatchLen bounds the match length matchLen computes: a pattern whose
// matches may be longer is run over the whole text.
const maxMatchLen = 1 << 12

// matchLen returns the most characters a match of re can take, or with
// inBytes the most bytes in a text where the literals hold (textClass): a
// literal's ASCII letter is one byte there, any other character at most
// utf8.UTFMax. It returns -1 when there is no bound (a star, a plus, an
// open repeat) or it is beyond maxMatchLen.
func matchLen(re *syntax.Regexp, inBytes bool) int {
	n := 0
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpNoMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if inBytes && r >= utf8.RuneSelf {
				n += utf8.UTFMax
			} else {
				n++
			}
		}
	case syntax.OpCharClass:
		n = 1
		if inBytes && !asciiClass(re.Rune) {
			n = utf8.UTFMax
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		n = 1
		if inBytes {
			n = utf8.UTFMax
		}
	case syntax.OpCapture, syntax.OpQuest:
		n = matchLen(re.Sub[0], inBytes)
	case syntax.OpRepeat:
		sub := matchLen(re.Sub[0], inBytes)
		if sub < 0 || re.Max < 0 || re.Max > maxMatchLen {
			return -1
		}
		n = sub * re.Max
	case syntax.OpConcat:
		for _, s := range re.Sub {
			l := matchLen(s, inBytes)
			if l < 0 {
				return -1
			}
			n += l
			if n > maxMatchLen {
				return -1
			}
		}
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			l := matchLen(s, inBytes)
			if l < 0 {
				return -1
			}
			n = max(n, l)
		}
	default: // star, plus
		return -1
	}
	if n > maxMatchLen {
		return -1
	}
	return n
}

// minMatchLen returns the fewest characters a match of re takes, at most
// maxMatchLen. Every character a regexp matches takes at least one byte of
// the text (a byte that is not UTF-8 is one character), so no text shorter
// than that in bytes holds a match: matchIn refuses it before the pattern
// is parsed or compiled ("ndrmilter code 5.1.1" tries patterns on an empty
// text; issue 14: start-up).
func minMatchLen(re *syntax.Regexp) int {
	n := 0
	switch re.Op {
	case syntax.OpLiteral:
		n = len(re.Rune)
	case syntax.OpCharClass:
		if len(re.Rune) > 0 {
			n = 1
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		n = 1
	case syntax.OpCapture, syntax.OpPlus:
		n = minMatchLen(re.Sub[0])
	case syntax.OpRepeat:
		n = minMatchLen(re.Sub[0]) * min(max(re.Min, 0), maxMatchLen)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			n += minMatchLen(s)
			if n > maxMatchLen {
				break
			}
		}
	case syntax.OpAlternate:
		n = maxMatchLen
		for _, s := range re.Sub {
			n = min(n, minMatchLen(s))
		}
	default: // an empty match, an assertion, a star, a question mark
		return 0
	}
	return min(n, maxMatchLen)
}

// asciiClass reports whether a class (its ranges, as in syntax.Regexp.Rune)
// has no member beyond ASCII that can occur where the literals hold: the
// Kelvin sign and the long s, which (?i) adds to the classes of k and s,
// cannot (textClass).
func asciiClass(ranges []rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		switch {
		case hi < utf8.RuneSelf:
		case lo == hi && (lo == kelvin || lo == longS):
		default:
			return false
		}
	}
	return true
}

// The two letters beyond ASCII that (?i) folds onto ASCII ones.
const (
	kelvin = '\u212a' // K
	longS  = '\u017f' // s
)

// windows yields, in order, the parts of a text (normalized, where the
// literals hold: textClass) outside which a bounded pattern cannot match,
// so that the regexp, run over each in turn, finds the leftmost match of
// the whole text. Every match holds a member of set (the first set of the
// pattern's filter) and is at most maxLen bytes long, so it lies within
// maxLen bytes of an occurrence of a member: a window is the span from
// maxLen+pad before an occurrence (moved back to the start of a character)
// to maxLen+pad after it, with the spans that touch merged into one. The
// pad is one character (a byte in an ASCII text, utf8.UTFMax bytes in
// another), so that an assertion such as \b sees the character it sees in
// the whole text.
//
// Why the regexp over a window finds what it finds over the whole text:
// no match can start at a window's first character (cut off from the one
// before, it might wrongly pass \b or ^), since such a match would hold an
// occurrence before the window's first one, and that occurrence's span
// would have been merged into the window; a match in a window holds one of
// its occurrences (no other occurrence lies in the window), so it starts
// at or before the last one and reads at most up to maxLen bytes after
// it, a character short of the window's end (where the window, unlike the
// text, would end and pass $). The window starts at a character, so the
// regexp reads the same characters in it as in the text. And a match of
// the whole text lies within a window, which no window before holds.
type windows struct {
	set    []literal
	maxLen int // in bytes
	pad    int // in bytes
	text   []byte
	pos    int // occurrences from here on are not in a window yet
	// nextAt[i] is the next occurrence of set[i] at or after the position
	// it was looked for from, -1 when not looked for yet, -2 when there
	// is none.
	nextAt [maxAlternatives]int
	init   bool
}

// occurrence returns the first position at or after from where a member
// of the set occurs, -1 when none does.
func (w *windows) occurrence(from int) int {
	if !w.init {
		for i := range w.set {
			w.nextAt[i] = -1
		}
		w.init = true
	}
	first := -1
	for i, l := range w.set {
		n := w.nextAt[i]
		if n == -2 {
			continue
		}
		if n < from {
			j := bytes.Index(w.text[from:], l.b)
			if j < 0 {
				w.nextAt[i] = -2
				continue
			}
			n = from + j
			w.nextAt[i] = n
		}
		if first < 0 || n < first {
			first = n
		}
	}
	return first
}

// next returns the next window, text[x:y]; false when there is none.
func (w *windows) next() (x, y int, ok bool) {
	if len(w.set) > len(w.nextAt) {
		// Cannot happen (a filter's sets have at most maxAlternatives
		// members): one window, the whole text.
		if w.pos > 0 {
			return 0, 0, false
		}
		w.pos = len(w.text) + 1
		return 0, len(w.text), true
	}
	o := w.occurrence(w.pos)
	if o < 0 {
		return 0, 0, false
	}
	reach := w.maxLen + w.pad
	x = max(0, o-reach)
	for x > 0 && !utf8.RuneStart(w.text[x]) {
		x--
	}
	y = o + reach
	for {
		n := w.occurrence(o + 1)
		if n < 0 || n-reach > y {
			break
		}
		o, y = n, n+reach
	}
	w.pos = o + 1
	return x, min(y, len(w.text)), true
}
