package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/milter"
	"github.com/ndrmilter/ndrmilter/rules"
)

// serveMain is "ndrmilter serve [flags]", with an explicit stream for
// errors and logs.
func serveMain(args []string, stderr io.Writer) int {
	fs, flagged, configPath := serveFlagSet()
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commandByName("serve").usageText()) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ndrmilter serve: unexpected argument %q (serve takes only flags)\n", fs.Arg(0))
		return exitUsage
	}
	f, _ := stderr.(*os.File)
	journal := stderrIsJournal(f)
	cfg, src, eng, err := loadServeConfig(fs, *flagged, *configPath)
	if err != nil {
		startError(stderr, "serve", journal, err)
		return exitConfig
	}
	level := zap.NewAtomicLevel()
	level.UnmarshalText([]byte(cfg.LogLevel)) // checked by loadServeConfig
	log := newLogger(stderr, level, journal).WithOptions(zap.AddCaller())
	defer log.Sync()
	st := &serveState{fs: fs, flagged: *flagged, configPath: *configPath, level: level, log: log}
	code, err := st.start(cfg, eng)
	if err != nil {
		startError(stderr, "serve", journal, err)
		return code
	}
	logFlagSettings(log, fs, src)
	if err := st.run(); err != nil {
		log.Error("ndrmilter serve stopped", zap.Error(err))
		return exitNo
	}
	return exitOK
}

// startError writes a start-up error: one sentence a line, at journald's
// error priority when standard error is the journal.
func startError(w io.Writer, cmd string, journal bool, err error) {
	prefix := "ndrmilter " + cmd + ": "
	if journal {
		prefix = fmt.Sprintf("<%d>%s", priorityErr, prefix)
	}
	var probs configProblems
	if errors.As(err, &probs) {
		for _, p := range probs {
			fmt.Fprintf(w, "%sconfiguration rejected: %s\n", prefix, p.Error())
		}
		return
	}
	fmt.Fprintf(w, "%s%v\n", prefix, err)
}

// loadServeConfig resolves and validates the configuration as serve runs
// it, and loads its rules.
func loadServeConfig(fs *flag.FlagSet, flagged serveConfig, configPath string) (serveConfig, *configSource, *rules.Engine, error) {
	cfg, src, err := resolveConfigSource(fs, flagged, configPath)
	if err != nil {
		return cfg, src, nil, err
	}
	probs := cfg.checkValues(src)
	eng, loadProbs := cfg.checkLoads(src)
	if probs = append(probs, loadProbs...); len(probs) > 0 {
		return cfg, src, nil, probs
	}
	return cfg, src, eng, nil
}

// logFlagSettings logs the values that came from flags rather than the
// file, and warns for each one that overrides a value the file sets.
func logFlagSettings(log *zap.Logger, fs *flag.FlagSet, src *configSource) {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if f.Name == "ledger" {
			if u, _, ok := cutCredentials(v); ok {
				v = u
			}
		}
		set = append(set, "--"+f.Name+"="+v)
		if key, ok := flagKeys[f.Name]; ok && src != nil && src.file != "" {
			if p, inFile := src.keys[key]; inFile {
				log.Warn("a command-line flag overrides the configuration file", zap.String("flag", "--"+f.Name),
					zap.String("key", key), zap.String("file", fmt.Sprintf("%s:%d", src.file, p.line)))
			}
		}
	})
	if len(set) > 0 {
		log.Info("settings from command-line flags", zap.Strings("flags", set))
	}
}

// serveState is a running serve: what it was started with and what it runs.
type serveState struct {
	fs         *flag.FlagSet
	flagged    serveConfig
	configPath string
	level      zap.AtomicLevel
	log        *zap.Logger

	cfg      serveConfig
	led      ledger.Ledger
	srv      *milter.Server
	http     *httpFront
	network  string
	address  string
	serveErr chan error
	reloads  *reloadMetrics
}

// start opens the ledger and the sockets and starts serving. On error it
// returns the exit status that names the failure, with everything opened
// closed again.
func (st *serveState) start(cfg serveConfig, eng *rules.Engine) (int, error) {
	st.cfg = cfg
	mcfg, err := cfg.milterConfig()
	if err != nil {
		return exitConfig, err
	}
	led, err := openFrontEndLedger(cfg, st.log)
	if err != nil {
		return exitLedger, fmt.Errorf("cannot open the ledger (%s): %w", ledgerName(cfg), err)
	}
	st.led = led
	fail := func(code int, err error) (int, error) {
		led.Close()
		return code, err
	}

	reg := newRegistry()
	reg.MustRegister(frontend.NewLedgerSize(led))
	st.reloads = newReloadMetrics(reg)
	srv, err := milter.New(mcfg, eng, led, st.log, reg)
	if err != nil {
		return fail(exitConfig, err)
	}
	st.srv = srv

	st.network, st.address, _ = parseListen(cfg.Listen)
	ln, err := listen(st.network, st.address, cfg.SocketMode)
	if err != nil {
		return fail(exitListen, fmt.Errorf("cannot listen on %s: %w", cfg.Listen, err))
	}
	mln, err := listenHTTP(cfg)
	if err != nil {
		ln.Close()
		return fail(exitListen, err)
	}
	warnExposed(st.log, "milter", ln, cfg.ListenAllow)
	warnExposed(st.log, "metrics", netListener(mln), nil)
	// The gauges say the configuration loaded before /metrics is served:
	// a scrape right after start reads 1, not the gauge's zero.
	st.reloads.loaded(true, time.Now())
	if st.http, err = startHTTP(mln, cfg, eng, reg, led, st.log, srv.Health); err != nil {
		ln.Close()
		mln.Close()
		return fail(exitConfig, err)
	}
	st.serveErr = make(chan error, 1)
	go func() { st.serveErr <- srv.Serve(ln) }()
	st.log.Info("ndrmilter serving", zap.String("version", versionLine()), zap.String("listen", cfg.Listen),
		zap.String("http", cfg.HTTPListen), zap.Strings("domains", cfg.Domains),
		zap.String("backscatter_action", cfg.BackscatterAction), zap.String("ledger", ledgerName(cfg)))
	if len(cfg.Domains) == 0 {
		st.log.Warn("no domains configured: bounces to every domain are judged for backscatter")
	}
	return exitOK, nil
}

// run serves until SIGTERM or SIGINT; SIGHUP reloads the configuration
// file and the rules. It returns an error when the milter listener fails.
func (st *serveState) run() error {
	defer func() {
		if err := st.led.Close(); err != nil {
			st.log.Error("closing the ledger", zap.Error(err))
		}
	}()
	err := supervise(st.srv, st.serveErr, st.http.server(), time.Duration(st.cfg.DrainTimeout), st.reload, st.log)
	st.http.stopped()
	if err != nil {
		return fmt.Errorf("milter %w", err)
	}
	if st.network == "unix" {
		os.Remove(st.address)
	}
	st.log.Info("ndrmilter stopped")
	return nil
}

// reload re-reads the configuration file and the rules on SIGHUP, and
// records the outcome in the reload metrics. Settings that need new
// sockets or a new ledger (listen, data, ledger, retention,
// http_listen and its users and TLS) keep their old values until a restart.
func (st *serveState) reload() {
	cfg, _, eng, err := loadServeConfig(st.fs, st.flagged, st.configPath)
	if err == nil {
		var mcfg milter.Config
		if mcfg, err = cfg.milterConfig(); err == nil {
			err = st.srv.Reload(mcfg, eng)
		}
		if err == nil {
			st.http.reload(cfg, eng)
		}
	}
	if err != nil {
		st.reloads.loaded(false, time.Now())
		var probs configProblems
		if errors.As(err, &probs) {
			for _, p := range probs {
				st.log.Error("reload: configuration rejected, keeping the old one", zap.String("problem", p.Error()))
			}
		} else {
			st.log.Error("reload: configuration rejected, keeping the old one", zap.Error(err))
		}
		return
	}
	st.reloads.loaded(true, time.Now())
	st.level.UnmarshalText([]byte(cfg.LogLevel)) // checked by loadServeConfig
	old := st.cfg
	if cfg.Listen != old.Listen || cfg.Data != old.Data || cfg.Ledger != old.Ledger ||
		cfg.Retention != old.Retention || cfg.SocketMode != old.SocketMode || httpChanged(cfg, old) {
		st.log.Warn("reload: listen, socket_mode, data, ledger, retention, http_listen, http_users, http_tls_cert and http_tls_key change only on restart")
	}
	st.cfg.Domains, st.cfg.BackscatterAction, st.cfg.Rules, st.cfg.LogLevel = cfg.Domains, cfg.BackscatterAction, cfg.Rules, cfg.LogLevel
	st.log.Info("reloaded", zap.Strings("domains", cfg.Domains), zap.String("backscatter_action", cfg.BackscatterAction),
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
			return nil, err
		}
		return ln, nil
	}
	if fi, err := os.Lstat(address); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", address)
		}
		if c, err := net.Dial("unix", address); err == nil {
			c.Close()
			return nil, fmt.Errorf("%s is in use by another process", address)
		}
		os.Remove(address)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", address)
	if err != nil {
		return nil, err
	}
	m, _ := strconv.ParseUint(mode, 8, 32)
	if err := os.Chmod(address, os.FileMode(m)); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod %s: %w", address, err)
	}
	return ln, nil
}
