package main

// What serve and filter share once they run: the metrics registry, the
// loopback HTTP listener of /metrics and /healthz, and the signal loop.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// newRegistry is the Prometheus registry of serve and filter, with the Go
// runtime's and the process's collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(frontend.NewBuildInfoGauge(buildInfo()))
	return reg
}

// listenHTTP opens the listener of /metrics and /healthz; nil when addr is
// empty. It is opened before anything is served, so that a port in use is a
// start-up error.
func listenHTTP(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot open the metrics listener on %s: %w", addr, err)
	}
	return ln, nil
}

// serveHTTP serves /metrics and /healthz on ln; nil when ln is nil.
func serveHTTP(ln net.Listener, reg *prometheus.Registry, led ledger.Ledger) *http.Server {
	if ln == nil {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		// A lookup, not Stats: it is cheap on every ledger, whatever its size.
		if _, err := led.ByMessageID(ctx, "healthz.probe@ndrmilter.invalid"); err != nil && !errors.Is(err, ledger.ErrNotFound) {
			// Mail still flows (verdicts are "unknown"): degraded, not down.
			http.Error(w, "degraded: ledger: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	return hs
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
