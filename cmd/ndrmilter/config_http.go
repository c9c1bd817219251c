package main

// The configuration of the HTTP listener (package httpapi): its address,
// users and TLS.

import (
	"crypto/tls"
	"flag"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/httpapi"
)

// configAliases are former key names still read, and the key each stands
// for. A file that gives both is refused (the key is given twice).
var configAliases = map[string]string{
	"metrics_listen": "http_listen",
}

// httpFlags defines the HTTP listener's flags on fs, writing into c.
func httpFlags(fs *flag.FlagSet, c *serveConfig) {
	fs.StringVar(&c.HTTPListen, "http-listen", c.HTTPListen, "`HOST:PORT` of the HTTP API, the helpdesk page, /metrics and /healthz (empty: off)")
	fs.StringVar(&c.HTTPListen, "metrics-listen", c.HTTPListen, "former name of --http-listen, `HOST:PORT`")
	fs.StringVar(&c.HTTPUsers, "http-users", c.HTTPUsers, "password `FILE` (USER:BCRYPT-HASH lines, htpasswd -B): basic authentication on the HTTP listener")
	fs.StringVar(&c.HTTPTLSCert, "http-tls-cert", c.HTTPTLSCert, "certificate `FILE` (PEM): TLS on the HTTP listener")
	fs.StringVar(&c.HTTPTLSKey, "http-tls-key", c.HTTPTLSKey, "private key `FILE` (PEM) of --http-tls-cert")
}

// checkHTTPValues checks the HTTP listener's settings that need no file.
func (c serveConfig) checkHTTPValues(src *configSource) configProblems {
	var probs configProblems
	add := func(key, format string, args ...any) {
		probs = append(probs, configProblem{pos: src.pos(key, -1), msg: fmt.Sprintf(format, args...)})
	}
	if c.HTTPListen != "" {
		if err := checkHostPort(c.HTTPListen); err != nil {
			add("http_listen", "http_listen %q: %v", c.HTTPListen, err)
		}
	}
	if (c.HTTPTLSCert == "") != (c.HTTPTLSKey == "") {
		key := "http_tls_key"
		if c.HTTPTLSCert == "" {
			key = "http_tls_cert"
		}
		add(key, "%s: TLS needs both http_tls_cert and http_tls_key (PEM files)", key)
	}
	if c.HTTPImportMaxBytes < 0 {
		add("http_import_max_bytes", "http_import_max_bytes %d: expected a number of bytes, such as 1073741824 (1 GiB)", c.HTTPImportMaxBytes)
	}
	return probs
}

// checkHTTPLoads reads the HTTP listener's files: the users and the
// certificate.
func (c serveConfig) checkHTTPLoads(src *configSource) configProblems {
	var probs configProblems
	if c.HTTPUsers != "" {
		if _, err := httpapi.LoadUsers(c.HTTPUsers); err != nil {
			probs = append(probs, configProblem{pos: src.pos("http_users", -1), msg: "http_users: " + err.Error()})
		}
	}
	if c.HTTPTLSCert != "" && c.HTTPTLSKey != "" {
		if _, err := tls.LoadX509KeyPair(c.HTTPTLSCert, c.HTTPTLSKey); err != nil {
			probs = append(probs, configProblem{pos: src.pos("http_tls_cert", -1), msg: "http_tls_cert: " + err.Error()})
		}
	}
	return probs
}

// httpChanged reports whether a reload changed what only a restart applies
// to the HTTP listener.
func httpChanged(a, b serveConfig) bool {
	return a.HTTPListen != b.HTTPListen || a.HTTPUsers != b.HTTPUsers || a.HTTPTLSCert != b.HTTPTLSCert || a.HTTPTLSKey != b.HTTPTLSKey
}

// applyFormerHTTPListen moves metrics_listen, the former name of
// http_listen, read from a filter's configuration file, to http_listen.
func applyFormerHTTPListen(path string, data []byte, c *filterConfig) error {
	if c.FormerHTTPListen == nil {
		return nil
	}
	var keys map[string]any
	if yaml.Unmarshal(data, &keys) == nil {
		if _, both := keys["http_listen"]; both {
			return fmt.Errorf("%s: http_listen given twice: as http_listen and as metrics_listen, its former name; keep one", path)
		}
	}
	c.HTTPListen, c.FormerHTTPListen = *c.FormerHTTPListen, nil
	return nil
}
