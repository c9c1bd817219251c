package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/width"

	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/rules"
)

// languageFlag is the value of --lang: the language of explain's and
// code's words, English when not given.
type languageFlag struct {
	tag language.Tag
	set bool
}

func (l *languageFlag) String() string {
	if !l.set {
		return ""
	}
	return l.tag.String()
}

// Set reads a BCP 47 tag; whether ndrmilter writes that language is checked
// against the rules and the catalog once they are loaded (offeredLanguage).
func (l *languageFlag) Set(v string) error {
	tag, err := language.Parse(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not a language tag (expected en, de, ...)", v)
	}
	l.tag, l.set = tag, true
	return nil
}

// offeredLanguage returns the language to write for --lang: the one asked
// for or one of its base language (de-CH: de) when both the rules and the
// catalog offer it; an error naming the languages offered otherwise.
func offeredLanguage(l languageFlag, e *rules.Engine) (language.Tag, error) {
	if !l.set || l.tag == language.English {
		return language.English, nil
	}
	cat := catalog.Default()
	var names []string
	base, _ := l.tag.Base()
	var byBase language.Tag
	for _, t := range e.Languages() {
		if !cat.Offers(t) {
			continue
		}
		names = append(names, t.String())
		if t == l.tag {
			return t, nil
		}
		if b, _ := t.Base(); b == base && byBase == language.Und {
			byBase = t
		}
	}
	if byBase != language.Und {
		return byBase, nil
	}
	return language.Und, fmt.Errorf("--lang %s: not a language ndrmilter writes (yet): expected one of %s", l.tag, strings.Join(names, ", "))
}

// words are the fixed words of the command line in one language.
type words struct {
	tag language.Tag
	cat *catalog.Catalog
	// width is the column the values start at after a label: the longest
	// label and two spaces, at least labelWidth (as English has it).
	width int
}

// labelIDs are the labels of explain's and code's text output, whose
// values line up.
var labelIDs = []string{"cli.recipient", "cli.forwarded_from", "cli.forwarded_to", "cli.what", "cli.means", "cli.who", "cli.fix", "cli.code", "cli.reason", "cli.rule"}

// detailIDs are the labels of the details for admins, indented by two more
// columns.
var detailIDs = []string{"cli.generating", "cli.remote", "cli.status", "cli.response", "cli.command", "cli.reason",
	"cli.rule", "cli.named", "cli.message_id", "cli.from", "cli.to", "cli.subject"}

func wordsIn(tag language.Tag) words {
	w := words{tag: tag, cat: catalog.Default(), width: labelWidth}
	for _, id := range labelIDs {
		w.width = max(w.width, columns(w.text(id))+2)
	}
	for _, id := range detailIDs {
		w.width = max(w.width, columns(w.text(id)))
	}
	return w
}

// text is the catalog text id with its placeholders filled (name, value
// pairs).
func (w words) text(id string, args ...string) string { return w.cat.Text(w.tag, id, args...) }

// label pads the label id to n columns, at least one space after it;
// wide characters (Japanese) count two columns.
func (w words) label(id string, n int) string {
	s := w.text(id)
	cols := columns(s)
	if cols >= n {
		return s + " "
	}
	return s + strings.Repeat(" ", n-cols)
}

// columns is the width of s on a terminal: two for East Asian wide and
// fullwidth characters, one for others. An ASCII character is neither
// (UAX #11 makes it narrow or neutral), and is counted without a look-up
// in the width tables: the labels and words of English are all ASCII.
func columns(s string) int {
	n := 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			n++
			continue
		}
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// owner says who an owner is, for people.
func (w words) owner(o rules.Owner) string {
	switch o {
	case rules.OwnerSender, rules.OwnerSenderAdmin, rules.OwnerRecipient, rules.OwnerRecipientAdmin, rules.OwnerGroupOwner, rules.OwnerNone, rules.OwnerUnknown:
		return w.text("cli.owner." + string(o))
	}
	return string(o)
}
