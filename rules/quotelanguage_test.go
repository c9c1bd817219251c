package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
	"golang.org/x/text/language"
)

// An auto-reply in two languages is quoted in the reader's language when
// it has a part in it, else in English, never only in its first language.
func TestBilingualAutoReplyIsQuotedInTheReadersLanguage(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		file      string
		tag       language.Tag
		want, not string
	}{
		{"bilingual-notice-01.eml", language.English, "I am out of the office from April 29 to May 6", "休暇"},
		{"bilingual-notice-01.eml", language.Japanese, "休暇のため不在", "I am out of the office"},
		{"bilingual-notice-01.eml", language.German, "I am out of the office from April 29", "休暇"},
		{"bilingual-notice-02.eml", language.English, "I am out of the office until July 25", "nicht im Büro"},
		{"bilingual-notice-02.eml", language.German, "nicht im Büro", "I am out of the office"},
		{"bilingual-notice-03.eml", language.English, "I am away from the office until Monday, June 30", "Je suis absente"},
		{"bilingual-notice-03.eml", language.French, "Je suis absente du bureau", "I am away"},
	}
	for _, tc := range tests {
		r := parseFixture(t, tc.file)
		if r.Kind != dsn.KindAutoreply {
			t.Fatalf("%s: %s, want an auto-reply", tc.file, r.Kind)
		}
		v := e.ExplainIn(tc.tag, r)[0]
		if !strings.Contains(v.Explanation, tc.want) || strings.Contains(v.Explanation, tc.not) {
			t.Errorf("%s in %s: explanation %q, want %q and not %q", tc.file, tc.tag, v.Explanation, tc.want, tc.not)
		}
	}
}

// A notice in one language is quoted as before, whatever the reader's
// language; the languages of its halves are told apart by script and
// common words.
func TestParagraphLanguage(t *testing.T) {
	for s, want := range map[string]quoteLang{
		"誠に勝手ながら、4月29日から5月6日まで休暇のため不在にしております。":                                       "ja",
		"I am out of the office until July 25 and have no access to my e-mail.":      "en",
		"ich bin bis einschließlich 25. Juli nicht im Büro und habe keinen Zugriff.": "de",
		"Je suis absente du bureau jusqu'au lundi 30 juin et j'ai un accès limité.":  "fr",
		"Estoy fuera de la oficina hasta el lunes y no tengo acceso a mi correo.":    "es",
		"Hanako Ito": "",
	} {
		if got := paragraphLang(s); got != want {
			t.Errorf("paragraphLang(%q) = %q, want %q", s, got, want)
		}
	}
	one := "Je suis absente jusqu'au 30 juin.\n\nPour une demande urgente, veuillez écrire à permis@ville.example.ca."
	if autoreplyQuoteFor(one, "en") != autoreplyQuoteFor(one, "fr") {
		t.Errorf("a notice in one language is quoted differently for two readers")
	}
}
