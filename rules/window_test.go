package rules

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestWindowsFindWhatTheWholeTextGives: a bounded pattern run over the
// windows of a long text finds the match the regexp finds over the whole
// text, whatever the characters beyond ASCII around it, with windows that
// start inside a character, near misses, and the match far from the start.
func TestWindowsFindWhatTheWholeTextGives(t *testing.T) {
	for _, src := range []string{`[^ ]{1,3}xyz`, `\bab[a-z]{0,4}\b`, `(?:q|x)y(?P<host>[^ ]{0,2})z$`, `^.{0,3}xyz`} {
		re := regexp.MustCompile("(?i)" + src)
		p := newPattern(src, re)
		p.analyse()
		if p.maxLen < 0 || p.maxBytes < 0 {
			t.Fatalf("pattern %q: no bound (%d, %d)", src, p.maxLen, p.maxBytes)
		}
		windowed := 0
		for k := 0; k < 12; k++ {
			for _, filler := range []string{"日本語 ", "été ", "\xff\x80", "ab xy", "xyzab "} {
				for _, tail := range []string{"日本語xyz", "xyz", "abcd", "xyz日本", "xy日z", "xyq"} {
					text := []byte(strings.Repeat("a", k) + strings.Repeat(filler, 30) + tail + strings.Repeat(filler, k))
					text = normalize(nil, string(text))
					tc := classOfText(text)
					if _, ok := p.windows(text, tc); ok && p.literalsHold(tc) {
						windowed++
					}
					want := re.FindSubmatchIndex(text)
					if got := p.find(text, tc); !slices.Equal(got, want) {
						t.Errorf("pattern %q in %q: find = %v, the regexp over the whole text %v", src, text, got, want)
					}
					if got := p.match(text, tc); got != (want != nil) {
						t.Errorf("pattern %q in %q: match = %t, the regexp %t", src, text, got, want != nil)
					}
				}
			}
		}
		if windowed == 0 {
			t.Errorf("pattern %q never ran over windows: the test tests nothing", src)
		}
	}
}

// TestMatchLenBoundsMatches: the bound of a pattern's matches, in
// characters and in bytes where the literals hold, and no bound where a
// match may be as long as the text.
func TestMatchLenBoundsMatches(t *testing.T) {
	cases := []struct {
		src          string
		chars, bytes int
	}{
		{`abc`, 3, 3},
		{`a(?:bc|d)?e{2,3}`, 6, 6},
		{`[a-z]{0,4}\b`, 4, 4}, // (?i) adds the Kelvin sign and the long s, which cannot occur
		{`[^ ]{1,3}x`, 4, 13},
		{`.x`, 2, 5},
		{`été`, 3, 9},
		{`a+`, -1, -1},
		{`a{2,}`, -1, -1},
		{`a*b`, -1, -1},
	}
	for _, c := range cases {
		p := newPattern(c.src, regexp.MustCompile("(?i)"+c.src))
		p.analyse()
		if p.maxLen != c.chars || p.maxBytes != c.bytes {
			t.Errorf("matchLen of %q = %d characters, %d bytes, want %d, %d", c.src, p.maxLen, p.maxBytes, c.chars, c.bytes)
		}
	}
}

// TestMinMatchLenIsTheShortestMatch: minMatchLen gives the length of the
// shortest match (in characters, so at most its bytes), so that refusing
// texts shorter than it loses no match; and a text one byte shorter is
// refused, a text of exactly that length still matches.
func TestMinMatchLenIsTheShortestMatch(t *testing.T) {
	for _, c := range []struct {
		src      string
		min      int
		shortest string
	}{
		{`abc`, 3, "abc"},
		{`a|bc`, 1, "a"},
		{`(?:ab)+c?`, 2, "ab"},
		{`x*`, 0, ""},
		{`^$`, 0, ""},
		{`a{3,5}\bq?`, 3, "aaa"},
		{`(?P<host>[^ ]+)\.`, 2, "h."},
		{`(?s).\d{2}k`, 4, "\xff12k"},
		{`[^\x00-\x{10FFFF}]x`, 1, ""}, // an empty class matches nothing
	} {
		re := regexp.MustCompile("(?i)" + c.src)
		p := newPattern(c.src, re)
		if p.minLen != c.min {
			t.Errorf("pattern %q: minLen %d, want %d", c.src, p.minLen, c.min)
		}
		if c.shortest == "" {
			continue
		}
		text := []byte(c.shortest)
		if !p.matchIn(text, classOfText(text), nil) || !re.Match(text) {
			t.Errorf("pattern %q: no match in %q, its shortest match", c.src, text)
		}
		if p.matchIn(text[1:], classOfText(text[1:]), nil) {
			t.Errorf("pattern %q: a match in %q, shorter than its shortest", c.src, text[1:])
		}
	}
}

// TestMinMatchLenHoldsForBuiltinMatches: no match of a built-in pattern in
// the fixtures is shorter than its minLen, and each built-in pattern's
// minLen is what newPattern computes from its source.
func TestMinMatchLenHoldsForBuiltinMatches(t *testing.T) {
	msgs, _ := readMessages(t, fixtureDirs...)
	var texts [][]byte
	for _, raw := range msgs {
		texts = append(texts, normalize(nil, string(raw)))
	}
	for _, r := range builtin(t).rules {
		for _, p := range r.regexps {
			re := regexp.MustCompile("(?i)" + p.src)
			if q := newPattern(p.src, re); q.minLen != p.minLen {
				t.Fatalf("rule %s, pattern %q: minLen %d, newPattern gives %d", r.id, p.src, p.minLen, q.minLen)
			}
			for _, text := range texts {
				for _, m := range re.FindAllIndex(text, -1) {
					if m[1]-m[0] < p.minLen {
						t.Fatalf("rule %s, pattern %q: a match of %d bytes, minLen %d", r.id, p.src, m[1]-m[0], p.minLen)
					}
				}
			}
		}
	}
}
