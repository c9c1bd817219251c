package catalog

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/language"
)

// Telling the language of a message: golang.org/x/text has no detector, and
// what ndrmilter needs is small, so it is done here in the open.
//
// Detect tells the languages ndrmilter writes (English, German, French,
// Spanish, Japanese) apart, and says nothing about others:
//
//   - Japanese by its script: Japanese is the only one of them written in
//     kana (hiragana U+3040-309F, katakana U+30A0-30FF), which ordinary
//     Japanese text has in nearly every sentence. Han ideographs alone are
//     not enough: Chinese is written in them too. At least minKana kana,
//     and kana and Han together at least a third of the letters.
//   - The others by their most frequent short words: each occurrence of a
//     word of a language's list (stopwords, below) counts one point for it,
//     and each letter only that language uses (ß ä ö ü for German, ñ ¿ ¡
//     for Spanish, ç œ è ê à ù â î ô û ë ï for French) half a point. The
//     lists hold no word that is common in two of the languages ("la",
//     "que", "des", "en", "es"...). The best language needs minScore
//     points and half as many again as the next one; otherwise the text is
//     too short or too mixed to say, and Detect says so.
//
// Only the first maxDetect bytes are read: the start of a message says
// enough, and the time is bounded.

const (
	maxDetect = 4096
	minKana   = 5
	minScore  = 3
)

// stopwords are the frequent words of each language that the other
// languages here do not use as words (a test checks that no word is in two
// lists), made from stopwordLists on first use: most commands never tell
// a language.
var stopwords = sync.OnceValue(func() map[string]language.Tag {
	m := map[string]language.Tag{}
	for tag, words := range stopwordLists {
		for _, w := range strings.Fields(words) {
			m[w] = tag
		}
	}
	return m
})

// stopwordLists are the lists stopwords is made of, by language.
var stopwordLists = map[language.Tag]string{
	language.English: "the and of to is are were you your this that with for have has not would please thanks thank " +
		"regards we our it from on at can as if dear hello hi be been they their there which about could",
	language.German: "der die das und ist sind nicht ich sie wir mit für auf ein eine einen einem dem den zu von " +
		"bitte danke grüße gruß ihnen haben wird auch noch bei über oder aber wie kann vielen liebe lieber hallo " +
		"sehr geehrte geehrter freundlichen hat ihr ihre uns wurde werden",
	language.French: "le les et est une pour dans qui pas vous nous avec sur ce cette je bonjour merci cordialement " +
		"au aux sont être mais votre vos il elle ne madame monsieur bien très avez été",
	language.Spanish: "el los las y una para con por del su sus está hola gracias saludos muy pero como este esta " +
		"usted al lo estimado estimada buenos días atentamente yo tiene hay puede",
}

// letterHint says which language a letter points to, when only one of
// them uses it.
func letterHint(r rune) (language.Tag, bool) {
	switch r {
	case 'ß', 'ä', 'ö', 'ü':
		return language.German, true
	case 'ñ':
		return language.Spanish, true
	case 'ç', 'œ', 'è', 'ê', 'à', 'ù', 'â', 'î', 'ô', 'û', 'ë', 'ï':
		return language.French, true
	}
	return language.Und, false
}

// Detect tells the language of text, the subject and the start of a message
// as UTF-8: English, German, French, Spanish or Japanese, and false when it
// cannot tell (see the comment above for how).
func Detect(text string) (language.Tag, bool) {
	if len(text) > maxDetect {
		text = text[:maxDetect]
	}
	var kana, han, letters int
	score := map[language.Tag]float64{}
	var word strings.Builder
	stopwords := stopwords()
	endWord := func() {
		if word.Len() > 0 {
			if tag, ok := stopwords[word.String()]; ok {
				score[tag]++
			}
			word.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
			endWord()
		case unicode.Is(unicode.Han, r):
			han++
			endWord()
		case unicode.IsLetter(r):
			letters++
			r = unicode.ToLower(r)
			if tag, ok := letterHint(r); ok {
				score[tag] += 0.5
			}
			word.WriteRune(r)
		case r == '¿' || r == '¡':
			score[language.Spanish] += 0.5
			endWord()
		default:
			endWord()
		}
	}
	endWord()
	if kana >= minKana && 3*(kana+han) >= kana+han+letters {
		return language.Japanese, true
	}
	var best, second language.Tag
	for _, tag := range []language.Tag{language.English, language.German, language.French, language.Spanish} {
		switch {
		case score[tag] > score[best]:
			best, second = tag, best
		case score[tag] > score[second]:
			second = tag
		}
	}
	if score[best] >= minScore && score[best] >= 1.5*score[second] {
		return best, true
	}
	return language.Und, false
}

// ContentLanguage reads a Content-Language field value (RFC 3282: language
// tags separated by commas, with comments in parentheses) into its valid
// tags, in order; malformed ones are left out.
func ContentLanguage(v string) []language.Tag {
	// Comments go first: "de (Deutsch), en".
	var b strings.Builder
	depth := 0
	for _, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var out []language.Tag
	for _, part := range strings.Split(b.String(), ",") {
		part = strings.TrimSpace(part)
		if part == "" || len(out) == 10 {
			continue
		}
		if tag, err := language.Parse(part); err == nil && tag != language.Und {
			out = append(out, tag)
		}
	}
	return out
}
