package rules

import (
	"regexp/syntax"
	"slices"
	"testing"
)

// progOf compiles a parsed regexp to its program, written out.
func progOf(t *testing.T, re *syntax.Regexp) string {
	t.Helper()
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatalf("compile %s: %v", re, err)
	}
	return prog.String()
}

// TestRegexpSourceCompilesToTheSameProgram checks, over every pattern of
// the built-in rules (in the all-ASCII form asciiRegexp compiles) and
// patterns that use the constructs the rules do not, that regexpSource
// writes a regexp whose program is the one of the tree written.
func TestRegexpSourceCompilesToTheSameProgram(t *testing.T) {
	e := builtin(t)
	var srcs []string
	for _, r := range e.rules {
		for _, p := range r.regexps {
			srcs = append(srcs, p.src)
		}
	}
	for _, x := range e.extractors {
		for _, p := range x.regexps {
			srcs = append(srcs, p.src)
		}
	}
	if len(srcs) < 50 {
		t.Fatalf("%d patterns in the built-in rules, expected hundreds", len(srcs))
	}
	srcs = append(srcs, `^a.b$`, `(?s)a.b\z`, `(?m)^x$`, `a{2}b{3,}c{4,5}?d*?e+?f??`, `[^a-z\]\-\\]|\B[\x{1F600}-\x{1F64F}]`,
		`(?-i)AbC(?i)dÉf`, `(?:)|x`, `[^\x00-\x{10FFFF}]`, `(a)(?P<n>b)\.\*\$\^\{\}\(\)\|\?\+`)
	lowered := 0
	for _, src := range srcs {
		tree, err := syntax.Parse("(?i)"+src, syntax.Perl)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if lowerLiterals(tree) {
			lowered++
		}
		want := progOf(t, tree)
		written := regexpSource(tree)
		back, err := syntax.Parse(written, syntax.Perl)
		if err != nil {
			t.Fatalf("%q written as %q: %v", src, written, err)
		}
		if got := progOf(t, back); got != want {
			t.Errorf("%q written as %q: program\n%s\nexpected\n%s", src, written, got, want)
		}
		if !slices.Equal(back.CapNames(), tree.CapNames()) {
			t.Errorf("%q written as %q: groups %v, expected %v", src, written, back.CapNames(), tree.CapNames())
		}
	}
	if lowered == 0 {
		t.Error("no pattern has an all-ASCII form: the test compares nothing asciiRegexp compiles")
	}
}
