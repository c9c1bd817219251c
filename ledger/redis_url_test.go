package ledger

import (
	"strings"
	"testing"
	"time"
)

func TestParseRedisURL(t *testing.T) {
	tests := []struct {
		url      string
		mode     string
		addrs    []string
		db       int
		user     string
		pass     string
		master   string
		prefix   string
		tls      bool
		lookup   time.Duration
		write    time.Duration
		errMatch string
	}{
		{url: "redis://127.0.0.1:6380/2", mode: "standalone", addrs: []string{"127.0.0.1:6380"}, db: 2, prefix: "ndr:"},
		{url: "redis://localhost", mode: "standalone", addrs: []string{"localhost:6379"}, prefix: "ndr:"},
		{url: "redis://", mode: "standalone", addrs: []string{"localhost:6379"}, prefix: "ndr:"},
		{url: "redis://u:p%40ss@h:1/0?prefix=mx1:", mode: "standalone", addrs: []string{"h:1"}, user: "u", pass: "p@ss", prefix: "mx1:"},
		{url: "redis://:secret@h:1", mode: "standalone", addrs: []string{"h:1"}, pass: "secret", prefix: "ndr:"},
		{url: "rediss://h:6380", mode: "standalone", addrs: []string{"h:6380"}, tls: true, prefix: "ndr:"},
		{url: "redis://[::1]:7000", mode: "standalone", addrs: []string{"[::1]:7000"}, prefix: "ndr:"},
		{url: "redis://a:1,b:2,[::1]:3", mode: "cluster", addrs: []string{"a:1", "b:2", "[::1]:3"}, prefix: "ndr:"},
		{url: "redis://a:1?addr=b:2&addr=c", mode: "cluster", addrs: []string{"a:1", "b:2", "c:6379"}, prefix: "ndr:"},
		{url: "redis://a:1?cluster=true", mode: "cluster", addrs: []string{"a:1"}, prefix: "ndr:"},
		{url: "redis://s1:26379,s2:26379/3?master_name=mymaster", mode: "sentinel", addrs: []string{"s1:26379", "s2:26379"}, db: 3, master: "mymaster", prefix: "ndr:"},
		{url: "redis://h?db=4", mode: "standalone", addrs: []string{"h:6379"}, db: 4, prefix: "ndr:"},
		{url: "redis://h?lookup_timeout=80ms&write_timeout=2s", mode: "standalone", addrs: []string{"h:6379"}, prefix: "ndr:", lookup: 80 * time.Millisecond, write: 2 * time.Second},

		{url: "http://h:1", errMatch: "expected redis:// or rediss://"},
		{url: "redis://h:1/x", errMatch: "expected a number"},
		{url: "redis://h:1/1/2", errMatch: "expected /DB"},
		{url: "redis://h:99999", errMatch: "expected 1-65535"},
		{url: "redis://h:1,,b:2", errMatch: "empty address"},
		{url: "redis://h:1?bogus=1", errMatch: `unknown parameter "bogus"`},
		{url: "redis://a:1,b:2/1", errMatch: "only database 0"},
		{url: "redis://a:1?master_name=m&cluster=1", errMatch: "cannot both be set"},
		{url: "redis://a:1?tls_ca=/x", errMatch: "need rediss://"},
		{url: "rediss://a:1?tls_ca=/nonexistent/ca.pem", errMatch: "tls_ca"},
		{url: "redis://h:1?pool_size=0", errMatch: "positive number"},
		{url: "redis://h:1?lookup_timeout=50", errMatch: "expected a duration"},
		{url: "redis://h:1?write_timeout=-1s", errMatch: "expected a duration"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			cfg, err := parseRedisURL(tc.url)
			if tc.errMatch != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMatch) {
					t.Fatalf("error = %v, want one containing %q", err, tc.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o := cfg.opts
			if cfg.mode != tc.mode {
				t.Errorf("mode = %q, want %q", cfg.mode, tc.mode)
			}
			if strings.Join(o.Addrs, " ") != strings.Join(tc.addrs, " ") {
				t.Errorf("addrs = %q, want %q", o.Addrs, tc.addrs)
			}
			if o.DB != tc.db || o.Username != tc.user || o.Password != tc.pass || o.MasterName != tc.master {
				t.Errorf("db/user/pass/master = %d/%q/%q/%q, want %d/%q/%q/%q", o.DB, o.Username, o.Password, o.MasterName, tc.db, tc.user, tc.pass, tc.master)
			}
			if cfg.prefix != tc.prefix {
				t.Errorf("prefix = %q, want %q", cfg.prefix, tc.prefix)
			}
			if (o.TLSConfig != nil) != tc.tls {
				t.Errorf("TLS = %v, want %v", o.TLSConfig != nil, tc.tls)
			}
			if cfg.lookupTimeout != tc.lookup || cfg.writeTimeout != tc.write {
				t.Errorf("timeouts = %v/%v, want %v/%v", cfg.lookupTimeout, cfg.writeTimeout, tc.lookup, tc.write)
			}
			if (cfg.mode == "cluster") != o.IsClusterMode {
				t.Errorf("IsClusterMode = %v in mode %s", o.IsClusterMode, cfg.mode)
			}
		})
	}
}

func TestRedisURLErrorsHidePasswords(t *testing.T) {
	for _, u := range []string{
		"redis://user:hunter2@h:1/x",
		"redis://hunter2@h:1?bogus=1",
		"redis://h:1?master_name=m&sentinel_password=hunter2&bogus=1",
	} {
		_, err := parseRedisURL(u)
		if err == nil {
			t.Fatalf("%s: no error", u)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
