// Package catalog holds the fixed words ndrmilter writes for people (the
// helpdesk page, the labels of the command line, the sentences the milter
// writes into bounces), one message catalog per language, keyed by message
// id; it chooses the language of a request, and tells the language of a
// message (Detect, ContentLanguage). The words of the rules are translated
// beside the rules (package rules, rules/i18n).
//
// A catalog is data: one YAML file per language in messages/ (en.yaml is
// the reference), a flat mapping of message id to text. A text may hold
// placeholders written {name}, filled in by Catalog.Text; a translation
// keeps the placeholders of the English text and may move them. Load offers
// a language only when it gives exactly the ids of English, each with the
// same placeholders and well formed (Problems says what is wrong with the
// others), so that a page never shows a missing text, a raw placeholder or
// half a page in English. The files are compiled into the binary at build
// time (go generate ./catalog writes builtin_gen.go; a test fails while it
// is stale), so that Default parses nothing when a command starts.
//
// The language is chosen with golang.org/x/text/language: an explicit choice
// (a "lang" query parameter) first, then the Accept-Language header (RFC
// 9110 section 12.5.4), each matched against the catalog's languages; what
// matches none of them gets English.
//
// To add a language: copy messages/en.yaml to messages/TAG.yaml (TAG a BCP 47
// tag such as de or pt-BR), translate every text, keep every {placeholder},
// and run go test ./catalog -run 'TestCatalogsAreComplete/TAG$' (the
// README's "Adding a language" says the rest).
package catalog
