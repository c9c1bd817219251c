package rules

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// TestLiteralFilterOfPatterns: the filter names what every match must
// contain, from the literals of the regexp, alternations and optional
// parts included.
func TestLiteralFilterOfPatterns(t *testing.T) {
	cases := []struct{ src, want string }{
		{`blocked using (?P<list>[a-z0-9-]+)`, "blocked using "},
		{`Mail Loop`, "mail loop"},
		{`(?:your|the) ip(?:v[46])? address`, "the ip address|the ipv4 address|the ipv6 address|your ip address|your ipv4 address|your ipv6 address"},
		{`listed (?:at|in)(?: the)? (?P<list>\S+)`, "listed at |listed in "},
		{`(?:connection refused|timed out) by`, "connection refused by|timed out by"},
		{`client \[(?P<ip>[0-9.]+)\]`, "client [ & 0|1|2|3|4|5|6|7|8|9|. & ]"},
		{`n=(?P<file>\S+\.[a-z]{2,5})`, "n= & ."},
		{`^[^a-z]+$`, ""},  // no literal
		{`(?:a|b*)c`, "c"}, // a branch that may be empty requires nothing
		{`x+y{2,}z*`, "x & y"},
		// Beyond ASCII: a character as its UTF-8 bytes, in every case
		// (?i) gives it; U+FFFD, which an invalid byte matches, gives
		// nothing.
		{`添付ファイル(?:名)?:`, "添付ファイル:|添付ファイル名:"},
		{`pièce jointe`, "pièce jointe|piÈce jointe"},
		{`[「"]x`, "「x|\"x"},
		{`a\x{FFFD}b`, ""},
	}
	for _, c := range cases {
		if got := newLiteralFilter(c.src).String(); !sameSets(got, c.want) {
			t.Errorf("filter of %q = %q, want %q", c.src, got, c.want)
		}
	}
}

// sameSets compares two filters as written by String, ignoring the order of
// the sets and of their members.
func sameSets(a, b string) bool {
	norm := func(s string) map[string]bool {
		m := map[string]bool{}
		if s == "" {
			return m
		}
		for _, set := range strings.Split(s, " & ") {
			members := strings.Split(set, "|")
			m[strings.Join(sortedCopy(members), "|")] = true
		}
		return m
	}
	ma, mb := norm(a), norm(b)
	if len(ma) != len(mb) {
		return false
	}
	for k := range ma {
		if !mb[k] {
			return false
		}
	}
	return true
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return c
}

// TestLiteralFilterKeepsEveryMatch: no text that a built-in pattern
// matches is filtered out, and find, run from the first leading literal,
// gives the match of the regexp over the whole text. The texts are strings generated from each
// pattern's own syntax (so that they match), set in other words, and the
// diagnostics of the repository's bounce fixtures.
func TestLiteralFilterKeepsEveryMatch(t *testing.T) {
	e := builtin(t)
	var pats []*pattern
	for _, r := range e.rules {
		pats = append(pats, r.regexps...)
	}
	for _, x := range e.extractors {
		pats = append(pats, x.regexps...)
	}
	texts := fixtureTexts(t)
	rng := rand.New(rand.NewPCG(1, 2))
	matched := 0
	for _, p := range pats {
		re := p.regexp()
		tree, err := syntax.Parse("(?i)"+p.src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		check := func(text []byte) {
			text = normalize(nil, string(text))
			want := re.FindSubmatchIndex(text)
			tc := classOfText(text)
			if got := p.find(text, tc); !slices.Equal(got, want) {
				t.Errorf("pattern %q in %q: find = %v, the regexp over the whole text %v", p.src, text, got, want)
			}
			if got := p.match(text, tc); got != (want != nil) {
				t.Errorf("pattern %q in %q: match = %t, the regexp over the whole text %t", p.src, text, got, want != nil)
			}
			// With the text's pairSet, made by the first filter.
			var ps pairSet
			if got := p.findIn(text, tc, &ps); !slices.Equal(got, want) {
				t.Errorf("pattern %q in %q: findIn = %v, the regexp over the whole text %v", p.src, text, got, want)
			}
			if got := p.matchIn(text, tc, &ps); got != (want != nil) {
				t.Errorf("pattern %q in %q: matchIn = %t, the regexp over the whole text %t", p.src, text, got, want != nil)
			}
			if want == nil {
				return
			}
			matched++
			if p.literalsHold(tc) && !p.filter.allows(text, nil) {
				t.Errorf("pattern %q matches %q but its filter (%s) rejects it", p.src, text, p.filter)
			}
			if q := p.forASCII; q != nil && tc == textASCII && !q.filter.allows(text, nil) {
				t.Errorf("pattern %q matches %q but its filter for ASCII texts (%s) rejects it", p.src, text, q.filter)
			}
		}
		for i := 0; i < 200; i++ {
			var b strings.Builder
			switch i % 4 {
			case 1:
				b.WriteString("550 5.7.1 the server said: ")
			case 2:
				b.WriteString("550 x") // a word character right before: \b does not hold
			}
			generate(&b, tree, rng)
			if i%3 == 1 {
				b.WriteString(" please see the page.")
			}
			check([]byte(b.String()))
			// Long texts, so that bounded patterns run over windows:
			// the match far from the start, after near misses (the
			// start of another match), beside characters beyond ASCII
			// (a character cut by a window's start), and twice.
			var long strings.Builder
			filler := [...]string{"x", "\u00e9t\u00e9 ", "\u65e5\u672c\u8a9e ", "\xff\x80 "}[i%4]
			for long.Len() < 600 {
				long.WriteString(filler)
				if long.Len()%7 == 0 {
					generateStart(&long, tree, rng)
				}
			}
			prefix := long.String()
			check([]byte(prefix + b.String()))
			check([]byte(prefix + b.String() + prefix + b.String()))
			check([]byte(b.String() + prefix))
			check([]byte(prefix + "\u212a " + b.String())) // (?i)k matches the Kelvin sign
		}
		for _, text := range texts {
			check(text)
		}
	}
	if matched < 10*len(pats) {
		t.Fatalf("only %d matching texts for %d patterns: the generator is broken", matched, len(pats))
	}
}

// TestLiteralFilterSkippedOnNonASCII: a text with a byte above 0x7f is
// given to the regexp unfiltered, since (?i) folds non-ASCII letters onto
// ASCII ones (the Kelvin sign K onto k).
func TestLiteralFilterSkippedOnNonASCII(t *testing.T) {
	re := regexp.MustCompile("(?i)mask")
	p := newPattern("mask", re)
	text := normalize(nil, "MAS\u212a")
	if !p.match(text, classOfText(text)) {
		t.Fatalf("pattern mask does not match %q", text)
	}
	if p.match([]byte("mas"), textASCII) {
		t.Fatalf("pattern mask matches mas")
	}
}

// fixtureTexts returns the diagnostics of the repository's bounce fixtures.
func fixtureTexts(t *testing.T) [][]byte {
	var out [][]byte
	for _, in := range recordInputs(t, fixtureDirs) {
		out = append(out, []byte(in.Diagnostic))
	}
	if len(out) == 0 {
		t.Fatal("no fixture diagnostics")
	}
	return out
}

// recordInputs returns the Input of every recipient record of the .eml
// files in dirs (a directory that is missing gives none).
func recordInputs(t *testing.T, dirs []string) []Input {
	t.Helper()
	var inputs []Input
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := dsn.Parse(raw)
			if r == nil {
				continue
			}
			for _, rc := range r.Recipients {
				inputs = append(inputs, InputOf(r, rc))
			}
		}
	}
	return inputs
}

// generate writes a random string that re matches (as far as its
// empty-width assertions allow: the caller checks), in lower case.
func generate(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(unicode.ToLower(r))
		}
	case syntax.OpCharClass:
		var members []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < 0x80; r++ {
				if r >= ' ' && !('A' <= r && r <= 'Z') {
					members = append(members, r)
				}
			}
		}
		if len(members) == 0 {
			b.WriteRune(re.Rune[0])
			return
		}
		b.WriteRune(members[rng.IntN(len(members))])
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("ab .-9"[rng.IntN(6)])
	case syntax.OpCapture:
		generate(b, re.Sub[0], rng)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			generate(b, s, rng)
		}
	case syntax.OpAlternate:
		generate(b, re.Sub[rng.IntN(len(re.Sub))], rng)
	case syntax.OpQuest:
		if rng.IntN(2) == 0 {
			generate(b, re.Sub[0], rng)
		}
	case syntax.OpStar, syntax.OpPlus:
		n := rng.IntN(4)
		if re.Op == syntax.OpPlus {
			n++
		}
		for i := 0; i < n; i++ {
			generate(b, re.Sub[0], rng)
		}
	case syntax.OpRepeat:
		hi := re.Max
		if hi < 0 || hi > re.Min+3 {
			hi = re.Min + 3
		}
		n := re.Min + rng.IntN(hi-re.Min+1)
		for i := 0; i < n; i++ {
			generate(b, re.Sub[0], rng)
		}
	}
}

// generateStart writes the start of a string that re matches: all but the
// last part of a concatenation, so that a text holds the literals of a
// pattern without a match.
func generateStart(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpConcat && len(re.Sub) > 1 {
		for _, s := range re.Sub[:len(re.Sub)-1] {
			generate(b, s, rng)
		}
		return
	}
	generate(b, re, rng)
}

// FuzzPatternFind: over any text, every built-in pattern finds with its
// filter, its leading literals and its lower-case regexp what its (?i)
// regexp finds over the whole normalized text.
func FuzzPatternFind(f *testing.F) {
	e := builtin(f)
	var pats []*pattern
	for _, r := range e.rules {
		pats = append(pats, r.regexps...)
	}
	for _, x := range e.extractors {
		pats = append(pats, x.regexps...)
	}
	f.Add("554 5.7.1 Client host [203.0.113.7] blocked using zen.spamhaus.org; contact postmaster@x.example")
	f.Add("xouk9_418 aup#1000 MAS\u212a connect to mx.example.net: Connection timed out")
	f.Add("message too big: read=26214400 max=15728640 virus 'Troj/X-1' in attachment 'a b.docm'")
	f.Add("添付ファイル名:「請求書.exe」 メッセージサイズ 2048 KB を超え PIÈCE JOINTE: a.scr")
	f.Fuzz(func(t *testing.T, diag string) {
		text := normalize(nil, diag)
		tc := classOfText(text)
		var ps pairSet
		for _, p := range pats {
			want := p.regexp().FindSubmatchIndex(text)
			if got := p.find(text, tc); !slices.Equal(got, want) {
				t.Fatalf("pattern %q in %q: find = %v, the regexp over the whole text %v", p.src, text, got, want)
			}
			if got := p.findIn(text, tc, &ps); !slices.Equal(got, want) {
				t.Fatalf("pattern %q in %q: findIn = %v, the regexp over the whole text %v", p.src, text, got, want)
			}
		}
	})
}

// TestLeadingLiteralsRunOn: the literals a match starts with run on over
// the exact parts that follow while they are short ("e" of "e-?mail"
// becomes "email" and "e-mail"), over an optional first part, and stop at
// a part that would multiply long ones.
func TestLeadingLiteralsRunOn(t *testing.T) {
	cases := []struct{ src, want string }{
		{`e-?mail to`, "e-mail to|email to"},
		{`(?:contact|e-?mail) us`, "contact us|e-mail us|email us"},
		{`(?:size )?(?:limit|max)\b`, "limit|max|size limit|size max"},
		{`delivery failed \d+ attempts`, "delivery failed "},
		{`\b(urlbl011|urlbl101|urlbl110)\b`, "urlbl"},
		{`\b(?:lpn|lpnaaa|ofr|ouk)[0-9]*`, "lpn|ofr|ouk"},
		{`[^a-z]+x`, ""},
	}
	for _, c := range cases {
		tree, err := syntax.Parse("(?i)"+c.src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(leadingLiterals(tree), "|"); got != c.want {
			t.Errorf("leading literals of %q = %q, want %q", c.src, got, c.want)
		}
	}
}
