package main

// What serve and filter share once they run: the metrics registry, the
// loopback HTTP listener (the API, the helpdesk page, /metrics and /healthz:
// package httpapi), and the signal loop.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// newRegistry is the Prometheus registry of serve and filter: their own
// metrics and the build information. The Go runtime's and the process's
// metrics are in client_golang's default registry (metricsGatherer).
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(frontend.NewBuildInfoGauge(buildInfo()))
	return reg
}

// metricsGatherer is what /metrics serves: reg and client_golang's default
// registry, which holds the Go runtime's collector and the process's
// (go_*, process_*): client_golang registers them there when any program
// that links it starts. Serving those rather than registering the
// collectors package's copies in reg gives the same metrics without making
// them twice, and leaves the collectors package (and database/sql, which it
// imports) out of the binary: its init compiled five regexps at every
// start of every command (issue 14).
func metricsGatherer(reg *prometheus.Registry) prometheus.Gatherer {
	return prometheus.Gatherers{prometheus.DefaultGatherer, reg}
}

// httpFront is the HTTP listener of serve or filter as it runs: the API,
// the helpdesk page, /metrics and /healthz (package httpapi).
type httpFront struct {
	hs      *http.Server
	api     *httpapi.Server
	addrDir string           // where the API address file is; "" for none
	addr    httpapi.AddrFile // what was written there
}

// listenHTTP opens the HTTP listener; nil when http_listen is empty. It is
// opened before anything is served, so that a port in use is a start-up
// error.
func listenHTTP(c serveConfig) (*httpapi.Listener, error) {
	if c.HTTPListen == "" {
		return nil, nil
	}
	return httpapi.Listen(c.HTTPListen, c.HTTPTLSCert, c.HTTPTLSKey)
}

// addrFileDir is where the API address file goes: next to an embedded
// ledger, whose file the service locks; "" for a shared (Redis) ledger,
// which the command line opens itself.
func addrFileDir(c serveConfig) string {
	switch {
	case boltInData(c.Ledger):
		return c.Data
	case strings.HasPrefix(c.Ledger, "bolt:"):
		return filepath.Dir(strings.TrimPrefix(c.Ledger, "bolt:"))
	}
	return ""
}

// httpSettings are the API's settings from the configuration.
func httpSettings(c serveConfig, eng *rules.Engine) httpapi.Settings {
	return httpapi.Settings{Rules: eng, Domains: c.Domains, ParseCap: c.ParseCap, LookupTimeout: time.Duration(c.LookupTimeout),
		ImportMaxBytes: c.HTTPImportMaxBytes, ImportTimeout: time.Duration(c.HTTPImportTimeout)}
}

// startHTTP serves on ln (nil: the listener is off), and leaves the API's
// address next to an embedded ledger for the ledger commands. It first
// removes the address file an earlier run left (after a crash).
// health, when not nil, says what else keeps the front end from being
// healthy (its outbound records cannot be made durable): /healthz answers
// 503 then.
func startHTTP(ln *httpapi.Listener, c serveConfig, eng *rules.Engine, reg *prometheus.Registry, led ledger.Ledger, log *zap.Logger, health func() error) (*httpFront, error) {
	h := &httpFront{addrDir: addrFileDir(c)}
	if h.addrDir != "" {
		httpapi.RemoveAddrFile(h.addrDir, httpapi.AddrFile{})
	}
	if ln == nil {
		return h, nil
	}
	var users *httpapi.Users
	if c.HTTPUsers != "" {
		var err error
		if users, err = httpapi.LoadUsers(c.HTTPUsers); err != nil {
			return nil, err
		}
	}
	if users == nil && !ln.Loopback() {
		log.Warn("the HTTP listener is not on loopback and has no http_users: whoever reaches it can read the ledger and add to it",
			zap.String("http_listen", c.HTTPListen))
	}
	token := ""
	if users != nil {
		token = httpapi.NewToken()
	}
	h.api = httpapi.New(httpapi.Config{Settings: httpSettings(c, eng), Ledger: led, Retention: time.Duration(c.Retention),
		Metrics: metricsGatherer(reg), Users: users, Token: token, Log: log, Health: health})
	h.hs = httpapi.Serve(ln, h.api.Handler())
	if h.addrDir != "" {
		h.addr = httpapi.AddrFile{URL: ln.URL(), PID: os.Getpid(), Token: token, CertSHA256: ln.CertSHA256}
		if err := httpapi.WriteAddrFile(h.addrDir, h.addr); err != nil {
			log.Warn("ledger lookup, stats and import cannot reach this service while it runs", zap.Error(err))
			h.addr = httpapi.AddrFile{}
		}
	}
	return h, nil
}

// server is the HTTP server, nil when the listener is off.
func (h *httpFront) server() *http.Server {
	if h == nil {
		return nil
	}
	return h.hs
}

// reload gives the API the reloaded configuration and rules.
func (h *httpFront) reload(c serveConfig, eng *rules.Engine) {
	if h != nil && h.api != nil {
		h.api.Reload(httpSettings(c, eng))
	}
}

// stopped removes the address file once the server is closed.
func (h *httpFront) stopped() {
	if h != nil && h.addrDir != "" && h.addr.URL != "" {
		httpapi.RemoveAddrFile(h.addrDir, h.addr)
	}
}

// frontEnd is a running front end (the milter or the filter) as the signal
// loop drives it.
type frontEnd interface {
	Shutdown(ctx context.Context) error
	Sessions() int
}

// supervise runs until the front end's Serve returns (serveErr) or SIGTERM
// or SIGINT drains it, for at most drain; SIGHUP calls reload. It closes hs
// at the end.
func supervise(fe frontEnd, serveErr <-chan error, hs *http.Server, drain time.Duration, reload func(), log *zap.Logger) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	defer func() {
		if hs != nil {
			hs.Close()
		}
	}()
	for {
		select {
		case err := <-serveErr:
			if err != nil {
				return fmt.Errorf("listener: %w", err)
			}
			return nil
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				reload()
				continue
			}
			log.Info("draining sessions", zap.String("signal", sig.String()),
				zap.Int("sessions", fe.Sessions()), zap.Duration("timeout", drain))
			ctx, cancel := context.WithTimeout(context.Background(), drain)
			err := fe.Shutdown(ctx)
			cancel()
			if err != nil {
				log.Warn("drain timed out: remaining sessions closed", zap.Error(err))
			}
			<-serveErr
			return nil
		}
	}
}

// netListener is ln as a net.Listener, nil when ln is nil (the HTTP listener
// is off).
func netListener(ln *httpapi.Listener) net.Listener {
	if ln == nil {
		return nil
	}
	return ln.Listener
}
