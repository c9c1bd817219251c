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

// Languages are the languages the engine writes in: English, then every
// language whose translation is complete, by tag.
func (e *Engine) Languages() []language.Tag {
	var out []language.Tag
	for i, l := range translations() {
		if e.complete[i] {
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
			return slices.Clone(e.trProblems[i])
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
	for i := 1; i < len(ls); i++ {
		if ls[i].tag == tag && e.complete[i] {
			return i
		}
	}
	base, _ := tag.Base()
	for i := 1; i < len(ls); i++ {
		if b, _ := ls[i].tag.Base(); b == base && e.complete[i] {
			return i
		}
	}
	return 0
}
