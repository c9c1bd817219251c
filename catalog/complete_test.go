package catalog_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
)

// englishWords are words of English sentences that the other languages
// ndrmilter writes do not use as words: a translated text with two of them
// outside its placeholders is English left over.
var englishWords = map[string]bool{"the": true, "because": true, "your": true, "been": true, "could": true,
	"with": true, "this": true, "that": true, "from": true, "has": true, "have": true, "please": true,
	"which": true, "would": true, "should": true, "their": true, "they": true, "were": true, "you": true}

var placeholder = regexp.MustCompile(`\{[a-z][a-z0-9_]*\}`)

// leftoverEnglish says whether a translated text reads as English: the same
// as the English text where that has more than one word (a code, a name or
// a label such as "Message-ID:" may stay), or with two English words.
func leftoverEnglish(en, tr string) bool {
	bare := placeholder.ReplaceAllString(tr, " ")
	if tr == en && len(strings.Fields(bare)) > 1 {
		return true
	}
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(bare), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
		if englishWords[w] {
			seen[w] = true
		}
	}
	return len(seen) >= 2
}

// TestCatalogsAreComplete checks every catalog file of messages/ against
// en.yaml: every id, no other, the same placeholders, no control
// characters, no English left over. One language:
// go test ./catalog -run 'TestCatalogsAreComplete/de$'.
func TestCatalogsAreComplete(t *testing.T) {
	cat := catalog.Default()
	files, _ := filepath.Glob("messages/*.yaml")
	en := readMessages(t, "messages/en.yaml")
	for _, f := range files {
		tag, err := language.Parse(strings.TrimSuffix(filepath.Base(f), ".yaml"))
		if err != nil {
			t.Errorf("%s: the name is not a language tag: %v", f, err)
			continue
		}
		if tag == language.English {
			continue
		}
		t.Run(tag.String(), func(t *testing.T) {
			for _, p := range cat.Problems(tag) {
				t.Error(p)
			}
			if !cat.Offers(tag) {
				t.Errorf("%s is not offered (Languages: %v)", tag, cat.Languages())
			}
			for id, text := range readMessages(t, f) {
				if leftoverEnglish(en[id], text) {
					t.Errorf("%s: English left over: %q", id, text)
				}
			}
		})
	}
}

func readMessages(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

func TestLeftoverEnglishIsCaught(t *testing.T) {
	for _, c := range []struct {
		en, tr string
		want   bool
	}{
		{"How to fix it", "How to fix it", true},
		{"Message-ID:", "Message-ID:", false},
		{"Read on this server.", "Auf diesem Server gelesen, because you have it.", true},
		{"Who must fix it", "Wer es beheben muss", false},
	} {
		if got := leftoverEnglish(c.en, c.tr); got != c.want {
			t.Errorf("leftoverEnglish(%q, %q) = %v; want %v", c.en, c.tr, got, c.want)
		}
	}
}
