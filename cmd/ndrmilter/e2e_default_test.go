//go:build e2e

package main

import (
	"strings"
	"testing"
)

// TestE2EOwnBounceDefaultTrust is scenario d as deployed, with ndrmilter's
// default trusted networks (the loopback): Postfix presents its own bounces
// to non_smtpd_milters as coming from 127.0.0.1, a trusted client, and the
// bounce must still be explained, not just recorded as outbound mail.
func TestE2EOwnBounceDefaultTrust(t *testing.T) {
	env := newE2EEnv(t)
	s := dialFrom(t, env.Postfix, internetIP, true)
	id := uniqueID("d2-ghost")
	if err := s.Send(alice, []string{"ghost@" + e2eLocalDomain}, e2eOutbound(id, "ghost@"+e2eLocalDomain, "d2")); err != nil {
		t.Fatalf("send: %v\n%s", err, env.Postfix.LogTail(20))
	}
	s.Quit()
	m, ok := env.Sink.await(deliverWait, func(m sinkMessage) bool { return m.From == "" && strings.Contains(string(m.Data), id) })
	if !ok {
		t.Fatalf("Postfix's bounce for <%s> did not reach the sink\n%s", id, env.Postfix.LogTail(30))
	}
	if expl := strings.Join(headerValues(m, "X-NDR-Explanation"), " "); !strings.Contains(expl, "ghost@"+e2eLocalDomain) {
		t.Errorf("X-NDR-Explanation = %q, want one naming ghost@%s\n%s", expl, e2eLocalDomain, tail(env.Milter.Output(), 10))
	}
	if own := headerValues(m, "X-NDR-Owner"); len(own) != 1 || own[0] != "sender" {
		t.Errorf("X-NDR-Owner = %q, want sender (5.1.1, unknown user)", own)
	}
	if bs := headerValues(m, "X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") {
		t.Errorf("X-NDR-Backscatter = %q, want no (alice's message is in the ledger)", bs)
	}
	if bad := milterTrouble(env.Postfix.LogText()); len(bad) > 0 {
		t.Errorf("Postfix logged milter trouble:\n%s", strings.Join(bad, "\n"))
	}
}
