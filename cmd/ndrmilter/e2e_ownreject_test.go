//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestE2EOwnBounceUnknownOriginalReject: Postfix's own bounce for a message
// the ledger does not know (sent while ndrmilter was not running), with
// --backscatter-action reject. The bounce must still reach the sender,
// tagged: rejecting it inside cleanup(8) made qmgr log "status=deferred
// (bounce failed)" and retry at every queue run, and the sender was never
// told (found here on 2026-11-29, fixed in the milter by "never reject or
// discard a bounce written inside; tag it").
func TestE2EOwnBounceUnknownOriginalReject(t *testing.T) {
	env := newE2EEnv(t, "--backscatter-action", "reject")
	// Hold local deliveries, and send while the milter is down: the
	// original is accepted without being recorded.
	env.Postfix.Postconf("defer_transports = local")
	env.Milter.Stop()
	s := dialFrom(t, env.Postfix, internetIP, true)
	id := uniqueID("unrecorded-ghost")
	if err := s.Send(alice, []string{"ghost@" + e2eLocalDomain}, e2eOutbound(id, "ghost@"+e2eLocalDomain, "unrecorded")); err != nil {
		t.Fatalf("send: %v\n%s", err, env.Postfix.LogTail(20))
	}
	s.Quit()
	env.RestartMilter(t, "--backscatter-action", "reject")
	env.Postfix.Postconf("defer_transports =")
	env.Postfix.Flush()
	m, ok := env.Sink.await(20*time.Second, func(m sinkMessage) bool { return m.From == "" && strings.Contains(string(m.Data), id) })
	if !ok {
		t.Fatalf("Postfix's own bounce for <%s> (original unknown to the ledger) never reached alice with --backscatter-action reject\n%s\n%s",
			id, env.Postfix.LogTail(30), tail(env.Milter.Output(), 10))
	}
	if bs := headerValues(m, "X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "yes") {
		t.Errorf("X-NDR-Backscatter = %q, want yes (the original is not in the ledger), tagged rather than rejected", bs)
	}
	if log := env.Postfix.LogText(); strings.Contains(log, "bounce failed") || strings.Contains(log, "milter-reject") {
		t.Errorf("Postfix refused its own bounce at least once:\n%s", env.Postfix.LogTail(20))
	}
}
