package helpdesk

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"strings"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/ledger"
)

//go:embed templates/page.html
var pageTemplate string

//go:embed static
var static embed.FS

// Backend is what the page reads bounces, codes and the ledger with.
type Backend interface {
	// Explain reads a message as POST /api/v1/explain does, its words in
	// the language tag; the error wraps ErrUnreadable for input that is not
	// a message at all.
	Explain(ctx context.Context, tag language.Tag, raw []byte) ([]explanation.Judged, error)
	// Code reads a status code or a reply line, its words in tag.
	Code(tag language.Tag, q explanation.CodeQuery) explanation.CodeRecord
	// Lookup finds a message in the ledger by Message-ID or queue id:
	// ledger.ErrNotFound when it is not there, an error wrapping ErrNoLedger
	// when there is no ledger.
	Lookup(ctx context.Context, id string) (ledger.Record, error)
	// Limit is the largest message read, in bytes (the parse cap).
	Limit() int
}

// Errors a Backend returns.
var (
	ErrUnreadable = errors.New("not a message")
	ErrNoLedger   = errors.New("no ledger")
)

// Config is what a Page is made of.
type Config struct {
	Backend Backend
	// Catalog gives the page's words (nil: catalog.Default()).
	Catalog *catalog.Catalog
}

// Page is the helpdesk page and its assets.
type Page struct {
	backend Backend
	cat     *catalog.Catalog
	tmpl    map[language.Tag]*template.Template
}

// Route is a path the page answers, for the server that mounts it.
type Route struct {
	Method  string
	Path    string // as in docs/openapi.yaml
	Handler http.Handler
}

// New returns the page.
func New(cfg Config) *Page {
	if cfg.Catalog == nil {
		cfg.Catalog = catalog.Default()
	}
	p := &Page{backend: cfg.Backend, cat: cfg.Catalog, tmpl: map[language.Tag]*template.Template{}}
	for _, tag := range cfg.Catalog.Languages() {
		p.tmpl[tag] = template.Must(template.New("page").Funcs(template.FuncMap{"t": p.textFunc(tag)}).Parse(pageTemplate))
	}
	return p
}

// textFunc is the template function t of one language: t "id" "name"
// value... gives the catalog's text.
func (p *Page) textFunc(tag language.Tag) func(id string, args ...any) string {
	return func(id string, args ...any) string {
		s := make([]string, len(args))
		for i, a := range args {
			s[i] = toString(a)
		}
		return p.cat.Text(tag, id, s...)
	}
}

// Routes are the page's paths.
func (p *Page) Routes() []Route {
	assets, _ := fs.Sub(static, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(assets))
	return []Route{
		{http.MethodGet, "/", http.HandlerFunc(p.handleForm)},
		{http.MethodPost, "/", http.HandlerFunc(p.handleExplain)},
		{http.MethodGet, "/lookup", http.HandlerFunc(p.handleLookup)},
		{http.MethodGet, "/static/{file}", files},
	}
}

// NotFound answers a path the page does not have.
func (p *Page) NotFound(w http.ResponseWriter, r *http.Request) {
	tag := p.cat.Match(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language"))
	http.Error(w, p.cat.Text(tag, "error.not_found"), http.StatusNotFound)
}

// data is what the template shows.
type data struct {
	Lang      string
	LangParam string // the lang query parameter, kept in the forms
	Action    string
	Text      string
	LookupID  string
	HasResult bool
	Error     string
	Explained *explainedView
	Code      *codeView
	Lookup    *lookupView
}

// render writes the page with status.
func (p *Page) render(w http.ResponseWriter, r *http.Request, tag language.Tag, status int, d data) {
	d.Lang = tag.String()
	d.HasResult = d.Error != "" || d.Explained != nil || d.Code != nil || d.Lookup != nil
	d.Action = "/#result"
	if d.LangParam != "" {
		d.Action = "/?lang=" + urlQueryEscape(d.LangParam) + "#result"
	}
	var buf bytes.Buffer
	if err := p.tmpl[tag].Execute(&buf, d); err != nil {
		http.Error(w, "the page could not be written: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", d.Lang)
	h.Add("Vary", "Accept-Language")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// language is the request's language and its explicit choice, if any.
func (p *Page) language(r *http.Request, explicit string) (language.Tag, string) {
	tag := p.cat.Match(explicit, r.Header.Get("Accept-Language"))
	if strings.TrimSpace(explicit) == "" {
		return tag, ""
	}
	return tag, explicit
}

// handleForm is GET /: the empty form.
func (p *Page) handleForm(w http.ResponseWriter, r *http.Request) {
	tag, lp := p.language(r, r.URL.Query().Get("lang"))
	p.render(w, r, tag, http.StatusOK, data{LangParam: lp})
}
