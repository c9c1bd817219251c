package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metrics_listen and --metrics-listen, the former names, still set the
// HTTP listener, for serve and filter; a file that gives both names is
// refused.
func TestFormerNamesOfTheHTTPListener(t *testing.T) {
	dir := t.TempDir()
	conf := func(content string) string {
		p := filepath.Join(dir, "c.yaml")
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	old := conf("metrics_listen: 127.0.0.1:7001\n")
	if c, err := parseServeArgs(t, "--config", old); err != nil || c.HTTPListen != "127.0.0.1:7001" {
		t.Errorf("serve, metrics_listen in the file: %q, %v", c.HTTPListen, err)
	}
	if c, err := parseFilterArgs(t, "--config", old); err != nil || c.HTTPListen != "127.0.0.1:7001" {
		t.Errorf("filter, metrics_listen in the file: %q, %v", c.HTTPListen, err)
	}
	if c, err := parseServeArgs(t, "--config", old, "--http-listen", "127.0.0.1:7002"); err != nil || c.HTTPListen != "127.0.0.1:7002" {
		t.Errorf("serve, --http-listen over the file: %q, %v", c.HTTPListen, err)
	}
	if c, err := parseServeArgs(t, "--metrics-listen", ""); err != nil || c.HTTPListen != "" {
		t.Errorf("serve, --metrics-listen \"\": %q, %v; want off", c.HTTPListen, err)
	}
	if c, err := parseFilterArgs(t, "--metrics-listen", "127.0.0.1:7003"); err != nil || c.HTTPListen != "127.0.0.1:7003" {
		t.Errorf("filter, --metrics-listen: %q, %v", c.HTTPListen, err)
	}
	both := conf("http_listen: 127.0.0.1:7004\nmetrics_listen: 127.0.0.1:7005\n")
	if _, err := parseServeArgs(t, "--config", both); err == nil || !strings.Contains(err.Error(), both+":2: http_listen: given twice (first at line 1)") {
		t.Errorf("serve, both names: %v", err)
	}
	if _, err := parseFilterArgs(t, "--config", both); err == nil || !strings.Contains(err.Error(), "http_listen given twice") {
		t.Errorf("filter, both names: %v", err)
	}
}

// config check reads the users file and the certificate as serve would.
func TestConfigCheckReadsTheHTTPUsersAndCertificate(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	os.WriteFile(users, []byte("helpdesk:plaintext\n"), 0o600)
	conf := filepath.Join(dir, "ndrmilter.yaml")
	os.WriteFile(conf, []byte("domains: [example.org]\nhttp_users: "+users+"\nhttp_tls_cert: "+filepath.Join(dir, "cert.pem")+"\n"), 0o600)
	out, errOut, rc := runCLI(t, "", "config", "check", "--config", conf)
	if rc != exitNo || !strings.Contains(errOut, conf+":2: http_users: "+users+":1: the hash of \"helpdesk\" is not a bcrypt hash") ||
		!strings.Contains(errOut, "http_tls_key: TLS needs both http_tls_cert and http_tls_key") {
		t.Errorf("config check: exit %d\n%s%s", rc, out, errOut)
	}
}
