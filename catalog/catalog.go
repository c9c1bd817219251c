package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
)

//go:generate go test -count=1 -run ^TestBuiltinGenerated$ . -update

// Catalog is the texts of every language it has, by message id. A Catalog
// is immutable after Load and safe for concurrent use.
type Catalog struct {
	tags     []language.Tag // every language with a file, English first
	offered  []language.Tag // English and the complete languages
	texts    map[language.Tag]table
	problems map[language.Tag][]string
	// matcher is built on first use: the command line never matches a
	// request's languages.
	matcher func() language.Matcher
}

// entry is one text of a language.
type entry struct{ id, text string }

// table is the texts of one language, sorted by id. A sorted slice, not a
// map, so that the built-in catalog (builtin_gen.go) is data laid out by
// the linker, with nothing built when the program starts.
type table []entry

// tableOf returns texts as a table.
func tableOf(texts map[string]string) table {
	t := make(table, 0, len(texts))
	for _, id := range sortedIDs(texts) {
		t = append(t, entry{id, texts[id]})
	}
	return t
}

// get returns the text of id.
func (t table) get(id string) (string, bool) {
	i, ok := slices.BinarySearchFunc(t, id, func(e entry, id string) int { return strings.Compare(e.id, id) })
	if !ok {
		return "", false
	}
	return t[i].text, true
}

// placeholder is a {name} in a text.
// It is compiled on first use: most commands never read a catalog.
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`) })

// Load reads one catalog a file, named TAG.yaml, from fsys (a directory of
// such files): en.yaml, the reference, and any others. It rejects a file
// whose name is not a language tag or that is not a flat mapping of ids to
// texts, and an en.yaml with an empty or malformed text.
//
// A translation that lacks ids, or has texts that are empty, malformed or
// whose placeholders differ from English's, or ids English does not have,
// is loaded but not offered: Languages, Match and Text use only the
// complete languages, and Problems says what is wrong with the others.
func Load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	texts := map[language.Tag]map[string]string{}
	c := &Catalog{texts: map[language.Tag]table{}, problems: map[language.Tag][]string{}}
	for _, name := range names {
		tag, err := language.Parse(strings.TrimSuffix(path.Base(name), ".yaml"))
		if err != nil {
			return nil, fmt.Errorf("catalog %s: the file name is not a language tag (such as de.yaml or pt-BR.yaml): %v", name, err)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&m); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("catalog %s: expected a mapping of message ids to texts: %v", name, err)
		}
		if _, dup := texts[tag]; dup {
			return nil, fmt.Errorf("catalog %s: a second file for %s", name, tag)
		}
		texts[tag] = m
		c.tags = append(c.tags, tag)
	}
	en, ok := texts[language.English]
	if !ok {
		return nil, fmt.Errorf("catalog: no en.yaml: English is the reference every other language is checked against")
	}
	for _, id := range sortedIDs(en) {
		if err := checkText(en[id]); err != nil {
			return nil, fmt.Errorf("catalog en.yaml: %s: %v", id, err)
		}
	}
	sort.Slice(c.tags, func(i, j int) bool {
		if (c.tags[i] == language.English) != (c.tags[j] == language.English) {
			return c.tags[i] == language.English
		}
		return c.tags[i].String() < c.tags[j].String()
	})
	c.offered = []language.Tag{language.English}
	for _, tag := range c.tags[1:] {
		probs := usable(en, texts[tag])
		c.problems[tag] = probs
		if len(probs) == 0 {
			c.offered = append(c.offered, tag)
		}
	}
	for tag, m := range texts {
		c.texts[tag] = tableOf(m)
	}
	c.matchOffered()
	return c, nil
}

// matchOffered sets the matcher of the offered languages, built on first
// use.
func (c *Catalog) matchOffered() {
	offered := c.offered
	c.matcher = sync.OnceValue(func() language.Matcher { return language.NewMatcher(offered) })
}

// usable keeps in tr the texts that may stand for English's (the same
// placeholders, well formed) and returns what is missing or wrong, sorted.
func usable(en, tr map[string]string) []string {
	var probs []string
	for _, id := range sortedIDs(tr) {
		t := tr[id]
		text, ok := en[id]
		switch {
		case !ok:
			probs = append(probs, id+": not an id of en.yaml")
		case t == "":
			probs = append(probs, id+": missing")
		default:
			if err := checkText(t); err != nil {
				probs = append(probs, id+": "+err.Error())
			} else if a, b := placeholders(text), placeholders(t); !slices.Equal(a, b) {
				probs = append(probs, fmt.Sprintf("%s: placeholders %v, expected those of en.yaml: %v", id, b, a))
			} else {
				continue
			}
		}
		delete(tr, id)
	}
	for _, id := range sortedIDs(en) {
		if _, ok := tr[id]; !ok && !slices.ContainsFunc(probs, func(p string) bool { return strings.HasPrefix(p, id+": ") }) {
			probs = append(probs, id+": missing")
		}
	}
	sort.Strings(probs)
	return probs
}

// checkText says what is wrong with a text: empty, invalid UTF-8, or a
// character that has no place in a line of text (controls, line and
// paragraph separators, bidirectional formatting).
func checkText(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty")
	}
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return fmt.Errorf("character %U: no control, line-breaking or bidirectional formatting characters", r)
		}
	}
	return nil
}

func sortedIDs(m map[string]string) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// placeholders are the names of the placeholders of a text, sorted.
func placeholders(text string) []string {
	var names []string
	for _, m := range placeholder().FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// Default is the catalog built into the binary: messages/*.yaml as Load
// reads them, compiled at build time into builtin_gen.go (go generate
// ./catalog), so that no YAML is parsed when a command starts. A test
// checks that the compiled catalog is what Load gives from the files.
var Default = sync.OnceValue(func() *Catalog { return builtin.catalog() })

// Languages are the languages the catalog offers: English first, then
// each language whose file is complete.
func (c *Catalog) Languages() []language.Tag { return slices.Clone(c.offered) }

// Offers reports whether the catalog offers tag (see Languages).
func (c *Catalog) Offers(tag language.Tag) bool { return slices.Contains(c.offered, tag) }

// Problems lists what keeps the file of tag from being offered: each id
// missing or empty ("page.title: missing"), each text whose placeholders
// differ from English's or that holds a control character, each id English
// does not have. It is empty for English and for a complete language; for a
// language without a file it says so.
func (c *Catalog) Problems(tag language.Tag) []string {
	if tag == language.English {
		return nil
	}
	p, ok := c.problems[tag]
	if !ok {
		return []string{"no file " + tag.String() + ".yaml"}
	}
	return slices.Clone(p)
}

// IDs are the message ids, sorted.
func (c *Catalog) IDs() []string {
	en := c.texts[language.English]
	ids := make([]string, len(en))
	for i, e := range en {
		ids[i] = e.id
	}
	return ids
}

// Pick returns the offered language for tag: tag itself, else one of the
// same base language (de-CH gives de), else English.
func (c *Catalog) Pick(tag language.Tag) language.Tag {
	if c.Offers(tag) {
		return tag
	}
	base, _ := tag.Base()
	for _, t := range c.offered {
		if b, _ := t.Base(); b == base {
			return t
		}
	}
	return language.English
}

// Match chooses the language of a request: explicit (a "lang" parameter:
// one tag, or a list as in Accept-Language) when it names a language the
// catalog offers, else the best of acceptLanguage (an Accept-Language header
// value), else English. Malformed values count as absent.
func (c *Catalog) Match(explicit, acceptLanguage string) language.Tag {
	for _, v := range []string{explicit, acceptLanguage} {
		if strings.TrimSpace(v) == "" {
			continue
		}
		tags, _, err := language.ParseAcceptLanguage(v)
		if err != nil || len(tags) == 0 {
			continue
		}
		_, i, conf := c.matcher().Match(tags...)
		if conf != language.No {
			return c.offered[i]
		}
	}
	return language.English
}

// Text is the text of id in the language tag (one of Languages; English
// for any other), its placeholders filled from args, given as name, value
// pairs: Text(tag, "lookup.notfound", "id", id). A placeholder without a
// value is left out. An id the catalog lacks gives the id itself, which the
// tests of the callers catch.
func (c *Catalog) Text(tag language.Tag, id string, args ...string) string {
	if tag != language.English && !c.Offers(tag) {
		tag = language.English
	}
	text, ok := c.texts[tag].get(id)
	if !ok {
		return id
	}
	if !strings.Contains(text, "{") {
		return text
	}
	// By hand, not with the placeholder regexp: a command that writes one
	// text does not compile it.
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			break
		}
		n := placeholderLen(text[i+1:])
		if n == 0 || i+1+n >= len(text) || text[i+1+n] != '}' {
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		b.WriteString(text[:i])
		name := text[i+1 : i+1+n]
		for j := 0; j+1 < len(args); j += 2 {
			if args[j] == name {
				b.WriteString(args[j+1])
				break
			}
		}
		text = text[i+2+n:]
	}
	b.WriteString(text)
	return b.String()
}

// placeholderLen is the length of the placeholder name s starts with
// ([a-z][a-z0-9_]*, as the placeholder regexp has it), 0 for none.
func placeholderLen(s string) int {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return 0
	}
	n := 1
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= '0' && s[n] <= '9' || s[n] == '_') {
		n++
	}
	return n
}

// Has reports whether the catalog has a text for id (in English, and so in
// every language it offers).
func (c *Catalog) Has(id string) bool {
	_, ok := c.texts[language.English].get(id)
	return ok
}
