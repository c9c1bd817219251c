// Package catalog holds the words ndrmilter writes for people on its
// helpdesk page and in the errors of its HTTP API, one message catalog per
// language, keyed by message id, and chooses the language of a request.
//
// A catalog is data: one YAML file per language in messages/ (en.yaml is
// the reference), a flat mapping of message id to text. A text may hold
// placeholders written {name}, filled in by Catalog.Text; a translation
// keeps the placeholders of the English text and may move them. Load checks
// that every language gives exactly the ids of English with the same
// placeholders, so that a page never shows a missing text or a raw
// placeholder.
//
// The language is chosen with golang.org/x/text/language: an explicit choice
// (a "lang" query parameter) first, then the Accept-Language header (RFC
// 9110 section 12.5.4), each matched against the catalog's languages; what
// matches none of them gets English.
//
// To add a language: copy messages/en.yaml to messages/TAG.yaml (TAG a BCP 47
// tag such as de or pt-BR), translate every text, keep every {placeholder},
// and run the tests of this package.
package catalog
