package catalog

import "golang.org/x/text/language"

// builtinCatalog is a Catalog as go generate ./catalog writes it into
// builtin_gen.go: plain data (strings and slices of them) that the linker
// lays out, so that the built-in catalog costs nothing until it is used and
// then no parsing.
type builtinCatalog struct {
	tags     []string   // Catalog.tags, English first
	offered  []string   // Catalog.offered
	problems [][]string // Catalog.problems of tags[i], i >= 1
	texts    []table    // Catalog.texts of tags[i]
}

// catalog returns b as a Catalog.
func (b *builtinCatalog) catalog() *Catalog {
	c := &Catalog{
		texts:    make(map[language.Tag]table, len(b.tags)),
		problems: make(map[language.Tag][]string, len(b.tags)),
	}
	for i, s := range b.tags {
		tag := language.MustParse(s)
		c.tags = append(c.tags, tag)
		c.texts[tag] = b.texts[i]
		if i > 0 {
			c.problems[tag] = b.problems[i]
		}
	}
	for _, s := range b.offered {
		c.offered = append(c.offered, language.MustParse(s))
	}
	c.matchOffered()
	return c
}
