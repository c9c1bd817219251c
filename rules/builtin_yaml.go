//go:build rulesyaml

package rules

import (
	_ "embed"
)

// builtinRules is rules.yaml, embedded in the builds that generate
// builtin_gen.go from it.
//
//go:embed rules.yaml
var builtinRules []byte

// builtinSet is rules.yaml compiled at start. The tests of the default build
// check that it compiles; this build exists to regenerate builtin_gen.go.
var builtinSet = func() *ruleSet {
	set, err := compileBuiltin(builtinRules)
	if err != nil {
		panic("rules: the built-in rules.yaml does not compile: " + err.Error())
	}
	return set
}()

var builtinDigest = digestOf(builtinRules)

// builtinTrie is nil in this build: the phrase automaton's trie is built
// from builtinSet.phrases on first use.
var builtinTrie *trie
