package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// defaultConfigPath is where the package installs the configuration file,
// and what "config check" reads without --config.
const defaultConfigPath = "/etc/ndrmilter/ndrmilter.yaml"

// flagKeys maps each of serve's flags to the configuration key it sets.
var flagKeys = map[string]string{
	"listen":                       "listen",
	"socket-mode":                  "socket_mode",
	"data":                         "data",
	"ledger":                       "ledger",
	"retention":                    "retention",
	"domain":                       "domains",
	"trusted-networks":             "trusted_networks",
	"backscatter-action":           "backscatter_action",
	"autoreply-backscatter-action": "autoreply_backscatter_action",
	"receive-only":                 "receive_only",
	"receive-only-learn":           "receive_only_learn",
	"http-listen":                  "http_listen",
	"metrics-listen":               "http_listen",
	"http-users":                   "http_users",
	"http-tls-cert":                "http_tls_cert",
	"http-tls-key":                 "http_tls_key",
	"rules":                        "rules",
	"log-level":                    "log_level",
	"parse-cap":                    "parse_cap",
	"subject-tag":                  "subject_tag",
	"body-summary":                 "body_summary",
	"language":                     "language",
	"language-default":             "language_default",
	"record-wait":                  "record_wait",
	"record-retry":                 "record_retry",
	"drain-timeout":                "drain_timeout",
	"idle-timeout":                 "idle_timeout",
	"max-connections":              "max_connections",
	"listen-allow":                 "listen_allow",
	"buffer-budget":                "buffer_budget",
	"log-addresses":                "log_addresses",
}

// checkValues checks what can be checked without reading other files or
// opening anything: socket notations, modes, domains, networks, the
// backscatter action, the log level and the numbers.
func (c serveConfig) checkValues(src *configSource) configProblems {
	var probs configProblems
	add := func(key string, item int, format string, args ...any) {
		probs = append(probs, configProblem{pos: src.pos(key, item), msg: fmt.Sprintf(format, args...)})
	}
	if _, _, err := parseListen(c.Listen); err != nil {
		add("listen", -1, "%v", err)
	}
	if m, err := strconv.ParseUint(c.SocketMode, 8, 32); err != nil || m > 0o777 {
		add("socket_mode", -1, "socket_mode %q: expected an octal mode such as 0660", c.SocketMode)
	}
	switch {
	case boltInData(c.Ledger):
		if strings.TrimSpace(c.Data) == "" {
			add("data", -1, "data: empty, but the ledger is the embedded bbolt file in it: give a directory such as /var/lib/ndrmilter")
		} else if fi, err := os.Stat(c.Data); err == nil && !fi.IsDir() {
			add("data", -1, "data %q: exists and is not a directory", c.Data)
		}
	case strings.HasPrefix(c.Ledger, "bolt:"):
		if strings.TrimPrefix(c.Ledger, "bolt:") == "" {
			add("ledger", -1, "ledger %q: expected bolt:PATH, the path of the bbolt file", c.Ledger)
		}
	}
	for i, d := range c.Domains {
		if err := checkDomain(d); err != nil {
			add("domains", i, "domains: %v", err)
		}
	}
	for i, n := range c.TrustedNetworks {
		if _, err := parseNetwork(n); err != nil {
			add("trusted_networks", i, "trusted_networks: %v", err)
		}
	}
	if _, err := decide.ParseAction(c.BackscatterAction); err != nil {
		add("backscatter_action", -1, "%v", err)
	}
	c.checkEvidence(add)
	probs = append(probs, c.checkHTTPValues(src)...)
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		add("log_level", -1, "log_level %q: expected debug, info, warn or error", c.LogLevel)
	}
	if c.ParseCap < 0 {
		add("parse_cap", -1, "parse_cap %d: expected a number of bytes, such as 2097152", c.ParseCap)
	}
	for i, n := range c.ListenAllow {
		if _, err := parseNetwork(n); err != nil {
			add("listen_allow", i, "listen_allow: %v", err)
		}
	}
	if c.MaxConnections < 0 {
		add("max_connections", -1, "max_connections %d: expected a number of connections, such as 200", c.MaxConnections)
	}
	if _, err := frontend.ParsePrivacy(c.LogAddresses); err != nil {
		add("log_addresses", -1, "%v", err)
	}
	if c.RecordSpoolMax < 0 {
		add("record_spool_max", -1, "record_spool_max %d: expected a number of bytes, such as 67108864", c.RecordSpoolMax)
	}
	if c.BufferBudget < 0 {
		add("buffer_budget", -1, "buffer_budget %d: expected a number of bytes, such as 268435456", c.BufferBudget)
	}
	if c.MaxRecipientHeaders < 0 {
		add("max_recipient_headers", -1, "max_recipient_headers %d: expected 0 (the default, 10) or more", c.MaxRecipientHeaders)
	}
	return probs
}

// checkLoads loads what serve loads at start besides the ledger itself:
// the rules files (each, then all together as serve does) and a remote
// ledger's URL (parsed, never written). It returns the rules engine serve
// would run with.
func (c serveConfig) checkLoads(src *configSource) (*rules.Engine, configProblems) {
	var probs configProblems
	add := func(key string, item int, msg string) {
		probs = append(probs, configProblem{pos: src.pos(key, item), msg: msg})
	}
	if !boltInData(c.Ledger) && !strings.HasPrefix(c.Ledger, "bolt:") {
		// A remote ledger: Open parses the URL and contacts nothing that
		// must answer (see ledger.OpenRedis).
		l, err := ledger.Open(c.Ledger, c.Data, ledger.Options{Retention: time.Duration(c.Retention)})
		if err != nil {
			add("ledger", -1, err.Error())
		} else {
			l.Close()
		}
	}
	probs = append(probs, c.checkHTTPLoads(src)...)
	for i, f := range c.Rules {
		if _, err := rules.Load(f); err != nil {
			add("rules", i, "rules: "+strings.TrimPrefix(err.Error(), "rules: "))
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	eng, err := rules.Load(c.Rules...)
	if err != nil {
		add("rules", -1, "rules: "+strings.TrimPrefix(err.Error(), "rules: "))
		return nil, probs
	}
	// Only a language other than English is checked against the
	// translations: reading them costs time at start (rules.Engine.Languages).
	if isEnglish(c.Language) && isEnglish(c.LanguageDefault) {
		return eng, nil
	}
	if _, err := decide.ParseLanguage(c.Language, c.LanguageDefault, decide.Offered(eng)); err != nil {
		key := "language"
		if strings.HasPrefix(err.Error(), "language_default") {
			key = "language_default"
		}
		add(key, -1, err.Error())
		return nil, probs
	}
	return eng, nil
}

// boltInData reports whether a ledger spec names the embedded bbolt file in
// the data directory.
func boltInData(spec string) bool {
	return spec == "" || spec == "bolt" || spec == "bbolt"
}

// parseNetwork reads a trusted network: a CIDR, or one address.
func parseNetwork(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err == nil {
		return p.Masked(), nil
	}
	a, aerr := netip.ParseAddr(s)
	if aerr != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a network: expected a CIDR such as 192.0.2.0/24 or an address", s)
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// checkDomain checks the syntax of one of our domains (RFC 1035, section
// 2.3.1, with internationalized labels allowed as they are): the milter
// matches the domain and its subdomains.
func checkDomain(d string) error {
	name := strings.Trim(strings.ToLower(strings.TrimSpace(d)), ".")
	bad := func(why string) error {
		return fmt.Errorf("%q is not a domain name (%s): expected a name such as example.org", d, why)
	}
	switch {
	case name == "":
		return bad("empty")
	case strings.Contains(name, "@"):
		return bad("an address, not a domain")
	case strings.HasPrefix(name, "*"):
		return bad("a domain already covers its subdomains: leave out the *.")
	case len(name) > 253:
		return bad("longer than 253 characters")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return bad("a label is empty or longer than 63 characters")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return bad("a label starts or ends with -")
		}
		for _, r := range label {
			ok := r == '-' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || (r > utf8.RuneSelf && r != utf8.RuneError)
			if !ok {
				return bad(fmt.Sprintf("%q is not allowed in a domain name", r))
			}
		}
	}
	return nil
}

// checkHostPort checks a HOST:PORT listen address.
func checkHostPort(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("expected HOST:PORT, such as 127.0.0.1:9891")
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return nil
}

// configCheckFlagSet defines config check's flags.
func configCheckFlagSet() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("config check", flag.ContinueOnError)
	path := fs.String("config", defaultConfigPath, "the configuration `FILE` to check")
	return fs, path
}

// configCheckMain is "ndrmilter config check [--config FILE]".
func configCheckMain(args []string, stdout, stderr io.Writer) int {
	fs, path := configCheckFlagSet()
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commandByName("config check").usageText()) }
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "ndrmilter config check: unexpected argument %q (the file goes after --config)\n", rest[0])
		return exitUsage
	}
	c := defaultServeConfig()
	c.TrustedNetworks = nil
	src, err := loadConfigSource(*path, &c)
	if err != nil {
		writeProblems(stderr, err)
		return exitNo
	}
	if c.TrustedNetworks == nil {
		c.TrustedNetworks = defaultServeConfig().TrustedNetworks
	}
	probs := c.checkValues(src)
	_, loadProbs := c.checkLoads(src)
	probs = append(probs, loadProbs...)
	if len(probs) > 0 {
		writeProblems(stderr, probs)
		return exitNo
	}
	if len(c.Domains) == 0 {
		fmt.Fprintf(stderr, "%s: warning: no domains: bounces to every domain are judged for backscatter\n", *path)
	}
	if network, address, _ := parseListen(c.Listen); network == "tcp" && exposedAddress(address) {
		allow := "any client that can reach it"
		if len(c.ListenAllow) > 0 {
			allow = "clients in listen_allow"
		}
		fmt.Fprintf(stderr, "%s: warning: listen %s is beyond the loopback (%s): %s\n", *path, c.Listen, allow, exposureRisk["milter"])
	}
	if c.HTTPListen != "" && exposedAddress(c.HTTPListen) {
		fmt.Fprintf(stderr, "%s: warning: http_listen %s is beyond the loopback: %s\n", *path, c.HTTPListen, exposureRisk["metrics"])
	}
	fmt.Fprintf(stdout, "%s: OK: listen %s, ledger %s, %d domains, %d trusted networks, backscatter action %s, %d rules files\n",
		*path, c.Listen, ledgerName(c), len(c.Domains), len(c.TrustedNetworks), c.BackscatterAction, len(c.Rules))
	return exitOK
}

// writeProblems writes a configuration error, one problem a line.
func writeProblems(w io.Writer, err error) {
	var probs configProblems
	if errors.As(err, &probs) {
		for _, p := range probs {
			fmt.Fprintln(w, p.Error())
		}
		return
	}
	fmt.Fprintln(w, err)
}

// isEnglish reports whether a language of the configuration is English or
// not given.
func isEnglish(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "" || v == "en" || strings.HasPrefix(v, "en-")
}
