package main

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/rules"
)

// TestStatusLineWordsEveryClass: the status line has words for every class
// of explanation.StatusClassOf in every language explain writes, and an
// expiry's 4.x.x says the sending server gave up.
func TestStatusLineWordsEveryClass(t *testing.T) {
	for _, tag := range []language.Tag{language.English, language.German, language.French, language.Spanish, language.Japanese} {
		lw := wordsIn(tag)
		for _, c := range []explanation.StatusClass{explanation.StatusSuccess, explanation.StatusTemporary, explanation.StatusPermanent, explanation.StatusGaveUp} {
			if got := lw.text("cli."+string(c), "value", "4.4.7"); !strings.HasPrefix(got, "4.4.7") || got == "4.4.7" {
				t.Errorf("%s: cli.%s = %q, want the code and its class", tag, c, got)
			}
		}
	}
	rd := rules.Reading{Classification: rules.Classification{Status: "4.4.7", StatusSource: rules.StatusServer, Permanent: true}}
	if got := statusText(wordsIn(language.English), rd); got != "4.4.7 (temporary, but the sending server has given up)" {
		t.Errorf("status line of an expiry: %q", got)
	}
}
