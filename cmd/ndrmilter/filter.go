package main

import (
	"bytes"
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
	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/filter"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/rules"
)

// filterConfig is the configuration of "ndrmilter filter": serve's keys
// (those that concern a milter socket are ignored) and the filter's own.
type filterConfig struct {
	serveConfig    `yaml:",inline"`
	Next           string   `yaml:"next"`
	ListenOutbound string   `yaml:"listen_outbound"`
	Direction      string   `yaml:"direction"`
	Hostname       string   `yaml:"hostname"`
	NextTimeout    duration `yaml:"next_timeout"`

	// FormerHTTPListen is metrics_listen, the former name of http_listen.
	FormerHTTPListen *string `yaml:"metrics_listen"`
}

// defaultFilterConfig is what filter runs with when neither file nor flag
// says otherwise: ports of ndrmilter's own block (9890 milter, 9891 and
// 9892 metrics, 9893 filter, 9894 the MTA's reinjection listener, 9895 the
// filter's outbound listener), away from 10024-10028, which amavis (10024
// in, 10025 back), FILTER_README's example (10025, 10026) and dkimproxy
// (10025-10028) take: a filter on 10025 would collide with amavis'
// reinjection on the many servers that run it. And a metrics port of its
// own, so that serve and filter can run side by side.
func defaultFilterConfig() filterConfig {
	c := filterConfig{serveConfig: defaultServeConfig(), Next: "127.0.0.1:9894", Direction: "auto",
		NextTimeout: duration(60 * time.Second)}
	c.Listen = "127.0.0.1:9893"
	c.HTTPListen = "127.0.0.1:9892"
	c.MaxConnections = 100                    // Postfix's default process limit
	c.IdleTimeout = duration(5 * time.Minute) // RFC 5321 section 4.5.3.2.7
	return c
}

// filterFlagSet is filter's flag set, as filterMain parses it and the
// usage text and the man page show it.
func filterFlagSet() (fs *flag.FlagSet, flagged *filterConfig, configPath *string) {
	fs = flag.NewFlagSet("filter", flag.ContinueOnError)
	c := defaultFilterConfig()
	c.Domains, c.TrustedNetworks, c.Rules = nil, nil, nil
	configPath = new(string)
	filterFlags(fs, &c, configPath)
	return fs, &c, configPath
}

// filterMain is "ndrmilter filter [flags]", with an explicit stream for
// errors and logs.
func filterMain(args []string, stderr io.Writer) int {
	fs, flagged, configPath := filterFlagSet()
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commandByName("filter").usageText()) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ndrmilter filter: unexpected argument %q (filter takes only flags)\n", fs.Arg(0))
		return exitUsage
	}
	f, _ := stderr.(*os.File)
	journal := stderrIsJournal(f)
	cfg, err := resolveFilterConfig(fs, *flagged, *configPath)
	if err != nil {
		startError(stderr, "filter", journal, err)
		return exitConfig
	}
	level := zap.NewAtomicLevel()
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		startError(stderr, "filter", journal, fmt.Errorf("log level %q: expected debug, info, warn or error", cfg.LogLevel))
		return exitConfig
	}
	log := newLogger(stderr, level, journal).WithOptions(zap.AddCaller())
	defer log.Sync()
	resolve := func() (filterConfig, error) { return resolveFilterConfig(fs, *flagged, *configPath) }
	if code, err := runFilterServer(cfg, resolve, level, log); err != nil {
		if code == exitNo {
			log.Error("ndrmilter filter stopped", zap.Error(err))
		} else {
			startError(stderr, "filter", journal, err)
		}
		return code
	}
	return exitOK
}

// filterFlags defines filter's flags on fs: serve's (their help adjusted
// where the filter differs) and the filter's own.
func filterFlags(fs *flag.FlagSet, c *filterConfig, configPath *string) {
	serveFlags(fs, &c.serveConfig, configPath)
	fs.Lookup("listen").Usage = "`HOST:PORT` the filter listens on (loopback: the MTA's content filter or proxy)"
	fs.Lookup("socket-mode").Usage = "(serve only)"
	fs.Lookup("backscatter-action").Usage = "tag|reject|discard (reject only before the queue)"
	fs.Lookup("drain-timeout").Usage = "how long SIGTERM waits for transactions in progress"
	fs.StringVar(&c.Next, "next", c.Next, "next hop `HOST:PORT`: the MTA's reinjection listener")
	fs.StringVar(&c.Direction, "direction", c.Direction, "auto|outbound|inbound: which way the mail through --listen goes")
	fs.StringVar(&c.ListenOutbound, "listen-outbound", c.ListenOutbound, "a second `HOST:PORT` whose mail is all outbound (for an MTA without XFORWARD)")
	fs.StringVar(&c.Hostname, "hostname", c.Hostname, "name in the greeting and the EHLO to the next hop (default: host name)")
	fs.Lookup("max-connections").Usage = "`N` client connections open at once; beyond: 421"
	fs.Lookup("idle-timeout").Usage = "how long a client may stay silent, a `DURATION`"
	fs.Var(&c.NextTimeout, "next-timeout", "timeout for the next hop: connect, each command, each write, reply to the data")
}

// resolveFilterConfig builds the configuration: defaults, then the file
// (if any), then the flags that were set.
func resolveFilterConfig(fs *flag.FlagSet, flagged filterConfig, configPath string) (filterConfig, error) {
	c := defaultFilterConfig()
	if configPath != "" {
		c.TrustedNetworks = nil // lists in the file replace the defaults
		if err := loadFilterFile(configPath, &c); err != nil {
			return c, err
		}
		if c.TrustedNetworks == nil {
			c.TrustedNetworks = defaultServeConfig().TrustedNetworks
		}
	}
	mergeFlags(fs, flagged.serveConfig, &c.serveConfig)
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "next":
			c.Next = flagged.Next
		case "direction":
			c.Direction = flagged.Direction
		case "listen-outbound":
			c.ListenOutbound = flagged.ListenOutbound
		case "hostname":
			c.Hostname = flagged.Hostname
		case "next-timeout":
			c.NextTimeout = flagged.NextTimeout
		}
	})
	_, err := c.filterConfig()
	return c, err
}

// hostPort reads HOST:PORT, also in Postfix's inet:HOST:PORT notation.
func hostPort(what, s string) (string, error) {
	if strings.HasPrefix(s, "inet:") || strings.HasPrefix(s, "inet6:") {
		network, address, err := parseListen(s)
		if err == nil && network == "tcp" {
			return address, nil
		}
	}
	if _, port, err := net.SplitHostPort(s); err == nil {
		if _, err := strconv.ParseUint(port, 10, 16); err == nil {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s %q: expected HOST:PORT, such as 127.0.0.1:9893", what, s)
}

// filterConfig is the part of the configuration the filter package uses.
func (c filterConfig) filterConfig() (filter.Config, error) {
	mc, err := c.milterConfig()
	if err != nil {
		return filter.Config{}, err
	}
	if _, err := hostPort("listen", c.Listen); err != nil {
		return filter.Config{}, err
	}
	if c.ListenOutbound != "" {
		if _, err := hostPort("listen_outbound", c.ListenOutbound); err != nil {
			return filter.Config{}, err
		}
	}
	next, err := hostPort("next", c.Next)
	if err != nil {
		return filter.Config{}, err
	}
	dir, err := filter.ParseDirection(c.Direction)
	if err != nil {
		return filter.Config{}, err
	}
	fc := filter.Config{
		Next:                next,
		Hostname:            c.Hostname,
		Direction:           dir,
		Domains:             mc.Domains,
		TrustedNetworks:     mc.TrustedNetworks,
		BackscatterAction:   mc.BackscatterAction,
		AutoReplyAction:     mc.AutoReplyAction,
		Evidence:            mc.Evidence,
		ParseCap:            mc.ParseCap,
		MaxRecipientHeaders: mc.MaxRecipientHeaders,
		SubjectTag:          mc.SubjectTag,
		BodySummary:         mc.BodySummary,
		Language:            mc.Language,
		RecordWait:          mc.RecordWait,
		SpoolDir:            mc.SpoolDir,
		SpoolMax:            mc.SpoolMax,
		LogAddresses:        mc.LogAddresses,
		LookupTimeout:       mc.LookupTimeout,
		WriteTimeout:        mc.WriteTimeout,
		RecordRetry:         mc.RecordRetry,
		MaxConnections:      c.MaxConnections,
		ListenAllow:         mc.ListenAllow,
		BufferBudget:        mc.BufferBudget,
		IdleTimeout:         mc.IdleTimeout,
		NextTimeout:         time.Duration(c.NextTimeout),
	}
	return fc, fc.Check()
}

// runFilterServer runs the filter until SIGTERM or SIGINT; SIGHUP reloads
// the configuration (re-read by resolve) and the rules.
func runFilterServer(cfg filterConfig, resolve func() (filterConfig, error), level zap.AtomicLevel, log *zap.Logger) (int, error) {
	eng, err := rules.Load(cfg.Rules...)
	if err != nil {
		return exitConfig, fmt.Errorf("rules: %w", err)
	}
	fcfg, err := cfg.filterConfig()
	if err != nil {
		return exitConfig, err
	}
	if len(cfg.Domains) == 0 {
		log.Warn("no --domain given: bounces to every domain are judged for backscatter")
	}
	led, err := openFrontEndLedger(cfg.serveConfig, log)
	if err != nil {
		return exitLedger, fmt.Errorf("cannot open the ledger (%s): %w", ledgerName(cfg.serveConfig), err)
	}
	defer func() {
		if err := led.Close(); err != nil {
			log.Error("closing the ledger", zap.Error(err))
		}
	}()
	reg := newRegistry()
	reg.MustRegister(frontend.NewLedgerSize(led))
	srv, err := filter.New(fcfg, eng, led, log, reg)
	if err != nil {
		return exitConfig, err
	}
	addr, _ := hostPort("listen", cfg.Listen)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return exitListen, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	serveErr := make(chan error, 2)
	if cfg.ListenOutbound != "" {
		oaddr, _ := hostPort("listen_outbound", cfg.ListenOutbound)
		oln, err := net.Listen("tcp", oaddr)
		if err != nil {
			ln.Close()
			return exitListen, fmt.Errorf("cannot listen on %s: %w", oaddr, err)
		}
		warnExposed(log, "filter", oln, cfg.ListenAllow)
		go func() { serveErr <- srv.ServeDirection(oln, filter.DirectionOutbound) }()
	}
	warnExposed(log, "filter", ln, cfg.ListenAllow)
	mln, err := listenHTTP(cfg.serveConfig)
	if err != nil {
		ln.Close()
		srv.Close()
		return exitListen, err
	}
	warnExposed(log, "metrics", netListener(mln), nil)
	hf, err := startHTTP(mln, cfg.serveConfig, eng, reg, led, log, srv.Health)
	if err != nil {
		ln.Close()
		mln.Close()
		srv.Close()
		return exitConfig, err
	}
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("ndrmilter filter serving", zap.String("listen", addr), zap.String("listen_outbound", cfg.ListenOutbound),
		zap.String("next", fcfg.Next),
		zap.String("direction", string(fcfg.Direction)), zap.String("http", cfg.HTTPListen),
		zap.Strings("domains", cfg.Domains), zap.String("backscatter_action", cfg.BackscatterAction),
		zap.String("ledger", ledgerName(cfg.serveConfig)))

	reload := func() {
		nc, err := resolve()
		if err != nil {
			log.Error("reload: configuration rejected, keeping the old one", zap.Error(err))
			return
		}
		eng, err := rules.Load(nc.Rules...)
		if err != nil {
			log.Error("reload: rules rejected, keeping the old ones", zap.Error(err))
			return
		}
		nf, err := nc.filterConfig()
		if err == nil {
			err = srv.Reload(nf, eng)
		}
		if err != nil {
			log.Error("reload: configuration rejected, keeping the old one", zap.Error(err))
			return
		}
		hf.reload(nc.serveConfig, eng)
		if err := level.UnmarshalText([]byte(nc.LogLevel)); err != nil {
			log.Warn("reload: bad log level kept the old one", zap.String("log_level", nc.LogLevel))
		}
		if nc.Listen != cfg.Listen || nc.Data != cfg.Data || nc.Ledger != cfg.Ledger ||
			nc.Retention != cfg.Retention || httpChanged(nc.serveConfig, cfg.serveConfig) || nc.Hostname != cfg.Hostname {
			log.Warn("reload: listen, data, ledger, retention, http_listen (its users and TLS) and hostname change only on restart")
		}
		log.Info("reloaded", zap.Strings("domains", nc.Domains), zap.String("backscatter_action", nc.BackscatterAction),
			zap.String("next", nf.Next), zap.String("direction", string(nf.Direction)), zap.Strings("rules", nc.Rules))
	}
	err = supervise(srv, serveErr, hf.server(), time.Duration(cfg.DrainTimeout), reload, log)
	hf.stopped()
	if err != nil {
		return exitNo, fmt.Errorf("filter %w", err)
	}
	log.Info("ndrmilter filter stopped")
	return exitOK, nil
}

// loadFilterFile reads a YAML configuration file over c. Unknown keys are
// errors.
func loadFilterFile(path string, c *filterConfig) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read the configuration file: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return applyFormerHTTPListen(path, data, c)
}
