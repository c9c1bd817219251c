package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/milter"
)

// serveConfig is the configuration of "ndrmilter serve": the YAML file
// (deploy/ndrmilter.yaml documents every key) with the command-line flags
// on top.
type serveConfig struct {
	Listen            string   `yaml:"listen"`
	SocketMode        string   `yaml:"socket_mode"`
	Data              string   `yaml:"data"`
	Ledger            string   `yaml:"ledger"`
	Retention         duration `yaml:"retention"`
	Domains           []string `yaml:"domains"`
	TrustedNetworks   []string `yaml:"trusted_networks"`
	BackscatterAction string   `yaml:"backscatter_action"`
	HTTPListen        string   `yaml:"http_listen"` // also read as metrics_listen, its former name
	Rules             []string `yaml:"rules"`
	LogLevel          string   `yaml:"log_level"`

	ParseCap            int  `yaml:"parse_cap"`
	MaxRecipientHeaders int  `yaml:"max_recipient_headers"`
	SubjectTag          bool `yaml:"subject_tag"`
	BodySummary         bool `yaml:"body_summary"`
	// Language of the headers and summaries written into bounces: a
	// language tag, or auto (the bounced original's, else
	// LanguageDefault).
	Language        string   `yaml:"language"`
	LanguageDefault string   `yaml:"language_default"`
	RecordWait      duration `yaml:"record_wait"`
	RecordRetry     duration `yaml:"record_retry"`
	LookupTimeout   duration `yaml:"lookup_timeout"`
	WriteTimeout    duration `yaml:"write_timeout"`
	IdleTimeout     duration `yaml:"idle_timeout"`
	DrainTimeout    duration `yaml:"drain_timeout"`

	MaxConnections int      `yaml:"max_connections"`
	ListenAllow    []string `yaml:"listen_allow"`
	BufferBudget   int64    `yaml:"buffer_budget"`
	RecordSpoolMax int64    `yaml:"record_spool_max"`
	LogAddresses   string   `yaml:"log_addresses"`

	// The HTTP listener's authentication and TLS (package httpapi).
	HTTPUsers   string `yaml:"http_users"`
	HTTPTLSCert string `yaml:"http_tls_cert"`
	HTTPTLSKey  string `yaml:"http_tls_key"`
	// The evidence beyond bounces (config_evidence.go).
	AutoReplyBackscatterAction string   `yaml:"autoreply_backscatter_action"`
	ReceiveOnly                []string `yaml:"receive_only"`
	ReceiveOnlyLearn           bool     `yaml:"receive_only_learn"`
	BATVKeys                   []string `yaml:"batv_keys"`
	BATVSignKey                int      `yaml:"batv_sign_key"`
	BATVLifetime               duration `yaml:"batv_lifetime"`
	BATVSigningSince           string   `yaml:"batv_signing_since"`
	BATVExemptSenders          []string `yaml:"batv_exempt_senders"`
	BATVExemptDestinations     []string `yaml:"batv_exempt_destinations"`
	DKIMKeys                   []string `yaml:"dkim_keys"`

	// The bounds of an import through the HTTP API.
	HTTPImportMaxBytes int64    `yaml:"http_import_max_bytes"`
	HTTPImportTimeout  duration `yaml:"http_import_timeout"`
}

// defaultListen is the milter socket of serve when neither file nor flag
// names one. Port 9890: beside the metrics ports (9891 serve, 9892 filter)
// and clear of the ports other milters are known to take (8891 OpenDKIM,
// 8893 OpenDMARC, 11332 rspamd, 10024-10028 amavis, FILTER_README and
// dkimproxy...):
// deploy/postfix/main.cf lists them.
const defaultListen = "inet:127.0.0.1:9890"

// defaultServeConfig is what serve runs with when neither file nor flag says otherwise.
func defaultServeConfig() serveConfig {
	return serveConfig{
		Listen:                     defaultListen,
		SocketMode:                 "0660",
		Data:                       "/var/lib/ndrmilter",
		Retention:                  duration(30 * 24 * time.Hour),
		TrustedNetworks:            []string{"127.0.0.0/8", "::1/128"},
		BackscatterAction:          "tag",
		AutoReplyBackscatterAction: "tag",
		BATVSignKey:                1,
		BATVLifetime:               duration(batv.DefaultLifetime),
		HTTPListen:                 "127.0.0.1:9891",
		LogLevel:                   "info",
		ParseCap:                   2 << 20,
		RecordWait:                 duration(frontend.DefaultRecordWait),
		RecordRetry:                duration(10 * time.Minute),
		IdleTimeout:                duration(milter.DefaultIdleTimeout),
		DrainTimeout:               duration(5 * time.Second),
		MaxConnections:             milter.DefaultMaxConnections,
		BufferBudget:               frontend.DefaultBufferBudget,
		RecordSpoolMax:             frontend.DefaultSpoolMax,
		LogAddresses:               string(frontend.PrivacyHash),

		HTTPImportMaxBytes: httpapi.DefaultImportMaxBytes,
		HTTPImportTimeout:  duration(httpapi.DefaultImportTimeout),
	}
}

// duration is a time.Duration that also reads days ("30d") in YAML and flags.
type duration time.Duration

func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("duration %q: expected a number of days such as 30d, or a Go duration such as 720h", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("duration %q: expected a Go duration such as 200ms, 10m, 720h, or days such as 30d", s)
	}
	return d, nil
}

// UnmarshalYAML reads a duration; the decoder adds the file and line to an error.
func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("expected a duration such as 10m or 30d")
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}

// String writes whole days as days (30d) and leaves out zero minutes and
// seconds (10m, not 10m0s), as the configuration file writes durations.
func (d *duration) String() string {
	v := time.Duration(*d)
	if v > 0 && v%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", v/(24*time.Hour))
	}
	s := v.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (d *duration) Set(s string) error { v, err := parseDuration(s); *d = duration(v); return err }

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag struct{ dst *[]string }

func (l listFlag) String() string {
	if l.dst == nil {
		return ""
	}
	return strings.Join(*l.dst, ",")
}

func (l listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l.dst = append(*l.dst, p)
		}
	}
	return nil
}

// loadConfigFile reads a YAML configuration file over c. Unknown keys are
// errors; every error names the file and the line (a configProblems).
func loadConfigFile(path string, c *serveConfig) error {
	_, err := loadConfigSource(path, c)
	return err
}

// loadConfigSource is loadConfigFile that also says where each key is.
func loadConfigSource(path string, c *serveConfig) (*configSource, error) {
	src := &configSource{file: path, keys: map[string]keyPos{}, flags: map[string]string{}}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return src, configProblems{{pos: path, msg: fmt.Sprintf("cannot read the configuration file: %v", err)}}
	}
	if probs := decodeConfig(src, data, c); len(probs) > 0 {
		return src, probs
	}
	return src, nil
}

// serveFlagSet defines serve's flags on a new flag set. The flags write into
// flagged, a scratch configuration: the caller applies only those that were
// set (mergeFlags) over the file.
func serveFlagSet() (fs *flag.FlagSet, flagged *serveConfig, configPath *string) {
	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	c := defaultServeConfig()
	c.Domains, c.TrustedNetworks, c.Rules = nil, nil, nil
	configPath = new(string)
	serveFlags(fs, &c, configPath)
	return fs, &c, configPath
}

// serveFlags defines serve's flags on fs, writing into c. The caller parses,
// then applies only the flags that were set (fs.Visit) over the file.
func serveFlags(fs *flag.FlagSet, c *serveConfig, configPath *string) {
	fs.StringVar(configPath, "config", "", "YAML configuration `FILE` (flags override it)")
	fs.StringVar(&c.Listen, "listen", c.Listen, "milter `SOCKET`: inet:HOST:PORT or unix:/PATH (Postfix notation)")
	fs.StringVar(&c.SocketMode, "socket-mode", c.SocketMode, "permissions of a unix socket, an octal `MODE`")
	fs.StringVar(&c.Data, "data", c.Data, "data `DIR` (the embedded ledger lives here)")
	fs.StringVar(&c.Ledger, "ledger", c.Ledger, "ledger `SPEC`: empty for bbolt in --data, bolt:PATH, redis://HOST:PORT/DB")
	fs.Var(&c.Retention, "retention", "how long sent mail is remembered, a `DURATION` such as 30d or 720h")
	fs.Var(listFlag{&c.Domains}, "domain", "our `DOMAIN` (repeatable; comma-separated lists too)")
	fs.Var(listFlag{&c.TrustedNetworks}, "trusted-networks", "`CIDR,...` whose clients send outbound mail")
	fs.StringVar(&c.BackscatterAction, "backscatter-action", c.BackscatterAction, "what to do with backscatter, an `ACTION`: "+strings.Join(flagChoices["backscatter-action"], ", "))
	fs.StringVar(&c.AutoReplyBackscatterAction, "autoreply-backscatter-action", c.AutoReplyBackscatterAction, "what to do with automatic replies judged backscatter, an `ACTION`: "+strings.Join(flagChoices["autoreply-backscatter-action"], ", "))
	fs.Var(listFlag{&c.ReceiveOnly}, "receive-only", "our `ADDR,...` that never send mail: a bounce or auto-reply to one is backscatter")
	fs.BoolVar(&c.ReceiveOnlyLearn, "receive-only-learn", c.ReceiveOnlyLearn, "also count as receive-only our addresses that sent nothing within the retention period")
	httpFlags(fs, c)
	fs.Var(listFlag{&c.Rules}, "rules", "extra rules `FILE` loaded before the built-in rules (repeatable)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "log `LEVEL`: "+strings.Join(flagChoices["log-level"], ", "))
	fs.IntVar(&c.ParseCap, "parse-cap", c.ParseCap, "how many `BYTES` of a bounce are kept for parsing")
	fs.BoolVar(&c.SubjectTag, "subject-tag", c.SubjectTag, "prefix bounce subjects with [Bounce: ...] (breaks DKIM on the bounce)")
	fs.BoolVar(&c.BodySummary, "body-summary", c.BodySummary, "add a plain-text summary at the top of bounces (breaks DKIM on the bounce)")
	fs.StringVar(&c.Language, "language", c.Language, "`LANG` of what is written into bounces (en, de, es, fr, ja), or auto: the bounced message's")
	fs.StringVar(&c.LanguageDefault, "language-default", c.LanguageDefault, "`LANG` that --language auto falls back to")
	fs.Var(&c.RecordWait, "record-wait", "how long end of message waits for the ledger write of outbound mail, a `DURATION`")
	fs.Var(&c.RecordRetry, "record-retry", "how long a failed ledger write of outbound mail is retried in the background, a `DURATION`")
	fs.Var(&c.DrainTimeout, "drain-timeout", "how long SIGTERM waits for open milter sessions, a `DURATION`")
	fs.Var(&c.IdleTimeout, "idle-timeout", "how long a milter connection may stay silent before it is closed, a `DURATION`")
	fs.IntVar(&c.MaxConnections, "max-connections", c.MaxConnections, "`N` milter connections open at once; one more is closed at once")
	fs.Var(listFlag{&c.ListenAllow}, "listen-allow", "`CIDR,...` of the clients that may connect (empty: any that can reach the socket)")
	fs.Int64Var(&c.BufferBudget, "buffer-budget", c.BufferBudget, "`BYTES` of messages held in memory at once, over all sessions; past it mail passes unread")
	fs.StringVar(&c.LogAddresses, "log-addresses", c.LogAddresses, "how logs show addresses and Message-IDs, a `MODE`: "+strings.Join(flagChoices["log-addresses"], ", "))
}

// flagChoices are the values a flag takes, where they are a closed list.
var flagChoices = map[string][]string{
	"backscatter-action":           {"tag", "quarantine", "reject", "discard"},
	"autoreply-backscatter-action": {"tag", "quarantine", "discard"},
	"log-level":                    {"debug", "info", "warn", "error"},
	"log-addresses":                {"hash", "domain", "full"},
}

// mergeFlags copies the flags that were set on the command line from
// flagged (parsed over a scratch config) into c (the file's config).
// List flags replace the file's list rather than adding to it.
func mergeFlags(fs *flag.FlagSet, flagged serveConfig, c *serveConfig) {
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "listen":
			c.Listen = flagged.Listen
		case "socket-mode":
			c.SocketMode = flagged.SocketMode
		case "data":
			c.Data = flagged.Data
		case "ledger":
			c.Ledger = flagged.Ledger
		case "retention":
			c.Retention = flagged.Retention
		case "domain":
			c.Domains = flagged.Domains
		case "trusted-networks":
			c.TrustedNetworks = flagged.TrustedNetworks
		case "backscatter-action":
			c.BackscatterAction = flagged.BackscatterAction
		case "autoreply-backscatter-action":
			c.AutoReplyBackscatterAction = flagged.AutoReplyBackscatterAction
		case "receive-only":
			c.ReceiveOnly = flagged.ReceiveOnly
		case "receive-only-learn":
			c.ReceiveOnlyLearn = flagged.ReceiveOnlyLearn
		case "http-listen", "metrics-listen":
			c.HTTPListen = flagged.HTTPListen
		case "http-users":
			c.HTTPUsers = flagged.HTTPUsers
		case "http-tls-cert":
			c.HTTPTLSCert = flagged.HTTPTLSCert
		case "http-tls-key":
			c.HTTPTLSKey = flagged.HTTPTLSKey
		case "rules":
			c.Rules = flagged.Rules
		case "log-level":
			c.LogLevel = flagged.LogLevel
		case "parse-cap":
			c.ParseCap = flagged.ParseCap
		case "subject-tag":
			c.SubjectTag = flagged.SubjectTag
		case "body-summary":
			c.BodySummary = flagged.BodySummary
		case "language":
			c.Language = flagged.Language
		case "language-default":
			c.LanguageDefault = flagged.LanguageDefault
		case "record-wait":
			c.RecordWait = flagged.RecordWait
		case "record-retry":
			c.RecordRetry = flagged.RecordRetry
		case "drain-timeout":
			c.DrainTimeout = flagged.DrainTimeout
		case "idle-timeout":
			c.IdleTimeout = flagged.IdleTimeout
		case "max-connections":
			c.MaxConnections = flagged.MaxConnections
		case "listen-allow":
			c.ListenAllow = flagged.ListenAllow
		case "buffer-budget":
			c.BufferBudget = flagged.BufferBudget
		case "log-addresses":
			c.LogAddresses = flagged.LogAddresses
		}
	})
}

// resolveConfig builds the configuration: defaults, then the file (if
// any), then the flags that were set; and checks the values that can be
// checked without side effects.
func resolveConfig(fs *flag.FlagSet, flagged serveConfig, configPath string) (serveConfig, error) {
	c, src, err := resolveConfigSource(fs, flagged, configPath)
	if err != nil {
		return c, err
	}
	if probs := c.checkValues(src); len(probs) > 0 {
		return c, probs
	}
	return c, nil
}

// resolveConfigSource is resolveConfig without the checks, and with where
// each value came from.
func resolveConfigSource(fs *flag.FlagSet, flagged serveConfig, configPath string) (serveConfig, *configSource, error) {
	c := defaultServeConfig()
	src := &configSource{keys: map[string]keyPos{}, flags: map[string]string{}}
	if configPath != "" {
		// Lists in the file replace the defaults.
		c.TrustedNetworks = nil
		var err error
		if src, err = loadConfigSource(configPath, &c); err != nil {
			return c, src, err
		}
		if c.TrustedNetworks == nil {
			c.TrustedNetworks = defaultServeConfig().TrustedNetworks
		}
	}
	mergeFlags(fs, flagged, &c)
	fs.Visit(func(f *flag.Flag) {
		if key, ok := flagKeys[f.Name]; ok {
			src.flags[key] = "--" + f.Name
		}
	})
	return c, src, nil
}

// milterConfig is the part of the configuration the milter package uses.
func (c serveConfig) milterConfig() (milter.Config, error) {
	action, err := decide.ParseAction(c.BackscatterAction)
	if err != nil {
		return milter.Config{}, err
	}
	nets := make([]netip.Prefix, 0, len(c.TrustedNetworks))
	for _, s := range c.TrustedNetworks {
		p, err := parseNetwork(s)
		if err != nil {
			return milter.Config{}, fmt.Errorf("trusted_networks: %w", err)
		}
		nets = append(nets, p)
	}
	var allow []netip.Prefix
	for _, s := range c.ListenAllow {
		p, err := parseNetwork(s)
		if err != nil {
			return milter.Config{}, fmt.Errorf("listen_allow: %w", err)
		}
		allow = append(allow, p)
	}
	privacy, err := frontend.ParsePrivacy(c.LogAddresses)
	if err != nil {
		return milter.Config{}, err
	}
	arAction, err := decide.ParseAutoReplyAction(c.AutoReplyBackscatterAction)
	if err != nil {
		return milter.Config{}, err
	}
	ev, err := c.evidence()
	if err != nil {
		return milter.Config{}, err
	}
	// record_wait 0 in the file: do not wait (the package's zero is its default).
	wait := time.Duration(c.RecordWait)
	if wait == 0 {
		wait = -1
	}
	var spool string
	if strings.TrimSpace(c.Data) != "" {
		spool = filepath.Join(c.Data, "spool")
	}
	lang, err := decide.ParseLanguage(c.Language, c.LanguageDefault, nil)
	if err != nil {
		return milter.Config{}, err
	}
	return milter.Config{
		Language:            lang,
		Domains:             c.Domains,
		TrustedNetworks:     nets,
		BackscatterAction:   action,
		AutoReplyAction:     arAction,
		Evidence:            ev,
		ParseCap:            c.ParseCap,
		MaxRecipientHeaders: c.MaxRecipientHeaders,
		SubjectTag:          c.SubjectTag,
		BodySummary:         c.BodySummary,
		RecordWait:          wait,
		SpoolDir:            spool,
		SpoolMax:            c.RecordSpoolMax,
		LogAddresses:        privacy,
		RecordRetry:         time.Duration(c.RecordRetry),
		LookupTimeout:       time.Duration(c.LookupTimeout),
		WriteTimeout:        time.Duration(c.WriteTimeout),
		IdleTimeout:         time.Duration(c.IdleTimeout),
		MaxConnections:      c.MaxConnections,
		ListenAllow:         allow,
		BufferBudget:        c.BufferBudget,
	}, nil
}

// parseListen reads Postfix's socket notation: inet:HOST:PORT (HOST may be
// a bracketed IPv6 address), inet6:HOST:PORT, unix:/PATH or local:/PATH.
func parseListen(s string) (network, address string, err error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok || rest == "" {
		return "", "", fmt.Errorf("listen %q: expected inet:HOST:PORT or unix:/PATH", s)
	}
	switch kind {
	case "inet", "inet6":
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			return "", "", fmt.Errorf("listen %q: expected inet:HOST:PORT", s)
		}
		host, port := strings.Trim(rest[:i], "[]"), rest[i+1:]
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return "", "", fmt.Errorf("listen %q: port %q is not a number", s, port)
		}
		if host == "" {
			host = "127.0.0.1"
		}
		if strings.Contains(host, ":") {
			return "tcp", "[" + host + "]:" + port, nil
		}
		return "tcp", host + ":" + port, nil
	case "unix", "local":
		return "unix", rest, nil
	}
	return "", "", fmt.Errorf("listen %q: unknown socket type %q: expected inet or unix", s, kind)
}
