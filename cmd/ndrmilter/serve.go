package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/milter"
	"github.com/ndrmilter/ndrmilter/rules"
)

// runServe is "ndrmilter serve [flags]".
func runServe(args []string) int {
	return serveMain(args, os.Stderr)
}

// serveMain is runServe with an explicit stream for errors, for tests.
func serveMain(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flagged := defaultServeConfig()
	flagged.Domains, flagged.TrustedNetworks, flagged.Rules = nil, nil, nil
	var configPath string
	serveFlags(fs, &flagged, &configPath)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: ndrmilter serve --listen inet:127.0.0.1:PORT --data DIR --domain example.org [--domain ...]\n"+
			"       [--backscatter-action tag|quarantine|reject|discard] [--trusted-networks CIDR,...] [--config FILE] [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ndrmilter serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg, err := resolveConfig(fs, flagged, configPath)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter serve: %v\n", err)
		return 2
	}
	log, level, code := newLogger(cfg.LogLevel, "serve", stderr)
	if log == nil {
		return code
	}
	defer log.Sync()
	if err := serve(cfg, fs, flagged, configPath, level, log); err != nil {
		log.Error("ndrmilter serve stopped", zap.Error(err))
		return 1
	}
	return 0
}

// newLogger is the JSON logger of serve and filter at level; on a bad level
// or logger it reports to stderr and returns nil with the exit status.
func newLogger(levelName, cmd string, stderr io.Writer) (*zap.Logger, zap.AtomicLevel, int) {
	level := zap.NewAtomicLevel()
	if err := level.UnmarshalText([]byte(levelName)); err != nil {
		fmt.Fprintf(stderr, "ndrmilter %s: log level %q: expected debug, info, warn or error\n", cmd, levelName)
		return nil, level, 2
	}
	zc := zap.NewProductionConfig()
	zc.Level = level
	zc.Sampling = nil // one line per bounce, always
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	log, err := zc.Build()
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter %s: logger: %v\n", cmd, err)
		return nil, level, 1
	}
	return log, level, 0
}

// newRegistry is the Prometheus registry of serve and filter, with the Go
// runtime's and the process's collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// startHTTP serves /metrics and /healthz on addr; nil when addr is empty.
func startHTTP(addr string, reg *prometheus.Registry, led ledger.Ledger) (*http.Server, error) {
	if addr == "" {
		return nil, nil
	}
	mln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener %s: %w", addr, err)
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
	go hs.Serve(mln)
	return hs, nil
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

// serve runs the milter until SIGTERM or SIGINT; SIGHUP reloads the
// configuration file and the rules.
func serve(cfg serveConfig, fs *flag.FlagSet, flagged serveConfig, configPath string, level zap.AtomicLevel, log *zap.Logger) error {
	eng, err := rules.Load(cfg.Rules...)
	if err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	mcfg, err := cfg.milterConfig()
	if err != nil {
		return err
	}
	if len(cfg.Domains) == 0 {
		log.Warn("no --domain given: bounces to every domain are judged for backscatter")
	}
	led, err := ledger.Open(cfg.Ledger, cfg.Data, ledger.Options{Retention: time.Duration(cfg.Retention)})
	if err != nil {
		return err
	}
	defer func() {
		if err := led.Close(); err != nil {
			log.Error("closing the ledger", zap.Error(err))
		}
	}()

	reg := newRegistry()
	srv, err := milter.New(mcfg, eng, led, log, reg)
	if err != nil {
		return err
	}

	network, address, _ := parseListen(cfg.Listen)
	ln, err := listen(network, address, cfg.SocketMode)
	if err != nil {
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	hs, err := startHTTP(cfg.MetricsListen, reg, led)
	if err != nil {
		srv.Close()
		return err
	}
	log.Info("ndrmilter serving", zap.String("listen", cfg.Listen), zap.String("metrics", cfg.MetricsListen),
		zap.Strings("domains", cfg.Domains), zap.String("backscatter_action", cfg.BackscatterAction),
		zap.String("ledger", ledgerName(cfg)))

	err = supervise(srv, serveErr, hs, time.Duration(cfg.DrainTimeout),
		func() { reload(cfg, fs, flagged, configPath, srv, level, log) }, log)
	if network == "unix" {
		os.Remove(address)
	}
	if err != nil {
		return fmt.Errorf("milter %w", err)
	}
	log.Info("ndrmilter stopped")
	return nil
}

// reload re-reads the configuration file and the rules on SIGHUP. Settings
// that need new sockets or a new ledger (listen, data, ledger, retention,
// metrics_listen) keep their old values until a restart.
func reload(old serveConfig, fs *flag.FlagSet, flagged serveConfig, configPath string, srv *milter.Server, level zap.AtomicLevel, log *zap.Logger) {
	cfg, err := resolveConfig(fs, flagged, configPath)
	if err != nil {
		log.Error("reload: configuration rejected, keeping the old one", zap.Error(err))
		return
	}
	eng, err := rules.Load(cfg.Rules...)
	if err != nil {
		log.Error("reload: rules rejected, keeping the old ones", zap.Error(err))
		return
	}
	mcfg, err := cfg.milterConfig()
	if err == nil {
		err = srv.Reload(mcfg, eng)
	}
	if err != nil {
		log.Error("reload: configuration rejected, keeping the old one", zap.Error(err))
		return
	}
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		log.Warn("reload: bad log level kept the old one", zap.String("log_level", cfg.LogLevel))
	}
	if cfg.Listen != old.Listen || cfg.Data != old.Data || cfg.Ledger != old.Ledger ||
		cfg.Retention != old.Retention || cfg.MetricsListen != old.MetricsListen {
		log.Warn("reload: listen, data, ledger, retention and metrics_listen change only on restart")
	}
	log.Info("reloaded", zap.Strings("domains", cfg.Domains), zap.String("backscatter_action", cfg.BackscatterAction),
		zap.Strings("rules", cfg.Rules))
}

func ledgerName(c serveConfig) string {
	if c.Ledger == "" {
		return "bbolt in " + c.Data
	}
	if u, _, ok := cutCredentials(c.Ledger); ok {
		return u
	}
	return c.Ledger
}

// cutCredentials hides a password in a redis:// URL for logging.
func cutCredentials(spec string) (string, string, bool) {
	scheme, rest, ok := strings.Cut(spec, "://")
	if !ok {
		return "", "", false
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return "", "", false
	}
	return scheme + "://***@" + rest[at+1:], rest[:at], true
}

// listen opens the milter socket. A unix socket left over from an earlier
// run is removed first (only if it is a socket), and gets the given mode.
func listen(network, address, mode string) (net.Listener, error) {
	if network != "unix" {
		ln, err := net.Listen(network, address)
		if err != nil {
			return nil, fmt.Errorf("milter listener: %w", err)
		}
		return ln, nil
	}
	if fi, err := os.Lstat(address); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("milter listener: %s exists and is not a socket", address)
		}
		if c, err := net.Dial("unix", address); err == nil {
			c.Close()
			return nil, fmt.Errorf("milter listener: %s is in use by another process", address)
		}
		os.Remove(address)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("milter listener: %w", err)
	}
	ln, err := net.Listen("unix", address)
	if err != nil {
		return nil, fmt.Errorf("milter listener: %w", err)
	}
	m, _ := strconv.ParseUint(mode, 8, 32)
	if err := os.Chmod(address, os.FileMode(m)); err != nil {
		ln.Close()
		return nil, fmt.Errorf("milter listener: chmod %s: %w", address, err)
	}
	return ln, nil
}
