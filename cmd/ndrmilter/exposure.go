package main

import (
	"net"
	"net/netip"
	"strings"

	"go.uber.org/zap"
)

// What a listener beyond the loopback exposes, by kind of listener.
var exposureRisk = map[string]string{
	"milter": "the milter protocol has no authentication: anyone who can reach this port sees the mail that passes " +
		"and can write ledger records (by setting {auth_authen}); keep it on loopback or a unix socket, or restrict " +
		"it with listen_allow and a firewall",
	"filter": "anyone who can reach this port can relay mail through the next hop as a trusted client would, " +
		"and write ledger records; keep it on loopback, or restrict it with listen_allow and a firewall",
	"metrics": "the HTTP API, the helpdesk page, /metrics and /healthz are open to anyone who can reach this port " +
		"(the ledger can be read and added to unless http_users is set); keep http_listen on loopback, or set http_users and http_tls_cert",
}

// warnExposed logs a warning when ln accepts TCP connections from beyond
// the loopback (a wildcard or another address), naming what that exposes
// and the allow-list in force, if any (for the metrics listener, none).
func warnExposed(log *zap.Logger, kind string, ln net.Listener, allow []string) {
	if ln == nil || !exposed(ln.Addr()) {
		return
	}
	fields := []zap.Field{zap.String("listener", kind), zap.String("address", ln.Addr().String()),
		zap.String("risk", exposureRisk[kind])}
	if kind != "metrics" {
		if len(allow) == 0 {
			fields = append(fields, zap.String("listen_allow", "(any client)"))
		} else {
			fields = append(fields, zap.String("listen_allow", strings.Join(allow, ",")))
		}
	}
	log.Warn("listening beyond the loopback", fields...)
}

// exposed reports whether a listener's address takes connections from
// beyond the loopback: a TCP address that is not a loopback one (the
// wildcard 0.0.0.0 and :: included).
func exposed(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	return !ok || !ip.Unmap().IsLoopback()
}

// exposedAddress reports whether a HOST:PORT listen address names a host
// beyond the loopback, as config check sees it without listening: an IP
// address that is not a loopback one, the empty host (every address), or a
// name other than localhost.
func exposedAddress(hostPort string) bool {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err != nil || !ip.Unmap().IsLoopback()
}
