package catalog_test

import (
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

func TestLoadRejectsAnIncompleteOrInconsistentTranslation(t *testing.T) {
	en := []byte("a: One {x}.\nb: Two.\n")
	for _, c := range []struct {
		name, de, says string
	}{
		{"missing id", "a: Eins {x}.\n", "b: missing"},
		{"extra id", "a: Eins {x}.\nb: Zwei.\nc: Drei.\n", "c: not an id of en.yaml"},
		{"placeholder renamed", "a: Eins {y}.\nb: Zwei.\n", "a: placeholders [y], expected those of en.yaml: [x]"},
		{"not a mapping", "- a\n- b\n", "expected a mapping"},
	} {
		_, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: en}, "de.yaml": {Data: []byte(c.de)}})
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "de.yaml") {
			t.Errorf("%s: %v; want an error naming de.yaml and saying %q", c.name, err, c.says)
		}
	}
	if _, err := catalog.Load(fstest.MapFS{"de.yaml": {Data: []byte("a: b\n")}}); err == nil || !strings.Contains(err.Error(), "no en.yaml") {
		t.Errorf("without English: %v", err)
	}
	if _, err := catalog.Load(fstest.MapFS{"en.yaml": {Data: en}, "not_a-tag!.yaml": {Data: en}}); err == nil || !strings.Contains(err.Error(), "not a language tag") {
		t.Errorf("a file that is not named by a tag: %v", err)
	}
}
