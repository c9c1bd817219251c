package catalog

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
)

//go:embed messages/*.yaml
var embedded embed.FS

// Catalog is the texts of every language it has, by message id. A Catalog
// is immutable after Load and safe for concurrent use.
type Catalog struct {
	tags    []language.Tag // English first
	texts   map[language.Tag]map[string]string
	matcher language.Matcher
}

// placeholder is a {name} in a text.
// It is compiled on first use: most commands never read a catalog.
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`) })

// Load reads one catalog a file, named TAG.yaml, from fsys (a directory of
// such files): en.yaml, the reference, and any others. It rejects a file
// whose name is not a language tag, that is not a flat mapping of ids to
// texts, or whose ids or placeholders differ from English's.
func Load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	c := &Catalog{texts: map[language.Tag]map[string]string{}}
	for _, name := range names {
		tag, err := language.Parse(strings.TrimSuffix(path.Base(name), ".yaml"))
		if err != nil {
			return nil, fmt.Errorf("catalog %s: the file name is not a language tag (such as de.yaml or pt-BR.yaml): %v", name, err)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		texts := map[string]string{}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&texts); err != nil {
			return nil, fmt.Errorf("catalog %s: expected a mapping of message ids to texts: %v", name, err)
		}
		c.texts[tag] = texts
		c.tags = append(c.tags, tag)
	}
	en, ok := c.texts[language.English]
	if !ok {
		return nil, fmt.Errorf("catalog: no en.yaml: English is the reference every other language is checked against")
	}
	sort.Slice(c.tags, func(i, j int) bool {
		if (c.tags[i] == language.English) != (c.tags[j] == language.English) {
			return c.tags[i] == language.English
		}
		return c.tags[i].String() < c.tags[j].String()
	})
	for _, tag := range c.tags[1:] {
		if err := sameShape(en, c.texts[tag]); err != nil {
			return nil, fmt.Errorf("catalog %s.yaml: %v", tag, err)
		}
	}
	c.matcher = language.NewMatcher(c.tags)
	return c, nil
}

// sameShape checks that a translation has the ids of English, each with the
// same placeholders.
func sameShape(en, tr map[string]string) error {
	for id, text := range en {
		t, ok := tr[id]
		if !ok {
			return fmt.Errorf("%s: missing (every id of en.yaml must be translated)", id)
		}
		if a, b := placeholders(text), placeholders(t); !slices.Equal(a, b) {
			return fmt.Errorf("%s: placeholders %v, expected those of en.yaml: %v", id, b, a)
		}
	}
	for id := range tr {
		if _, ok := en[id]; !ok {
			return fmt.Errorf("%s: not an id of en.yaml", id)
		}
	}
	return nil
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

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
)

// Default is the catalog built into the binary (messages/*.yaml). Its tests
// load it, so it cannot fail to load in a binary that passed them.
func Default() *Catalog {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(embedded, "messages")
		if err == nil {
			defaultCat, err = Load(sub)
		}
		if err != nil {
			panic("catalog: the built-in catalogs do not load: " + err.Error())
		}
	})
	return defaultCat
}

// Languages are the catalog's languages, English first.
func (c *Catalog) Languages() []language.Tag { return slices.Clone(c.tags) }

// IDs are the message ids, sorted.
func (c *Catalog) IDs() []string {
	ids := make([]string, 0, len(c.texts[language.English]))
	for id := range c.texts[language.English] {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Match chooses the language of a request: explicit (a "lang" parameter:
// one tag, or a list as in Accept-Language) when it names a language of the
// catalog, else the best of acceptLanguage (an Accept-Language header
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
		_, i, conf := c.matcher.Match(tags...)
		if conf != language.No {
			return c.tags[i]
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
	texts, ok := c.texts[tag]
	if !ok {
		texts = c.texts[language.English]
	}
	text, ok := texts[id]
	if !ok {
		return id
	}
	if !strings.Contains(text, "{") {
		return text
	}
	return placeholder().ReplaceAllStringFunc(text, func(m string) string {
		name := m[1 : len(m)-1]
		for i := 0; i+1 < len(args); i += 2 {
			if args[i] == name {
				return args[i+1]
			}
		}
		return ""
	})
}

// Has reports whether the catalog has a text for id.
func (c *Catalog) Has(id string) bool {
	_, ok := c.texts[language.English][id]
	return ok
}
