package rules

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
)

// templateLang, given as "go test ./rules -run TestWriteTranslationTemplate
// -args -i18n.template=fr", writes i18n/fr.yaml: every key a translation
// needs, with the English text as a comment above it, and the translation
// already in the file (if any) as the value, "" where there is none yet.
var templateLang = flag.String("i18n.template", "", "write `LANG`'s translation template to i18n/LANG.yaml, keeping the translations it has")

// englishWords are words of English sentences that the other languages
// ndrmilter writes do not use as words: a translated text with two of them
// outside its placeholders is English left over.
var englishWords = map[string]bool{"the": true, "because": true, "your": true, "been": true, "could": true,
	"with": true, "this": true, "that": true, "from": true, "has": true, "have": true, "please": true,
	"which": true, "would": true, "should": true, "their": true, "they": true, "was": false, "were": true}

var placeholderOrOptional = regexp.MustCompile(`\{[?A-Za-z_]+\}`)

// leftoverEnglish says whether a translated text reads as English: the
// same as the English text (where that has words), or with two English
// words of englishWords.
func leftoverEnglish(en, tr string) bool {
	bare := placeholderOrOptional.ReplaceAllString(tr, " ")
	letters := strings.IndexFunc(bare, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	if tr == en && letters {
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

// TestTranslationsAreComplete checks every built-in translation
// (i18n/TAG.yaml) against rules.yaml: every key translated, the
// placeholders and alternatives of the English text, no control
// characters, no key rules.yaml lacks, no English left over. One
// language: go test ./rules -run 'TestTranslationsAreComplete/de$'.
func TestTranslationsAreComplete(t *testing.T) {
	e, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	src := englishSource(t)
	for _, l := range translations()[1:] {
		t.Run(l.tag.String(), func(t *testing.T) {
			for _, p := range e.TranslationProblems(l.tag) {
				t.Error(p)
			}
			if l.tr == nil {
				return
			}
			for _, k := range src.keys {
				tr := lookupTranslation(l.tr, k)
				for i, s := range tr {
					if i < len(k.en) && leftoverEnglish(k.en[i], s) {
						t.Errorf("%s: English left over: %q", k.path, s)
					}
				}
			}
			if !e.translated().complete[indexOf(l.tag)] {
				t.Errorf("%s is not offered (Languages: %v)", l.tag, e.Languages())
			}
		})
	}
}

func indexOf(tag language.Tag) int {
	for i, l := range translations() {
		if l.tag == tag {
			return i
		}
	}
	return -1
}

func TestLeftoverEnglishIsCaught(t *testing.T) {
	for _, c := range []struct {
		en, tr string
		want   bool
	}{
		{"The message[ to {recipient}] was refused.", "The message[ to {recipient}] was refused.", true},
		{"Check the address.", "Check the address because the server has it wrong.", true},
		{"Check the address.", "Prüfen Sie die Adresse.", false},
		{"{Cause}.", "{Cause}.", false},
		{"mail loop", "Mail-Schleife", false},
		{"The message was refused.", "このメッセージは拒否されました。", false},
	} {
		if got := leftoverEnglish(c.en, c.tr); got != c.want {
			t.Errorf("leftoverEnglish(%q, %q) = %v; want %v", c.en, c.tr, got, c.want)
		}
	}
}

// sourceKey is one text a translation gives: its path (as the problems
// name it) and the English alternatives.
type sourceKey struct {
	path string   // "reasons/userunknown/stages/connection/fix"
	kind string   // "text", "summary", "explanation" or "fix"
	en   []string // one, or the alternatives of an explanation or fix
}

// trSource are the texts of rules.yaml a translation gives, in file order.
type trSource struct {
	keys []sourceKey
}

// englishSource reads the texts of the built-in rules.yaml in file order.
func englishSource(t testing.TB) *trSource {
	yamlData := readRulesYAML(t)
	f, _, _, err := decodeFile(BuiltinName, yamlData)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Reasons yaml.Node `yaml:"reasons"`
	}
	if err := yaml.Unmarshal(yamlData, &doc); err != nil {
		t.Fatal(err)
	}
	s := &trSource{}
	for _, d := range textDefs {
		s.keys = append(s.keys, sourceKey{path: "texts/" + d.name, kind: "text", en: []string{f.Texts[d.name]}})
	}
	leaf := func(prefix string, summary string, expl, fix textList) {
		if summary != "" {
			s.keys = append(s.keys, sourceKey{path: prefix + "/summary", kind: "summary", en: []string{summary}})
		}
		if len(expl) > 0 {
			s.keys = append(s.keys, sourceKey{path: prefix + "/explanation", kind: "explanation", en: expl})
		}
		if len(fix) > 0 {
			s.keys = append(s.keys, sourceKey{path: prefix + "/fix", kind: "fix", en: fix})
		}
	}
	words := func(prefix string, summary string, expl, fix textList, stages, byFact map[string]stageSpec) {
		leaf(prefix, summary, expl, fix)
		for _, k := range stageKeys {
			if st, ok := stages[k]; ok {
				leaf(prefix+"/stages/"+k, st.Summary, st.Explanation, st.Fix)
			}
		}
		for _, fa := range facts {
			if st, ok := byFact[string(fa)]; ok {
				leaf(prefix+"/facts/"+string(fa), st.Summary, st.Explanation, st.Fix)
			}
		}
	}
	for i := 0; i+1 < len(doc.Reasons.Content); i += 2 {
		name := Reason(doc.Reasons.Content[i].Value)
		r := f.Reasons[name]
		words("reasons/"+string(name), r.Summary, r.Explanation, r.Fix, r.Stages, r.Facts)
	}
	for _, r := range f.Rules {
		words("rules/"+r.ID, r.Then.Summary, r.Then.Explanation, r.Then.Fix, r.Then.Stages, r.Then.Facts)
	}
	return s
}

// lookupTranslation returns the translation of k in tr, nil when it has none.
func lookupTranslation(tr *trFile, k sourceKey) []string {
	parts := strings.Split(k.path, "/")
	if parts[0] == "texts" {
		if s := tr.Texts[parts[1]]; s != "" {
			return []string{s}
		}
		return nil
	}
	var w trWords
	var ok bool
	if parts[0] == "reasons" {
		w, ok = tr.Reasons[Reason(parts[1])]
	} else {
		w, ok = tr.Rules[parts[1]]
	}
	if !ok {
		return nil
	}
	l := w.trLeaf
	if len(parts) == 5 {
		m := w.Stages
		if parts[2] == "facts" {
			m = w.Facts
		}
		if l, ok = m[parts[3]]; !ok {
			return nil
		}
	}
	switch k.kind {
	case "summary":
		if l.Summary == "" {
			return nil
		}
		return []string{l.Summary}
	case "explanation":
		return l.Explanation
	}
	return l.Fix
}

// TestWriteTranslationTemplate writes the template of -i18n.template (see
// templateLang); without it, it checks that the template of an empty
// translation has every key of rules.yaml.
func TestWriteTranslationTemplate(t *testing.T) {
	src := englishSource(t)
	if *templateLang == "" {
		out := translationTemplate(src, &trFile{}, nil)
		tr, err := decodeTranslation(out)
		if err != nil {
			t.Fatalf("the template does not read back: %v", err)
		}
		for _, k := range src.keys {
			if got := lookupTranslation(tr, k); strings.Join(got, "") != "" {
				t.Errorf("%s: the empty template has %q", k.path, got)
			}
		}
		if !bytes.Contains(out, []byte("reasons:")) || !bytes.Contains(out, []byte("# en: ")) {
			t.Errorf("template without reasons or English comments:\n%.500s", out)
		}
		return
	}
	tag, err := language.Parse(*templateLang)
	if err != nil || tag == language.English {
		t.Fatalf("-i18n.template=%q: expected a language tag other than en", *templateLang)
	}
	file := filepath.Join("i18n", tag.String()+".yaml")
	have := &trFile{}
	var recorded map[string][]string
	if data, err := os.ReadFile(file); err == nil {
		if have, err = decodeTranslation(data); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if recorded, err = recordedEnglish(data); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	// A translation of English that has changed since is not kept: it is
	// written as a comment, the value left to translate again.
	stale := map[string][]string{}
	for _, k := range src.keys {
		if was, ok := recorded[k.path]; ok && strings.Join(was, "\n") != strings.Join(k.en, "\n") {
			stale[k.path] = lookupTranslation(have, k)
		}
	}
	if err := os.WriteFile(file, translationTemplate(src, have, stale), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", file)
}

// translationTemplate writes a translation file: every key of src with
// the English as a comment and have's translation, or "", as the value.
// A key of stale is written with its old translation as a comment ("# was:
// ...") and "" as the value.
func translationTemplate(src *trSource, have *trFile, stale map[string][]string) []byte {
	var b bytes.Buffer
	b.WriteString("# Translation of rules/rules.yaml. Written by\n" +
		"#   go test ./rules -run TestWriteTranslationTemplate -args -i18n.template=LANG\n" +
		"# which keeps the translations below and adds the keys rules.yaml gained.\n" +
		"# Translate each value (\"\" is missing); keep the {placeholders}, and\n" +
		"# the [optional parts] around the placeholders they hold; an\n" +
		"# explanation or fix that is a list keeps its alternatives in the same\n" +
		"# order. Check: go test ./rules -run 'TestTranslationsAreComplete/LANG$'\n")
	section := ""
	owner := ""
	sub := ""
	for _, k := range src.keys {
		parts := strings.Split(k.path, "/")
		if parts[0] != section {
			section = parts[0]
			owner, sub = "", ""
			b.WriteString("\n" + section + ":\n")
		}
		tr := lookupTranslation(have, k)
		if _, ok := stale[k.path]; ok {
			tr = nil
		}
		if section == "texts" {
			writeEntry(&b, "  ", parts[1], k.en, tr, false, stale[k.path])
			continue
		}
		if parts[1] != owner {
			owner, sub = parts[1], ""
			b.WriteString("  " + yamlKey(owner) + ":\n")
		}
		ind := "    "
		if len(parts) == 5 {
			if s := parts[2] + "/" + parts[3]; s != sub {
				if sub == "" || !strings.HasPrefix(sub, parts[2]+"/") {
					b.WriteString("    " + parts[2] + ":\n")
				}
				sub = s
				b.WriteString("      " + parts[3] + ":\n")
			}
			ind = "        "
		}
		writeEntry(&b, ind, k.kind, k.en, tr, k.kind != "summary", stale[k.path])
	}
	return b.Bytes()
}

// writeEntry writes one key: the English as comments (and the translation
// of the English it replaced, was), then the value.
func writeEntry(b *bytes.Buffer, ind, key string, en, tr []string, list bool, was []string) {
	for _, s := range was {
		b.WriteString(ind + "# was: " + s + "\n")
	}
	for _, s := range en {
		b.WriteString(ind + "# en: " + s + "\n")
	}
	if !list || len(en) == 1 {
		v := ""
		if len(tr) == 1 {
			v = tr[0]
		}
		b.WriteString(ind + key + ": " + yamlString(v) + "\n")
		return
	}
	b.WriteString(ind + key + ":\n")
	for i := range en {
		v := ""
		if i < len(tr) && len(tr) == len(en) {
			v = tr[i]
		}
		b.WriteString(ind + "  - " + yamlString(v) + "\n")
	}
}

// yamlString writes s as a double-quoted YAML scalar.
func yamlString(s string) string {
	out, _ := yaml.Marshal(s)
	v := strings.TrimSuffix(string(out), "\n")
	if strings.HasPrefix(v, `"`) {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// yamlKey writes a rule id or reason name as a YAML key.
func yamlKey(s string) string {
	if strings.ContainsAny(s, ":#{}[],&*!|>'\"%@` ") {
		return yamlString(s)
	}
	return s
}

// The translations are attached when first needed: readers in English and
// in German at once, on a fresh engine, read whole words (go test -race).
func TestTranslationsAttachOnceWhileEnglishIsRead(t *testing.T) {
	e, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	en := e.Lookup("5.1.1")
	done := make(chan Classification, 8)
	for i := 0; i < 8; i++ {
		go func(i int) {
			if i%2 == 0 {
				done <- e.Lookup("5.1.1")
			} else {
				done <- e.LookupIn(language.German, "5.1.1")
			}
		}(i)
	}
	for i := 0; i < 8; i++ {
		v := <-done
		if v.Summary != en.Summary && !strings.Contains(v.Explanation, "Die Nachricht") {
			t.Errorf("a reading is neither English nor German: %+v", v)
		}
	}
	if de := e.LookupIn(language.German, "5.1.1"); de.Summary == en.Summary || de.Reason != en.Reason || de.Owner != en.Owner {
		t.Errorf("German %+v, English %+v: want other words, the same reading", de, en)
	}
}

// TestTranslationsFollowTheEnglish finds translations whose English has
// changed since they were written: the template writes the English above
// each value ("# en: ..."), and a text of rules.yaml rewritten since then
// needs its translation rewritten too (then the comment updated, by running
// the template writer again).
func TestTranslationsFollowTheEnglish(t *testing.T) {
	src := englishSource(t)
	current := map[string][]string{}
	for _, k := range src.keys {
		current[k.path] = k.en
	}
	files, _ := filepath.Glob(filepath.Join("i18n", "*.yaml"))
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := recordedEnglish(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for p, was := range recorded {
				if now, known := current[p]; known && strings.Join(was, "\n") != strings.Join(now, "\n") {
					t.Errorf("%s: the English changed since it was translated:\n was %q\n now %q\n(translate it again, then run the template writer to update the comment)", p, was, now)
				}
			}
		})
	}
}

// recordedEnglish reads the English a translation file says each value
// translates (its "# en: " comments), by key path.
func recordedEnglish(data []byte) (map[string][]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	if len(doc.Content) == 0 {
		return out, nil
	}
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			p := key.Value
			if path != "" {
				p = path + "/" + key.Value
			}
			if val.Kind == yaml.MappingNode {
				walk(p, val)
				continue
			}
			var was []string
			for _, line := range strings.Split(key.HeadComment, "\n") {
				if s, ok := strings.CutPrefix(strings.TrimSpace(line), "# en: "); ok {
					was = append(was, s)
				}
			}
			if len(was) > 0 {
				out[p] = was
			}
		}
	}
	walk("", doc.Content[0])
	return out, nil
}
