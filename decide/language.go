package decide

import (
	"strings"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Language is the language of the words ndrmilter writes into a bounce
// (X-NDR-Explanation, the Subject tag, the body summary): one language, or,
// with Auto, the language of the message the bounce is about, as the one
// who wrote it reads it. The zero Language is English.
type Language struct {
	// Tag is the language when not Auto.
	Tag language.Tag
	// Auto writes in the language of the original message (see For);
	// Default when it cannot be told or is not offered.
	Auto    bool
	Default language.Tag
}

// ParseLanguage reads the language of the configuration: a language tag
// (en, de, pt-BR), or "auto" with def the language when the original's
// cannot be told. Both must be among offered (the languages complete in
// every catalog, Offered), or of the base language of one; with offered nil
// only their form is checked. "" is English.
func ParseLanguage(v, def string, offered []language.Tag) (Language, error) {
	pick := func(key, s string) (language.Tag, error) {
		if strings.TrimSpace(s) == "" {
			return language.English, nil
		}
		tag, err := language.Parse(strings.TrimSpace(s))
		if err != nil {
			return language.Und, &languageError{key, s, offered, "not a language tag"}
		}
		if offered == nil {
			return tag, nil
		}
		for _, o := range offered {
			if o == tag {
				return o, nil
			}
		}
		base, _ := tag.Base()
		for _, o := range offered {
			if b, _ := o.Base(); b == base {
				return o, nil
			}
		}
		return language.Und, &languageError{key, s, offered, "not a language ndrmilter writes (yet)"}
	}
	d, err := pick("language_default", def)
	if err != nil {
		return Language{}, err
	}
	if strings.TrimSpace(strings.ToLower(v)) == "auto" {
		return Language{Auto: true, Default: d}, nil
	}
	t, err := pick("language", v)
	if err != nil {
		return Language{}, err
	}
	return Language{Tag: t, Default: d}, nil
}

// languageError is the error of ParseLanguage.
type languageError struct {
	key, value string
	offered    []language.Tag
	why        string
}

func (e *languageError) Error() string {
	names := make([]string, len(e.offered))
	for i, t := range e.offered {
		names[i] = t.String()
	}
	more := ""
	if e.key == "language" {
		more = " or auto"
	}
	return e.key + " " + quote(e.value) + ": " + e.why + ": expected one of " + strings.Join(names, ", ") + more
}

func quote(s string) string { return `"` + s + `"` }

// String is the language as the configuration writes it.
func (l Language) String() string {
	if l.Auto {
		return "auto (default " + l.Default.String() + ")"
	}
	if l.Tag == language.Und {
		return language.English.String()
	}
	return l.Tag.String()
}

// maxOriginalText bounds the text of the original read to tell its language.
const maxOriginalText = 4096

// For returns the language to write a report in: Tag, or with Auto the
// language of the original message when one of offered, else Default. The
// original's language is its Content-Language field (RFC 3282) when the
// report includes its header (a message/rfc822 or text/rfc822-headers
// part), else what catalog.Detect reads in its subject and the start of its
// text. raw is the report as kept.
func (l Language) For(raw []byte, rep *dsn.Report, offered []language.Tag) language.Tag {
	if !l.Auto {
		if l.Tag == language.Und {
			return language.English
		}
		return l.Tag
	}
	def := l.Default
	if def == language.Und {
		def = language.English
	}
	contentLanguage, text := originalText(raw)
	if text == "" && rep != nil {
		text = rep.Original.Subject
	}
	for _, tag := range catalog.ContentLanguage(contentLanguage) {
		if t, ok := offer(tag, offered); ok {
			return t
		}
	}
	if tag, ok := catalog.Detect(text); ok {
		if t, ok := offer(tag, offered); ok {
			return t
		}
	}
	return def
}

// offer returns the language of offered for tag: the same, or of the same
// base language.
func offer(tag language.Tag, offered []language.Tag) (language.Tag, bool) {
	base, _ := tag.Base()
	for _, o := range offered {
		if b, _ := o.Base(); o == tag || b == base {
			return o, true
		}
	}
	return language.Und, false
}

// originalText returns what a report holds of the message it is about, to
// tell its language: its Content-Language field, and its subject and the
// start of its text (at most maxOriginalText bytes, as UTF-8). A report
// without such a part gives nothing.
func originalText(raw []byte) (contentLanguage, text string) {
	m := message.Read(raw)
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.MediaType {
		case "message/rfc822", "message/global":
			body, _ := p.Decode(1 << 20)
			om := message.Read(body)
			var b strings.Builder
			b.WriteString(message.DecodeWords(om.Header.GetString("Subject")))
			for j := range om.Parts {
				q := &om.Parts[j]
				if q.MediaType != "text/plain" && q.MediaType != "text/html" {
					continue
				}
				t, _ := q.Decode(maxOriginalText)
				if q.MediaType == "text/html" {
					t = message.HTMLText(t)
				}
				b.WriteString("\n")
				b.Write(t)
				break
			}
			return om.Header.GetString("Content-Language"), clip(b.String(), maxOriginalText)
		case "text/rfc822-headers":
			body, _ := p.Decode(64 << 10)
			h, _, _ := message.ReadHeader(body)
			return h.GetString("Content-Language"), message.DecodeWords(h.GetString("Subject"))
		}
	}
	return "", ""
}

// clip cuts s to at most n bytes, at a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Offered are the languages ndrmilter writes reports in with the rules e:
// those whose words e offers (rules.Engine.Languages) and whose sentences
// the catalog offers (catalog.Catalog.Languages), English first.
func Offered(e *rules.Engine) []language.Tag {
	cat := catalog.Default()
	var out []language.Tag
	for _, tag := range e.Languages() {
		if cat.Offers(tag) {
			out = append(out, tag)
		}
	}
	return out
}
