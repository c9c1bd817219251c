package rules

// The built-in rules are rules.yaml compiled at build time: go generate
// compiles it as Load compiles a local file and writes the result as Go
// tables into builtin_gen.go, so that a binary starts without parsing YAML,
// compiling a regexp or building the phrase automaton's trie (builtinTrie)
// or the index of the rules that need no phrase (issue 14: start-up).
// TestBuiltinGenerated fails when rules.yaml changed and builtin_gen.go was
// not regenerated; TestBuiltinEqualsRulesYAML checks that the tables are
// what compiling rules.yaml gives, TestBuiltinTrieEqualsBuilt that the trie
// is what newTrie builds from its phrases.
//
// Built with the tag rulesyaml (as go generate builds it), the package
// compiles the embedded rules.yaml at start instead (builtin_yaml.go): the
// generator then runs even when builtin_gen.go no longer compiles, after a
// change to the engine's types.

//go:generate go test -count=1 -tags rulesyaml -run ^TestBuiltinGenerated$ . -update

// compileBuiltin validates and compiles the built-in rules file.
func compileBuiltin(data []byte) (*ruleSet, error) {
	set, err := compileSources([]source{{BuiltinName, data}}, nil)
	if err != nil {
		return nil, err
	}
	if err := missingTexts(&set.texts); err != nil {
		return nil, err
	}
	return set, nil
}
