package rules

import (
	"embed"
	"path"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// The languages of the words. rules.yaml is written in English, the
// reference; i18n/TAG.yaml translates its texts, reasons and rules into the
// language TAG (a BCP 47 tag such as de or pt-BR). The rules engine reads a
// record once, whatever the language (Classify decides the reason, the owner,
// the facts and which sentences apply); only the writing of the sentences
// takes a language (ClassifyIn, ExplainIn, LookupIn), so that an engine used
// in English renders nothing else, and one used in German renders German
// only.
//
// A translation gives, under the same keys as rules.yaml, the summary,
// explanation and fix of each reason, of each rule (by id) and of their
// stages and facts, and every text:
//
//	texts:
//	  delayed_fix: "Noch nichts zu tun: ..."
//	reasons:
//	  userunknown:
//	    summary: Adresse existiert nicht
//	    explanation: "Die Nachricht[ an {recipient}] wurde ... abgelehnt, ..."
//	    fix: ...
//	    stages: {connection: {summary: ..., explanation: ..., fix: ...}}
//	    facts: {no_mx: {...}}
//	rules:
//	  ms-5.7.509:
//	    summary: ...
//
// Each text keeps the placeholders of the English one and may move them, and
// an explanation or fix keeps its alternatives: as many, in the same order,
// each needing the same values (placeholders outside [...]), so that the
// same alternative is chosen in every language. Translations may be any
// printable UTF-8; package decide encodes header values (RFC 2047).
//
// A language is offered (Engine.Languages) only when its file translates
// every text of rules.yaml and every text is well formed; a language that
// is not complete is not used at all, so that a reader never gets half of
// an explanation in English. Engine.TranslationProblems says what is
// missing or wrong. A text that a local rules file gives (a rule of its
// own, a reason's field, a text) is written as that file writes it, in
// every language: the translations are those of the built-in texts.

//go:embed i18n/*.yaml
var builtinTranslations embed.FS

// translationDir is where the translations are, as the repository has them.
const translationDir = "rules/i18n"

// trLanguage is one language of the built-in translations: its tag, its
// file, and the file as read.
type trLanguage struct {
	tag  language.Tag
	file string  // "rules/i18n/de.yaml"
	tr   *trFile // nil when the file could not be read
	err  string  // why it could not
}

var (
	trOnce  sync.Once
	trLangs []trLanguage // index 0 is English, rules.yaml itself
)

// translations returns the languages of the built-in translations, English
// first, then by tag; the position of a language is its index in the
// engine's tables.
func translations() []trLanguage {
	trOnce.Do(func() {
		trLangs = []trLanguage{{tag: language.English, file: "rules/rules.yaml"}}
		names, _ := builtinTranslations.ReadDir("i18n")
		for _, n := range names {
			name := n.Name()
			if !strings.HasSuffix(name, ".yaml") {
				continue
			}
			l := trLanguage{file: path.Join(translationDir, name)}
			tag, err := language.Parse(strings.TrimSuffix(name, ".yaml"))
			if err != nil || tag == language.English {
				continue // the tests of the translations name such a file
			}
			l.tag = tag
			data, err := builtinTranslations.ReadFile("i18n/" + name)
			if err == nil {
				l.tr, err = decodeTranslation(data)
			}
			if err != nil {
				l.err = err.Error()
			}
			trLangs = append(trLangs, l)
		}
		slices.SortStableFunc(trLangs[1:], func(a, b trLanguage) int { return strings.Compare(a.tag.String(), b.tag.String()) })
	})
	return trLangs
}

// engineTranslations are the engine's words in the other languages, by language
// index (translations()).
type engineTranslations struct {
	texts    []*[numTexts]text // [0] is English
	complete []bool            // the translation is complete
	problems [][]string        // what keeps it from being complete
}

// builtinTranslated are the translations of the built-in rules, attached
// once per process to the words of builtinSet (the compiled-in rules.yaml):
// every Engine shares those words (phrase, alts: pointers), so they are
// written once, before any reader in another language reads them
// (sync.Once), and English readers never read them. Load does not attach
// them, so that an engine used in English only (most command lines, a milter
// configured in English) pays nothing for them at start.
var builtinTranslated = sync.OnceValue(func() *engineTranslations {
	trs := newTranslators()
	names := make([]Reason, 0, len(builtinSet.reasons))
	for name := range builtinSet.reasons {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, t := range trs[1:] {
		for _, name := range names {
			t.reason(name, builtinSet.reasons[name])
		}
		for _, r := range builtinSet.rules {
			t.rule(r)
		}
	}
	tr := &engineTranslations{
		texts:    make([]*[numTexts]text, len(trs)),
		complete: make([]bool, len(trs)),
		problems: make([][]string, len(trs)),
	}
	tr.texts[0], tr.complete[0] = &builtinSet.texts, true
	for i, t := range trs[1:] {
		tr.texts[i+1] = t.texts(&builtinSet.texts, builtinSet.textsFrom)
		tr.problems[i+1] = t.finish()
		tr.complete[i+1] = len(tr.problems[i+1]) == 0
	}
	return tr
})

// translated returns the engine's translations: the built-in ones, with
// the fixed texts a local rules file gives kept in its own words (English:
// a local file has no translation).
func (e *Engine) translated() *engineTranslations {
	e.trOnce.Do(func() {
		b := builtinTranslated()
		tr := &engineTranslations{texts: make([]*[numTexts]text, len(b.texts)), complete: b.complete, problems: b.problems}
		tr.texts[0] = e.texts
		for i := 1; i < len(b.texts); i++ {
			t := *b.texts[i]
			for k := range t {
				if e.textsFrom[k] != BuiltinName {
					t[k] = e.texts[k]
				}
			}
			tr.texts[i] = &t
		}
		e.tr = tr
	})
	return e.tr
}

// textsFor returns the fixed texts in language lang (an index langIndex
// gave).
func (e *Engine) textsFor(lang int) *[numTexts]text {
	if lang == 0 {
		return e.texts
	}
	return e.translated().texts[lang]
}

// Languages are the languages the engine writes in: English, then every
// language whose translation is complete, by tag.
func (e *Engine) Languages() []language.Tag {
	var out []language.Tag
	tr := e.translated()
	for i, l := range translations() {
		if tr.complete[i] {
			out = append(out, l.tag)
		}
	}
	return out
}

// TranslationProblems lists what keeps the built-in translation into tag
// from being used: each text missing (the key, as "reasons/userunknown/fix"),
// and each text that is wrong (other placeholders or alternatives than the
// English one, control characters, a key rules.yaml does not have). It is
// empty for English and for a complete translation; for a language without
// a translation it says so.
func (e *Engine) TranslationProblems(tag language.Tag) []string {
	if tag == language.English {
		return nil
	}
	for i, l := range translations() {
		if l.tag == tag {
			return slices.Clone(e.translated().problems[i])
		}
	}
	return []string{"no translation: " + translationDir + "/" + tag.String() + ".yaml does not exist"}
}

// langIndex returns the index of the language the engine writes for tag: the
// complete language with the same tag, else one with the same base language
// (de-CH is written in de), else English (0).
func (e *Engine) langIndex(tag language.Tag) int {
	if tag == language.English || tag == language.Und {
		return 0
	}
	ls := translations()
	complete := e.translated().complete
	for i := 1; i < len(ls); i++ {
		if ls[i].tag == tag && complete[i] {
			return i
		}
	}
	base, _ := tag.Base()
	for i := 1; i < len(ls); i++ {
		if b, _ := ls[i].tag.Base(); b == base && complete[i] {
			return i
		}
	}
	return 0
}

// readerLang returns the base language of the language index lang (a
// langIndex), as the quotes of a notice in two languages choose it.
func (e *Engine) readerLang(lang int) quoteLang {
	if lang <= 0 {
		// English, without loading the translations (issue 14: an
		// English reader's explain does not read them).
		return "en"
	}
	ls := translations()
	if lang >= len(ls) {
		return "en"
	}
	return readerLang(ls[lang].tag)
}
