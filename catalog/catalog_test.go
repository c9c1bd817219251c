package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
)

func TestBuiltInCatalogLoads(t *testing.T) {
	c := catalog.Default()
	if langs := c.Languages(); len(langs) == 0 || langs[0] != language.English {
		t.Fatalf("languages %v: want English first", langs)
	}
	for _, id := range c.IDs() {
		if text := c.Text(language.English, id); strings.TrimSpace(text) == "" {
			t.Errorf("%s: empty text", id)
		}
	}
}

func TestMatchPrefersTheExplicitChoiceAndFallsBackToEnglish(t *testing.T) {
	fsys := fstest.MapFS{
		"en.yaml": {Data: []byte("hello: Hello, {name}.\n")},
		"de.yaml": {Data: []byte("hello: Hallo, {name}.\n")},
		"ja.yaml": {Data: []byte("hello: \"{name}さん、こんにちは。\"\n")},
	}
	c, err := catalog.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ explicit, accept, want string }{
		{"", "", "en"},
		{"de", "ja", "de"},
		{"", "ja-JP, de;q=0.5", "ja"},
		{"", "de-CH", "de"},
		{"xx", "ja", "ja"},         // an unknown explicit choice: the header decides
		{"!!", "", "en"},           // malformed
		{"fr", "es, it", "en"},     // none we have
		{"", "*", "en"},            // anything: English
		{"DE", "", "de"},           // case
		{"ja, de;q=0.1", "", "ja"}, // a list as explicit choice
	} {
		if got := c.Match(m.explicit, m.accept).String(); got != m.want {
			t.Errorf("Match(%q, %q) = %s; want %s", m.explicit, m.accept, got, m.want)
		}
	}
	if got := c.Text(language.German, "hello", "name", "Ana"); got != "Hallo, Ana." {
		t.Errorf("German text: %q", got)
	}
	if got := c.Text(language.French, "hello", "name", "Ana"); got != "Hello, Ana." {
		t.Errorf("a language the catalog lacks: %q; want English", got)
	}
	if got := c.Text(language.English, "hello"); got != "Hello, ." {
		t.Errorf("a placeholder without a value: %q; want it left out", got)
	}
}

func TestAnIncompleteOrInconsistentTranslationIsNotOffered(t *testing.T) {
	en := []byte("a: One {x}.\nb: Two.\n")
	for _, c := range []struct {
		name, de, says string
	}{
		{"missing id", "a: Eins {x}.\n", "b: missing"},
		{"empty text", "a: Eins {x}.\nb: \"\"\n", "b: missing"},
		{"extra id", "a: Eins {x}.\nb: Zwei.\nc: Drei.\n", "c: not an id of en.yaml"},
		{"placeholder renamed", "a: Eins {y}.\nb: Zwei.\n", "a: placeholders [y], expected those of en.yaml: [x]"},
		{"control character", "a: \"Eins {x}.\\u001b[2J\"\nb: Zwei.\n", "a: character U+001B"},
	} {
		cat, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: en}, "de.yaml": {Data: []byte(c.de)}})
		if err != nil {
			t.Errorf("%s: %v; want the file loaded and not offered", c.name, err)
			continue
		}
		if probs := cat.Problems(language.German); !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, c.says) }) {
			t.Errorf("%s: problems %q; want one saying %q", c.name, probs, c.says)
		}
		if langs := cat.Languages(); len(langs) != 1 || langs[0] != language.English {
			t.Errorf("%s: languages %v; want English only", c.name, langs)
		}
		if got := cat.Match("de", ""); got != language.English {
			t.Errorf("%s: Match(de) = %v; want English, the incomplete German not offered", c.name, got)
		}
		if got := cat.Text(language.German, "b"); got != "Two." {
			t.Errorf("%s: Text(de, b) = %q; want the English text", c.name, got)
		}
	}
	complete, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: en}, "de.yaml": {Data: []byte("a: Eins {x}.\nb: Zwei.\n")}})
	if err != nil || len(complete.Problems(language.German)) != 0 || !complete.Offers(language.German) {
		t.Errorf("a complete translation: %v, problems %q, offered %v", err, complete.Problems(language.German), complete.Offers(language.German))
	}
	for _, c := range []struct{ name, en, de, says string }{
		{"not a mapping", "a: x\n", "- a\n- b\n", "expected a mapping"},
		{"empty English text", "a: \"\"\n", "a: x\n", "en.yaml: a: empty"},
	} {
		if _, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: []byte(c.en)}, "de.yaml": {Data: []byte(c.de)}}); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.says)
		}
	}
	if _, err := catalog.Load(fstest.MapFS{"de.yaml": {Data: []byte("a: b\n")}}); err == nil || !strings.Contains(err.Error(), "no en.yaml") {
		t.Errorf("without English: %v", err)
	}
	if _, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: en}, "not_a-tag!.yaml": {Data: en}}); err == nil || !strings.Contains(err.Error(), "not a language tag") {
		t.Errorf("a file that is not named by a tag: %v", err)
	}
}

func TestTextFillsPlaceholdersAndLeavesOtherBraces(t *testing.T) {
	c, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: []byte(`a: "{x} and {y_2}, {x} again; {Not} {9} {} { and } {z"` + "\n")}})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Text(language.English, "a", "x", "one", "y_2", "two", "unused", "three")
	if want := "one and two, one again; {Not} {9} {} { and } {z"; got != want {
		t.Errorf("Text = %q; want %q", got, want)
	}
}
