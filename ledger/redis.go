package ledger

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// OpenRedis returns the shared Redis ledger that rawURL names. It never
// contacts Redis: connections are made on first use and remade after
// failures, so a Redis that is down at start-up costs nothing but "unknown"
// verdicts until it comes back.
//
// URL forms (the password, if any, goes in the userinfo; rediss:// is the same
// with TLS):
//
//	redis://[USER:PASS@]HOST:PORT[/DB]                 one server (standalone)
//	redis://[USER:PASS@]H1:P1,H2:P2,H3:P3              Redis Cluster, seed nodes
//	redis://HOST:PORT?cluster=1                        Redis Cluster, one seed node
//	redis://S1:P1,S2:P2/DB?master_name=NAME            Sentinel: the addresses are sentinels
//
// Query parameters:
//
//	addr=HOST:PORT      one more seed/sentinel address (repeatable; same as a comma list)
//	cluster=1           use the Cluster protocol even with one address
//	master_name=NAME    Sentinel mode, with this master
//	sentinel_password=P password for the sentinels (Sentinel mode)
//	db=N                database number (same as the path; not in Cluster mode)
//	prefix=STR          key prefix (default "ndr:"), so several ledgers share a server
//	tls_ca=PATH         PEM file of the CA that signed the server's certificate (rediss://)
//	tls_server_name=N   name to check in the server's certificate (rediss://)
//	pool_size=N         connections per node (default 10 per CPU)
//	lookup_timeout=D    deadline of each lookup, e.g. 80ms (default: Options.LookupTimeout, 50 ms)
//	write_timeout=D     deadline of each write, e.g. 2s (default: Options.WriteTimeout, 1 s)
//
// A port left out means 6379. Timeouts come from o: each lookup is bounded by
// o.LookupTimeout and each write by o.WriteTimeout, on the socket and in the
// connection pool, and a call fails at once while Redis refuses connections.
func OpenRedis(rawURL string, o Options) (Ledger, error) {
	o = o.withDefaults()
	cfg, err := parseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	uo := cfg.opts
	if cfg.lookupTimeout > 0 {
		o.LookupTimeout = cfg.lookupTimeout
	}
	if cfg.writeTimeout > 0 {
		o.WriteTimeout = cfg.writeTimeout
	}
	// Fail fast: a call never takes longer than its own deadline (the context
	// deadline reaches the socket), and the ceilings below only matter for
	// calls without a deadline.
	longest := max(o.LookupTimeout, o.WriteTimeout)
	uo.ContextTimeoutEnabled = true
	uo.DialTimeout = longest
	uo.DialerRetries = 1
	uo.ReadTimeout = longest
	uo.WriteTimeout = longest
	uo.PoolTimeout = longest
	// One retry on a fresh connection covers the connections that died with a
	// restarted Redis; the context deadline still bounds the whole call.
	uo.MaxRetries = 1
	uo.MinRetryBackoff = time.Millisecond
	uo.MaxRetryBackoff = 5 * time.Millisecond
	uo.MinIdleConns = 0 // no dialling at start-up
	uo.Dialer = dialer(uo.TLSConfig, cfg.tlsNameFixed, uo.DialTimeout)
	uo.DisableIdentity = true
	// RESP2: the ledger needs none of RESP3's push messages or client-side
	// caching, and go-redis 9.23 on RESP3 over TLS 1.3 spends about 50 ms
	// on each new connection (measured against Redis 7.0 here; plain RESP2
	// over the same TLS takes 2-5 ms), which is the whole lookup budget.
	uo.Protocol = 2
	if uo.ClientName == "" {
		uo.ClientName = "ndrmilter"
	}
	quietRedis.Do(func() { redis.SetLogger(discardLogger{}) })
	client := redis.NewUniversalClient(uo)
	l := newRedisLedger(client, cfg.prefix, cfg.mode, o)
	go l.warmUp()
	return l, nil
}

// quietRedis silences go-redis's own logger (process-wide, once): it prints
// every failed dial to stderr, while the ledger returns each error to its
// caller, which counts and logs it.
var quietRedis sync.Once

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

// redisURL is a parsed ledger URL.
type redisURL struct {
	opts   *redis.UniversalOptions
	prefix string
	mode   string // "standalone", "cluster" or "sentinel"
	// tlsNameFixed: tls_server_name was given; otherwise each connection
	// checks the certificate against the host it dials (cluster nodes and
	// Sentinel-announced masters have names of their own).
	tlsNameFixed bool
	// lookupTimeout and writeTimeout override Options when set, so that
	// the one ledger spec (flag or config file) can tune a remote Redis.
	lookupTimeout, writeTimeout time.Duration
}

// dialer connects to addr within ctx's deadline, TLS handshake included
// (go-redis's own TLS dialer would ignore the deadline for the handshake
// and wait up to DialTimeout on a server that accepts and stays silent).
func dialer(tc *tls.Config, nameFixed bool, timeout time.Duration) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: timeout, KeepAlive: time.Minute}
		raw, err := d.DialContext(ctx, network, addr)
		if err != nil || tc == nil {
			return raw, err
		}
		cfg := tc.Clone()
		if !nameFixed {
			if host, _, err := net.SplitHostPort(addr); err == nil {
				cfg.ServerName = host
			}
		}
		c := tls.Client(raw, cfg)
		if err := c.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		return c, nil
	}
}

// parseRedisURL reads the URL forms OpenRedis documents. net/url cannot
// parse a comma-separated list of hosts with IPv6 literals, so the authority
// is split here and each address checked with net.SplitHostPort.
func parseRedisURL(raw string) (redisURL, error) {
	var zero redisURL
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || (scheme != "redis" && scheme != "rediss") {
		return zero, fmt.Errorf("ledger: redis URL %q: expected redis:// or rediss://", redact(raw))
	}
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	userinfo, hostlist := "", authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		userinfo, hostlist = authority[:i], authority[i+1:]
	}
	// Let net/url parse the userinfo, path and query around a placeholder host.
	ph := scheme + "://"
	if userinfo != "" {
		ph += userinfo + "@"
	}
	u, err := url.Parse(ph + "placeholder" + tail)
	if err != nil {
		return zero, fmt.Errorf("ledger: redis URL %q: %v", redact(raw), stripURL(err))
	}
	if u.Fragment != "" {
		return zero, fmt.Errorf("ledger: redis URL %q: unexpected fragment", redact(raw))
	}

	uo := &redis.UniversalOptions{}
	var addrs []string
	if hostlist != "" {
		for h := range strings.SplitSeq(hostlist, ",") {
			a, err := normaliseAddr(h)
			if err != nil {
				return zero, fmt.Errorf("ledger: redis URL %q: %v", redact(raw), err)
			}
			addrs = append(addrs, a)
		}
	}
	if u.User != nil {
		uo.Username = u.User.Username()
		uo.Password, _ = u.User.Password() // redis://:PASS@ is the default user
	}
	switch p := strings.Trim(u.Path, "/"); {
	case p == "":
	case strings.Contains(p, "/"):
		return zero, fmt.Errorf("ledger: redis URL %q: path %q: expected /DB", redact(raw), u.Path)
	default:
		db, err := strconv.Atoi(p)
		if err != nil || db < 0 {
			return zero, fmt.Errorf("ledger: redis URL %q: database %q: expected a number", redact(raw), p)
		}
		uo.DB = db
	}

	cfg := redisURL{opts: uo, prefix: "ndr:"}
	q := u.Query()
	forceCluster := false
	var tlsCA, tlsName string
	for name, vals := range q {
		v := vals[len(vals)-1]
		switch name {
		case "addr":
			for _, a := range vals {
				n, err := normaliseAddr(a)
				if err != nil {
					return zero, fmt.Errorf("ledger: redis URL %q: addr: %v", redact(raw), err)
				}
				addrs = append(addrs, n)
			}
		case "cluster":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return zero, fmt.Errorf("ledger: redis URL %q: cluster=%q: expected true or false", redact(raw), v)
			}
			forceCluster = b
		case "master_name":
			uo.MasterName = v
		case "sentinel_password":
			uo.SentinelPassword = v
		case "db":
			db, err := strconv.Atoi(v)
			if err != nil || db < 0 {
				return zero, fmt.Errorf("ledger: redis URL %q: db=%q: expected a number", redact(raw), v)
			}
			uo.DB = db
		case "prefix":
			cfg.prefix = v
		case "tls_ca":
			tlsCA = v
		case "tls_server_name":
			tlsName = v
		case "pool_size":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return zero, fmt.Errorf("ledger: redis URL %q: pool_size=%q: expected a positive number", redact(raw), v)
			}
			uo.PoolSize = n
		case "lookup_timeout", "write_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 || d > time.Minute {
				return zero, fmt.Errorf("ledger: redis URL %q: %s=%q: expected a duration from 1ms to 1m, such as 80ms", redact(raw), name, v)
			}
			if name == "lookup_timeout" {
				cfg.lookupTimeout = d
			} else {
				cfg.writeTimeout = d
			}
		default:
			return zero, fmt.Errorf("ledger: redis URL %q: unknown parameter %q: expected addr, cluster, master_name, sentinel_password, db, prefix, tls_ca, tls_server_name, pool_size, lookup_timeout or write_timeout", redact(raw), name)
		}
	}
	if len(addrs) == 0 {
		addrs = []string{"localhost:6379"}
	}
	uo.Addrs = addrs

	switch {
	case uo.MasterName != "" && forceCluster:
		return zero, fmt.Errorf("ledger: redis URL %q: master_name (Sentinel) and cluster cannot both be set", redact(raw))
	case uo.MasterName != "":
		cfg.mode = "sentinel"
	case forceCluster || len(addrs) > 1:
		cfg.mode = "cluster"
		uo.IsClusterMode = true
		if uo.DB != 0 {
			return zero, fmt.Errorf("ledger: redis URL %q: Redis Cluster has only database 0, got %d", redact(raw), uo.DB)
		}
	default:
		cfg.mode = "standalone"
	}

	if scheme == "rediss" {
		host, _, _ := net.SplitHostPort(addrs[0])
		tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
		if tlsName != "" {
			tc.ServerName = tlsName
			cfg.tlsNameFixed = true
		}
		if tlsCA != "" {
			pem, err := os.ReadFile(tlsCA)
			if err != nil {
				return zero, fmt.Errorf("ledger: redis URL: tls_ca: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return zero, fmt.Errorf("ledger: redis URL: tls_ca %s: no PEM certificate found", tlsCA)
			}
			tc.RootCAs = pool
		}
		uo.TLSConfig = tc
	} else if tlsCA != "" || tlsName != "" {
		return zero, fmt.Errorf("ledger: redis URL %q: tls_ca and tls_server_name need rediss://", redact(raw))
	}
	return cfg, nil
}

// normaliseAddr checks HOST[:PORT] (IPv6 in brackets) and adds port 6379.
func normaliseAddr(a string) (string, error) {
	if a == "" {
		return "", fmt.Errorf("empty address")
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		// No port: "host" or "[::1]".
		h := strings.TrimSuffix(strings.TrimPrefix(a, "["), "]")
		if strings.ContainsAny(h, "[]/ ") || (strings.Contains(h, ":") && !strings.HasPrefix(a, "[")) {
			return "", fmt.Errorf("address %q: expected HOST:PORT", a)
		}
		host, port = h, "6379"
	}
	if host == "" {
		return "", fmt.Errorf("address %q: no host", a)
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("address %q: port %q: expected 1-65535", a, port)
	}
	return net.JoinHostPort(host, port), nil
}

// redact hides a password in a URL for error messages.
func redact(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = i
	}
	if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
		user := rest[:at]
		if u, _, hasPass := strings.Cut(user, ":"); hasPass {
			user = u + ":xxxxx"
		} else {
			user = "xxxxx"
		}
		rest = user + rest[at:]
	}
	// Query parameters may carry a sentinel password.
	if q := strings.Index(rest, "sentinel_password="); q >= 0 {
		e := strings.IndexByte(rest[q:], '&')
		if e < 0 {
			rest = rest[:q] + "sentinel_password=xxxxx"
		} else {
			rest = rest[:q] + "sentinel_password=xxxxx" + rest[q+e:]
		}
	}
	return scheme + "://" + rest
}

// stripURL removes the URL (which may hold a password) from a url.Error.
func stripURL(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
