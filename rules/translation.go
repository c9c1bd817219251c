package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// trFile is a translation file (i18n/TAG.yaml): the words of rules.yaml in
// another language, under the same keys; rules are keyed by id.
type trFile struct {
	Texts   map[string]string  `yaml:"texts"`
	Reasons map[Reason]trWords `yaml:"reasons"`
	Rules   map[string]trWords `yaml:"rules"`
}

// trWords are the translated words of a reason or a rule.
type trWords struct {
	trLeaf `yaml:",inline"`
	Stages map[string]trLeaf `yaml:"stages"`
	Facts  map[string]trLeaf `yaml:"facts"`
}

// trLeaf are the translated words of a reason, a rule, a stage or a fact.
type trLeaf struct {
	Summary     string   `yaml:"summary"`
	Explanation textList `yaml:"explanation"`
	Fix         textList `yaml:"fix"`
}

// decodeTranslation reads a translation file strictly: unknown keys are
// errors.
func decodeTranslation(data []byte) (*trFile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	f := &trFile{}
	if err := dec.Decode(f); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return f, nil
}

// translator attaches the translations of one language to the built-in
// words as Load compiles them, and notes what is missing or wrong.
type translator struct {
	lang     int
	tr       *trFile
	problems []string
	// seen are the reasons and rules of the translation that rules.yaml
	// has, so that the others can be reported.
	seenReasons map[Reason]bool
	seenRules   map[string]bool
}

func (t *translator) problem(key, format string, args ...any) {
	t.problems = append(t.problems, key+": "+fmt.Sprintf(format, args...))
}

func (t *translator) missing(key string) {
	t.problems = append(t.problems, key+": missing")
}

// newTranslators returns a translator per language of the built-in
// translations, index 0 (English) left nil.
func newTranslators() []*translator {
	ls := translations()
	out := make([]*translator, len(ls))
	for i := 1; i < len(ls); i++ {
		t := &translator{lang: i, tr: ls[i].tr, seenReasons: map[Reason]bool{}, seenRules: map[string]bool{}}
		if t.tr == nil {
			t.problems = append(t.problems, ls[i].file+": cannot be read: "+ls[i].err)
			t.tr = &trFile{}
		}
		out[i] = t
	}
	return out
}

// reason attaches the translation of the built-in reason name to rd.
func (t *translator) reason(name Reason, rd *reasonDef) {
	tw, ok := t.tr.Reasons[name]
	if ok {
		t.seenReasons[name] = true
	}
	t.words("reasons/"+string(name), &rd.words, rd.stages, rd.byFact, tw)
}

// rule attaches the translation of a built-in rule.
func (t *translator) rule(r *rule) {
	tw, ok := t.tr.Rules[r.id]
	if ok {
		t.seenRules[r.id] = true
	}
	t.words("rules/"+r.id, &r.then.words, r.then.stages, r.then.byFact, tw)
}

func (t *translator) words(key string, w *words, stages, byFact keyedWords, tw trWords) {
	t.leaf(key, w, tw.trLeaf, 0)
	for i := range numStages {
		k := stageKeys[i]
		l, ok := tw.Stages[k]
		sw := stages.ref(i)
		if sw == nil && !ok {
			continue
		}
		if sw == nil {
			t.problem(key+"/stages/"+k, "rules.yaml has no words for this stage")
			continue
		}
		t.leaf(key+"/stages/"+k, sw, l, 0)
	}
	for k := range tw.Stages {
		if _, ok := stageKeyIndex(k); !ok {
			t.problem(key+"/stages/"+k, "not a stage")
		}
	}
	for i := range numFacts {
		k := string(facts[i])
		l, ok := tw.Facts[k]
		fw := byFact.ref(i)
		if fw == nil && !ok {
			continue
		}
		if fw == nil {
			t.problem(key+"/facts/"+k, "rules.yaml has no words for this fact")
			continue
		}
		t.leaf(key+"/facts/"+k, fw, l, setOf(slotFact0+slot(i)))
	}
	for k := range tw.Facts {
		if _, ok := factIndex(k); !ok {
			t.problem(key+"/facts/"+k, "not a fact")
		}
	}
}

// leaf attaches a summary, an explanation and a fix.
func (t *translator) leaf(key string, w *words, l trLeaf, given slotSet) {
	switch {
	case w.summary.en == "" && l.Summary != "":
		t.problem(key+"/summary", "rules.yaml has no summary here")
	case w.summary.en == "":
	case l.Summary == "":
		t.missing(key + "/summary")
	default:
		if err := checkTranslated(l.Summary); err != nil {
			t.problem(key+"/summary", "%v", err)
		} else if strings.ContainsAny(l.Summary, "{}[]") {
			t.problem(key+"/summary", "a summary has no placeholders or optional parts")
		} else {
			if len(*w.summary.tr) == 0 {
				*w.summary.tr = make([]string, len(translations()))
			}
			(*w.summary.tr)[t.lang] = l.Summary
		}
	}
	t.alts(key+"/explanation", &w.explanation, l.Explanation)
	t.alts(key+"/fix", &w.fix, l.Fix)
}

// alts attaches the translated alternatives of an explanation or a fix.
func (t *translator) alts(key string, a *alts, src textList) {
	if a.empty() {
		if len(src) > 0 {
			t.problem(key, "rules.yaml has none here")
		}
		return
	}
	if len(src) == 0 || slices.Contains(src, "") {
		t.missing(key)
		return
	}
	if len(src) != len(a.list) {
		t.problem(key, "%d alternatives, rules.yaml has %d: translate each, in the same order", len(src), len(a.list))
		return
	}
	list := make([]text, len(src))
	for i, s := range src {
		where := key
		if len(src) > 1 {
			where = fmt.Sprintf("%s/%d", key, i+1)
		}
		tt, err := compileTranslated(s, ruleSlots)
		if err != nil {
			t.problem(where, "%v", err)
			return
		}
		en := a.list[i]
		if tt.needs() != en.needs() || tt.uses() != en.uses() {
			t.problem(where, "placeholders %s (outside [...]: %s); rules.yaml has %s (outside [...]: %s)",
				tt.uses(), tt.needs(), en.uses(), en.needs())
			return
		}
		list[i] = tt
	}
	if len(*a.tr) == 0 {
		*a.tr = make([][]text, len(translations()))
	}
	(*a.tr)[t.lang] = list
}

// texts returns the fixed texts in the translator's language: the
// translation of each text the built-in file gave, the text of the local
// file that gave it otherwise.
func (t *translator) texts(en *[numTexts]text, from [numTexts]string) *[numTexts]text {
	out := *en
	for k, d := range textDefs {
		s, ok := t.tr.Texts[d.name]
		if from[k] != BuiltinName {
			continue
		}
		if !ok || s == "" {
			t.missing("texts/" + d.name)
			continue
		}
		tt, err := compileTranslated(s, d.slots)
		if err != nil {
			t.problem("texts/"+d.name, "%v", err)
			continue
		}
		if tt.needs() != en[k].needs() || tt.uses() != en[k].uses() {
			t.problem("texts/"+d.name, "placeholders %s (outside [...]: %s); rules.yaml has %s (outside [...]: %s)",
				tt.uses(), tt.needs(), en[k].uses(), en[k].needs())
			continue
		}
		out[k] = tt
	}
	for name := range t.tr.Texts {
		if _, ok := textKeyOf(name); !ok {
			t.problem("texts/"+name, "not a text of rules.yaml")
		}
	}
	return &out
}

// finish reports the reasons and rules of the translation that rules.yaml
// does not have, and returns every problem, sorted.
func (t *translator) finish() []string {
	for name := range t.tr.Reasons {
		if !t.seenReasons[name] {
			t.problem("reasons/"+string(name), "not a reason of rules.yaml")
		}
	}
	for id := range t.tr.Rules {
		if !t.seenRules[id] {
			t.problem("rules/"+id, "not a rule of rules.yaml")
		}
	}
	slices.Sort(t.problems)
	return t.problems
}

// compileTranslated compiles a translated template: printable UTF-8, with
// the syntax of the English templates.
func compileTranslated(s string, allowed slotSet) (text, error) {
	if err := checkTranslated(s); err != nil {
		return nil, err
	}
	return parseText(s, allowed)
}

// checkTranslated says what is wrong with a translated text: invalid UTF-8,
// or a character that has no place in one line of text (controls, line and
// paragraph separators, bidirectional formatting).
func checkTranslated(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return fmt.Errorf("character %U: no control, line-breaking or bidirectional formatting characters", r)
		}
	}
	if strings.TrimSpace(s) != s {
		return errors.New("white space at the start or the end")
	}
	return nil
}
