package rules

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/language"
)

// A notice written in two languages (a Japanese out-of-office with its
// English translation below, a German one with English, a Canadian one in
// English and French) says the same thing twice. Quoting its first
// sentences shows the reader only the first language, which they may not
// read. The rule: when the paragraphs of a notice are in more than one
// language, the quote is taken from the paragraphs in the reader's
// language (the language the explanation is written in); when the notice
// has none in it, from the English paragraphs, the language most such
// notices add for foreign readers; else from the first language. A notice
// in one language, or whose languages cannot be told, is quoted as it is.
// The language of a paragraph is told by its script (kana is Japanese, Han
// without kana Chinese, Hangul Korean) and, for Latin text, by the most
// frequent of a few common words of each language the product writes in:
// enough to tell the halves of a notice apart, which is all it is used for.

// A quoteLang is the base language of a paragraph ("en", "ja"), "" when it
// cannot be told.
type quoteLang string

// commonWords returns the frequent lower-case words of each Latin-script
// language, chosen to belong to one language only, by word. The map is made
// on first use: only a notice's quote needs it, and making it was half of
// the package's allocations at start (issue 14: start-up).
var commonWords = sync.OnceValue(func() map[string]quoteLang {
	m := map[string]quoteLang{}
	for lang, words := range map[quoteLang][]string{
		"en": {"the", "and", "i", "am", "you", "your", "my", "will", "is", "be", "with", "until", "please", "have",
			"out", "office", "back", "return", "this", "urgent", "matters", "from", "of", "to", "could", "not", "delivered", "message"},
		"de": {"ich", "und", "bin", "nicht", "mit", "bis", "bitte", "ihre", "meine", "im", "habe", "keinen", "zum", "auf",
			"sie", "wenden", "dringenden", "büro", "ist", "der", "die", "das", "nachricht", "konnte", "zugestellt", "werden", "wurde"},
		"fr": {"je", "suis", "et", "vous", "jusqu'au", "au", "mon", "mes", "pour", "avec", "une", "est", "les", "des", "du",
			"votre", "bureau", "absent", "absente", "veuillez", "message", "pas", "été", "n'a"},
		"es": {"y", "estoy", "hasta", "por", "para", "con", "su", "mi", "una", "los", "las", "del", "que", "usted",
			"oficina", "ausente", "mensaje", "no", "pudo", "ser", "entregado"},
	} {
		for _, w := range words {
			if _, dup := m[w]; dup {
				m[w] = "" // in two lists: no evidence
				continue
			}
			m[w] = lang
		}
	}
	return m
})

// paragraphLang returns the language of a paragraph, "" when it cannot be
// told (too few letters or common words).
func paragraphLang(s string) quoteLang {
	var latin, kana, han, hangul int
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case unicode.Is(unicode.Latin, r):
			latin++
		}
	}
	switch cjk := kana + han + hangul; {
	case cjk > latin/2 && kana > 0:
		return "ja"
	case cjk > latin/2 && hangul > han:
		return "ko"
	case cjk > latin/2 && han > 0:
		return "zh"
	}
	var counts = map[quoteLang]int{}
	common := commonWords()
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		if l := common[w]; l != "" {
			counts[l]++
		}
	}
	var best quoteLang
	top, second := 0, 0
	for l, n := range counts {
		switch {
		case n > top || n == top && l < best:
			if n > top {
				second = top
			}
			best, top = l, n
		case n > second:
			second = n
		}
	}
	if top < 2 || top == second {
		return ""
	}
	return best
}

// readerLang returns the base language of tag as paragraphLang writes it.
func readerLang(tag language.Tag) quoteLang {
	b, _ := tag.Base()
	return quoteLang(b.String())
}

// inQuoteLanguage returns, of the sentences of a notice, those of the
// paragraphs in the language to quote (see the rule above), or sentences
// itself when the notice is in one language. It filters in place.
func inQuoteLanguage(sentences []replySentence, reader quoteLang) []replySentence {
	if len(sentences) == 0 {
		return sentences
	}
	// The text of each paragraph, in order.
	var langs []quoteLang // by paragraph number, as far as the sentences go
	last := sentences[len(sentences)-1].paragraph
	if last > 4*maxStackSentences {
		return sentences // not a notice's paragraphs
	}
	langs = make([]quoteLang, last+1)
	var b strings.Builder
	for i := 0; i < len(sentences); {
		p := sentences[i].paragraph
		b.Reset()
		for ; i < len(sentences) && sentences[i].paragraph == p; i++ {
			b.WriteString(sentences[i].text)
			b.WriteByte(' ')
		}
		langs[p] = paragraphLang(b.String())
	}
	var first quoteLang
	seen := map[quoteLang]bool{}
	for _, l := range langs {
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		seen[l] = true
	}
	if len(seen) < 2 {
		return sentences
	}
	target := first
	switch {
	case seen[reader]:
		target = reader
	case seen["en"]:
		target = "en"
	}
	n := 0
	for _, s := range sentences {
		if langs[s.paragraph] == target {
			sentences[n] = s
			n++
		}
	}
	return sentences[:n]
}
