//go:build e2e

package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestE2EPostfixHarness proves the harness itself, without a milter: an
// authenticated submission leaves through Postfix to the sink, and a message
// to an unknown local user comes back as a bounce Postfix writes.
func TestE2EPostfixHarness(t *testing.T) {
	sk := startSink(t)
	pf := startPostfix(t, postfixConfig{NextHop: sk.Addr})

	s := dialSMTP(t, pf, true)
	id := uniqueID("harness")
	msg := "From: alice@example.org\nTo: bob@remote.test\nSubject: harness\nMessage-ID: <" + id + ">\n\nhello\n"
	if err := s.Send("alice@example.org", []string{"bob@remote.test"}, msg); err != nil {
		t.Fatalf("send: %v\n%s", err, pf.LogTail(30))
	}
	if err := s.Send("alice@example.org", []string{"ghost@" + e2eLocalDomain}, strings.Replace(msg, id, "x"+id, 1)); err != nil {
		t.Fatalf("send to local ghost: %v\n%s", err, pf.LogTail(30))
	}
	s.Quit()
	if _, ok := sk.await(20*time.Second, withHeader("Message-Id", id)); !ok {
		t.Fatalf("message %s did not reach the sink\n%s", id, pf.LogTail(30))
	}
	b, ok := sk.await(20*time.Second, func(m sinkMessage) bool { return m.From == "" && len(m.To) == 1 && m.To[0] == "alice@example.org" })
	if !ok {
		t.Fatalf("no bounce for ghost@%s reached the sink\n%s", e2eLocalDomain, pf.LogTail(30))
	}
	if !strings.Contains(string(b.Data), "x"+id) {
		t.Errorf("the bounce does not quote the original Message-ID %s", "x"+id)
	}
	if _, ok := pf.AwaitLog(5*time.Second, regexp.MustCompile(`sasl_method=PLAIN, sasl_username=alice@example.org`)); !ok {
		t.Errorf("Postfix did not log the SASL login\n%s", pf.LogTail(30))
	}
}
