package rules

import (
	"fmt"
	"os"
	"slices"
)

// BuiltinName is the name the built-in rules file goes by in error messages.
const BuiltinName = "rules.yaml (built-in)"

// ruleSet is rules files compiled: what Load makes of the files it is
// given, and what builtin_gen.go holds of the built-in rules.yaml, so that
// the binary starts without reading YAML or compiling a rule (issue 14).
type ruleSet struct {
	rules      []*rule
	reasons    map[Reason]*reasonDef
	extractors []*extractor
	texts      [numTexts]text // nil where no file gives the text
	// textsFrom names the file each text came from ("" where none gives
	// it): only the built-in file's texts have translations.
	textsFrom [numTexts]string
	// phrases are the phrases of every rule and extractor, normalized, by
	// id (the ids in the rules' masks).
	phrases []string
	// textFree are the rules that require no phrase, by status class.
	textFree textFreeIndex
}

// builtinPhrases is the phrase set of the built-in rules alone, shared by
// the engines Load makes without local files: its automaton is made once
// per process, whatever the number of reloads, from the trie go generate
// built (builtinTrie), so that only its table of transitions is made at
// run time.
var builtinPhrases = &phraseSet{phrases: builtinSet.phrases, trie: builtinTrie}

// Load returns an Engine with the rules of the given files, in order, followed
// by the built-in rules. First match wins, so local rules override built-in ones.
// Every file is validated: unknown keys, reasons outside the vocabulary, bad
// owners, malformed codes and texts are errors that name the file and the
// rule; the texts of all files together must give every text the engine
// writes. A reason given by several files takes each of its fields from the
// first file that gives it.
//
// The built-in rules are compiled into the binary (builtin_gen.go, made by
// go generate from rules.yaml): Load without files reads no file and parses
// nothing.
func Load(files ...string) (*Engine, error) {
	if len(files) == 0 {
		return newEngine(builtinSet, builtinPhrases), nil
	}
	var srcs []source
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("rules: %v", err)
		}
		srcs = append(srcs, source{f, data})
	}
	local, err := compileSources(srcs, builtinSet.phrases)
	if err != nil {
		return nil, fmt.Errorf("rules: %v", err)
	}
	set := local.before(builtinSet)
	if err := missingTexts(&set.texts); err != nil {
		return nil, fmt.Errorf("rules: %v", err)
	}
	return newEngine(set, newPhraseSet(set.phrases)), nil
}

// newEngine returns the Engine of a complete rule set.
func newEngine(set *ruleSet, phrases *phraseSet) *Engine {
	e := &Engine{rules: set.rules, textFree: &set.textFree, reasons: set.reasons, extractors: set.extractors,
		texts: &set.texts, textsFrom: set.textsFrom, phraseList: set.phrases, phrases: phrases}
	words := phrases.words()
	e.scratch.New = func() any {
		return &scratch{text: make([]byte, 0, 512), orig: make([]byte, 0, 512), hits: make([]uint64, words)}
	}
	return e
}

// source is a rules file: its name in errors, and its content.
type source struct {
	name string
	data []byte
}

// compileSources validates and compiles rules files, in order: their rules
// and extractors in that order, each reason and text from the first file
// that gives it. The phrases of the set start with known, in order, so that
// the ids of a rule set compiled with them stay valid in the result.
func compileSources(srcs []source, known []string) (*ruleSet, error) {
	set := &ruleSet{reasons: map[Reason]*reasonDef{}}
	table := &phraseTable{ids: make(map[string]int32, len(known)), list: slices.Clone(known)}
	for i, p := range known {
		table.ids[p] = int32(i)
	}
	ids := map[string]string{}
	extractorIDs := map[string]string{}
	var texts []namedTexts
	for _, src := range srcs {
		f, ruleLines, extractorLines, err := decodeFile(src.name, src.data)
		if err != nil {
			return nil, err
		}
		texts = append(texts, namedTexts{src.name, f.Texts})
		names := make([]Reason, 0, len(f.Reasons))
		for name := range f.Reasons {
			names = append(names, name)
		}
		slices.Sort(names) // errors in a stable order
		for _, name := range names {
			rd, err := compileReason(src.name, name, f.Reasons[name])
			if err != nil {
				return nil, err
			}
			have := set.reasons[name]
			if have == nil {
				have = &reasonDef{}
				set.reasons[name] = have
			}
			have.fill(rd) // an earlier file's fields win, like rules
		}
		for i, xs := range f.Extractors {
			x, err := compileExtractor(src.name, i, lineOf(extractorLines, i), xs, table)
			if err != nil {
				return nil, err
			}
			if prev, dup := extractorIDs[x.id]; dup && prev == src.name {
				return nil, fmt.Errorf("%s: extractor %d: id %q is used twice in the file", src.name, i+1, x.id)
			}
			extractorIDs[x.id] = src.name
			set.extractors = append(set.extractors, x)
		}
		for i, rs := range f.Rules {
			r, err := compileRule(src.name, i, lineOf(ruleLines, i), rs, table)
			if err != nil {
				return nil, err
			}
			if prev, dup := ids[r.id]; dup && prev == src.name {
				return nil, fmt.Errorf("%s: rule %d: id %q is used twice in the file", src.name, i+1, r.id)
			}
			ids[r.id] = src.name
			set.rules = append(set.rules, r)
		}
	}
	t, from, err := compileTexts(texts)
	if err != nil {
		return nil, err
	}
	set.texts, set.textsFrom = *t, from
	set.phrases = table.list
	set.textFree = newTextFreeIndex(set.rules)
	return set, nil
}

// before returns the rule set of the files of s followed by those of
// base: s's rules and extractors first, each reason's field and each text
// from s when s gives it. s's phrases must start with base's (compileSources
// with base.phrases), so that base's rules keep their phrase ids. Neither
// s nor base is changed.
func (s *ruleSet) before(base *ruleSet) *ruleSet {
	m := &ruleSet{
		rules:      append(slices.Clip(s.rules), base.rules...),
		extractors: append(slices.Clip(s.extractors), base.extractors...),
		reasons:    make(map[Reason]*reasonDef, len(base.reasons)),
		texts:      s.texts,
		textsFrom:  s.textsFrom,
		phrases:    s.phrases,
	}
	for name, rd := range s.reasons {
		c := *rd
		m.reasons[name] = &c
	}
	for name, rd := range base.reasons {
		have := m.reasons[name]
		if have == nil {
			have = &reasonDef{}
			m.reasons[name] = have
		}
		have.fill(*rd)
	}
	for k := range m.texts {
		if m.texts[k] == nil {
			m.texts[k], m.textsFrom[k] = base.texts[k], base.textsFrom[k]
		}
	}
	m.textFree = newTextFreeIndex(m.rules)
	return m
}
