package milter

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/ndrmilter/ndrmilter/frontend"
)

// The log shows addresses and Message-IDs as log_addresses says: by
// default a hash with the domain, never the address itself.
func TestLogShowsAddressesAsConfigured(t *testing.T) {
	for _, tc := range []struct {
		p          frontend.Privacy
		want, hide string
	}{
		{"", "h:", "alice@example.org"},
		{frontend.PrivacyDomain, "@example.org", "alice@"},
		{frontend.PrivacyFull, "alice@example.org", "h:"},
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			l := openLedger(t, t.TempDir())
			defer l.Close()
			srv, err := New(Config{Domains: []string{"example.org"}, LogAddresses: tc.p}, testEngine(t), l, zap.New(core), prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(ln)
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				srv.Shutdown(ctx)
			}()
			addr := ln.Addr().String()
			out := dial(t, newClient(addr), "127.0.0.1")
			if _, err := out.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"},
				raw: plain("alice@example.org", "bob@remote.example", "private.1@example.org")}); err != nil {
				t.Fatal(err)
			}
			out.close()
			mx := dial(t, newClient(addr), "203.0.113.25")
			raw := report("never.private@example.org", "alice@example.org", "carol@remote.example", "5.1.1", "550 5.1.1 unknown")
			if _, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw}); err != nil {
				t.Fatal(err)
			}
			mx.close()
			var lines []string
			for _, e := range logs.All() {
				if e.Message == "bounce" || e.Message == "outbound recorded" {
					lines = append(lines, fmt.Sprint(e.ContextMap()))
				}
			}
			all := strings.Join(lines, "\n")
			if len(lines) != 2 || !strings.Contains(all, tc.want) || strings.Contains(all, tc.hide) {
				t.Fatalf("log lines, want %q in them and never %q:\n%s", tc.want, tc.hide, all)
			}
		})
	}
}
