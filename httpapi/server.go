package httpapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/helpdesk"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Settings are what a reload (SIGHUP) may change.
type Settings struct {
	// Rules explain reports and codes.
	Rules *rules.Engine
	// Domains are our domains: for the backscatter verdict (empty: every
	// domain is ours) and the default of an import.
	Domains []string
	// ParseCap is the largest message POST /api/v1/explain and the page
	// read, in bytes (0: DefaultParseCap).
	ParseCap int
	// LookupTimeout bounds the ledger lookups of one verdict (0:
	// DefaultLookupTimeout).
	LookupTimeout time.Duration
	// ImportMaxBytes is the largest body POST /api/v1/ledger/import reads,
	// in bytes as sent (compressed, for a gzip body); past it the import
	// stops with 413 (0: DefaultImportMaxBytes).
	ImportMaxBytes int64
	// ImportTimeout bounds one POST /api/v1/ledger/import, reading its
	// body and writing its records; past it the import stops with 408 (0:
	// DefaultImportTimeout).
	ImportTimeout time.Duration
}

// Defaults of Settings, those of the milter (package frontend).
const (
	DefaultParseCap      = 2 << 20
	DefaultLookupTimeout = 200 * time.Millisecond
)

// Config is what a Server is made of.
type Config struct {
	// Settings are the first settings; Server.Reload replaces them.
	Settings Settings
	// Ledger is the ledger of sent mail; nil when there is none (the
	// ledger routes answer 503, verdicts are "unknown; no-ledger").
	Ledger ledger.Ledger
	// Retention is the ledger's; an import skips older records (0: 30 days).
	Retention time.Duration
	// Metrics is what /metrics serves; nil: no /metrics.
	Metrics prometheus.Gatherer
	// Users, when not nil, must authenticate (basic authentication) on
	// every route but /healthz.
	Users *Users
	// Health, when not nil, says what else than the ledger keeps the front
	// end from being healthy (its outbound records cannot be made durable):
	// /healthz answers 503 with its error.
	Health func() error
	// Token, when not empty and Users is set, is accepted as a bearer
	// token in place of a user: the service's own command line uses it
	// (AddrFile).
	Token string
	// Catalog gives the words of the page and chooses languages (nil:
	// catalog.Default()).
	Catalog *catalog.Catalog
	// Log gets a line per failed request that is the server's fault.
	Log *zap.Logger
}

// Server answers the HTTP API, the helpdesk page, /metrics and /healthz.
type Server struct {
	cfg      Config
	settings atomic.Pointer[Settings]
	routes   []route
	handler  http.Handler
	// explaining bounds the messages parsed at once: each holds up to the
	// parse cap in memory.
	explaining chan struct{}
	authCache  sync.Map // verified credentials (see Users)
}

// route is one path the server answers, with a handler per method.
type route struct {
	path    string // as in docs/openapi.yaml: "/api/v1/ledger/{id}"
	pattern string // as http.ServeMux takes it
	methods map[string]http.Handler
	public  bool // answered without authentication
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	if cfg.Catalog == nil {
		cfg.Catalog = catalog.Default()
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Retention <= 0 {
		cfg.Retention = 30 * 24 * time.Hour
	}
	s := &Server{cfg: cfg, explaining: make(chan struct{}, maxExplaining)}
	s.Reload(cfg.Settings)
	s.routes = []route{
		{path: "/api/v1/explain", methods: map[string]http.Handler{http.MethodPost: http.HandlerFunc(s.handleExplain)}},
		{path: "/api/v1/code", methods: map[string]http.Handler{http.MethodGet: http.HandlerFunc(s.handleCode)}},
		{path: "/api/v1/ledger/stats", methods: map[string]http.Handler{http.MethodGet: http.HandlerFunc(s.handleLedgerStats)}},
		{path: "/api/v1/ledger/import", methods: map[string]http.Handler{http.MethodPost: http.HandlerFunc(s.handleLedgerImport)}},
		{path: "/api/v1/ledger/{id}", pattern: "/api/v1/ledger/{id...}", methods: map[string]http.Handler{http.MethodGet: http.HandlerFunc(s.handleLedgerLookup)}},
		{path: "/healthz", methods: map[string]http.Handler{http.MethodGet: http.HandlerFunc(s.handleHealth)}, public: true},
	}
	if cfg.Metrics != nil {
		s.routes = append(s.routes, route{path: "/metrics",
			methods: map[string]http.Handler{http.MethodGet: promhttp.HandlerFor(cfg.Metrics, promhttp.HandlerOpts{})}})
	}
	page := helpdesk.New(helpdesk.Config{Backend: backend{s}, Catalog: cfg.Catalog})
	for _, pr := range page.Routes() {
		i := slices.IndexFunc(s.routes, func(r route) bool { return r.path == pr.Path })
		if i < 0 {
			s.routes = append(s.routes, route{path: pr.Path, methods: map[string]http.Handler{}})
			i = len(s.routes) - 1
		}
		s.routes[i].methods[pr.Method] = pr.Handler
	}
	mux := http.NewServeMux()
	for _, r := range s.routes {
		p := r.pattern
		if p == "" {
			p = r.path
		}
		if p == "/" {
			p = "/{$}"
		}
		mux.Handle(p, s.dispatch(r))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			writeError(w, http.StatusNotFound, "no such resource: "+r.URL.Path+" (the API is described in docs/openapi.yaml)")
			return
		}
		page.NotFound(w, r)
	})
	cop := http.NewCrossOriginProtection()
	s.handler = securityHeaders(cop.Handler(s.authenticate(mux)))
	return s
}

// maxExplaining is how many messages are parsed at once; more wait. With
// the default parse cap, 16 MiB of bodies at most.
const maxExplaining = 8

// Handler is the server's http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Reload replaces the settings; requests already running keep the old ones.
func (s *Server) Reload(set Settings) {
	if set.ParseCap <= 0 {
		set.ParseCap = DefaultParseCap
	}
	if set.LookupTimeout <= 0 {
		set.LookupTimeout = DefaultLookupTimeout
	}
	if set.ImportMaxBytes <= 0 {
		set.ImportMaxBytes = DefaultImportMaxBytes
	}
	if set.ImportTimeout <= 0 {
		set.ImportTimeout = DefaultImportTimeout
	}
	set.Domains = slices.Clone(set.Domains)
	s.settings.Store(&set)
}

func (s *Server) current() *Settings { return s.settings.Load() }

// Routes are the paths and methods the server answers, as "METHOD PATH"
// with paths written as in docs/openapi.yaml, sorted.
func (s *Server) Routes() []string {
	var out []string
	for _, r := range s.routes {
		for m := range r.methods {
			out = append(out, m+" "+r.path)
		}
	}
	sort.Strings(out)
	return out
}

// dispatch calls the handler of the request's method, HEAD as GET, or
// answers 405 with the methods the path takes.
func (s *Server) dispatch(r route) http.Handler {
	var allowed []string
	for m := range r.methods {
		allowed = append(allowed, m)
	}
	if _, ok := r.methods[http.MethodGet]; ok {
		allowed = append(allowed, http.MethodHead)
	}
	sort.Strings(allowed)
	allow := strings.Join(allowed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		m := req.Method
		if m == http.MethodHead {
			m = http.MethodGet
		}
		h, ok := r.methods[m]
		if !ok {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, "method "+req.Method+" not allowed on "+r.path+": expected "+allow)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// language is the language a request asks for (?lang=, else
// Accept-Language), among those both the catalog and the rules write, and
// says so in the answer.
func (s *Server) language(w http.ResponseWriter, r *http.Request) language.Tag {
	tag := s.wordsLanguage(s.cfg.Catalog.Match(r.URL.Query().Get("lang"), r.Header.Get("Accept-Language")))
	w.Header().Set("Content-Language", tag.String())
	w.Header().Add("Vary", "Accept-Language")
	return tag
}

// handleHealth is /healthz: 200 "ok", or 503 when the ledger cannot be
// read (mail still flows then, with "unknown" verdicts: degraded, not down).
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if s.cfg.Ledger != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		// A lookup, not Stats: it is cheap on every ledger, whatever its size.
		if _, err := s.cfg.Ledger.ByMessageID(ctx, "healthz.probe@ndrmilter.invalid"); err != nil && !errors.Is(err, ledger.ErrNotFound) {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("degraded: ledger: " + err.Error() + "\n"))
			return
		}
	}
	if s.cfg.Health != nil {
		if err := s.cfg.Health(); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("degraded: outbound records: " + err.Error() + "\n"))
			return
		}
	}
	w.Write([]byte("ok\n"))
}

// wordsLanguage is tag when the rules write it too (their translation is
// complete), else English: the words of a reading are never half in one
// language.
func (s *Server) wordsLanguage(tag language.Tag) language.Tag {
	if slices.Contains(s.current().Rules.Languages(), tag) {
		return tag
	}
	return language.English
}
