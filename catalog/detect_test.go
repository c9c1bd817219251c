package catalog

import (
	"strings"
	"testing"

	"golang.org/x/text/language"
)

func TestNoStopwordIsInTwoLanguages(t *testing.T) {
	seen := map[string]language.Tag{}
	for tag, words := range stopwordLists {
		for _, w := range strings.Fields(words) {
			if other, dup := seen[w]; dup && other != tag {
				t.Errorf("%q is a stopword of %s and %s", w, other, tag)
			}
			seen[w] = tag
		}
	}
}

func TestDetectTellsTheLanguagesApart(t *testing.T) {
	for _, c := range []struct {
		text string
		want language.Tag
		ok   bool
	}{
		{"Hello Bob, thanks for your note. We will send the report with the figures on Monday, if that is fine with you.", language.English, true},
		{"Hallo Bob, vielen Dank für die Nachricht. Wir schicken Ihnen den Bericht mit den Zahlen am Montag, wenn das für Sie passt.", language.German, true},
		{"Bonjour Bob, merci pour votre message. Nous vous envoyons le rapport avec les chiffres lundi, si cela vous convient.", language.French, true},
		{"Hola Bob, muchas gracias por el mensaje. Le enviamos el informe con las cifras el lunes, si le parece bien a usted.", language.Spanish, true},
		{"ボブさん、ご連絡ありがとうございます。月曜日に数字の入った報告書をお送りします。", language.Japanese, true},
		{"鲍勃你好，谢谢你的来信。我们星期一把报告发给你。", language.Und, false},
		{"OK", language.Und, false},
		{"", language.Und, false},
	} {
		got, ok := Detect(c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("Detect(%.40q) = %v, %v; want %v, %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestDetectReadsABoundedStart(t *testing.T) {
	text := strings.Repeat("Hallo und danke, wir haben es. ", 200) + strings.Repeat("the and of to is ", 100000)
	if got, ok := Detect(text); !ok || got != language.German {
		t.Errorf("Detect of German then a long English tail = %v, %v; want German (only the start is read)", got, ok)
	}
}

func TestContentLanguageReadsTagsAndSkipsComments(t *testing.T) {
	got := ContentLanguage("de-DE (Deutsch), en, !!bad, (only a comment)")
	if len(got) != 2 || got[0] != language.MustParse("de-DE") || got[1] != language.English {
		t.Errorf("ContentLanguage = %v; want [de-DE en]", got)
	}
	if got := ContentLanguage(strings.Repeat("de,", 1000)); len(got) > 10 {
		t.Errorf("ContentLanguage of 1000 tags gives %d; want at most 10", len(got))
	}
}
