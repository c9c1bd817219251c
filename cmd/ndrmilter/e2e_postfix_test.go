//go:build e2e

package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
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

// TestE2EDeployKitWithNoopMilter runs Postfix with the milter settings of
// deploy/postfix/main.cf against the no-op go-milter milter of the benchmark:
// mail and Postfix's own bounces flow through smtpd_milters and
// non_smtpd_milters, and Postfix logs no milter complaint. It separates
// trouble in the deploy kit or the library from trouble in ndrmilter.
func TestE2EDeployKitWithNoopMilter(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "noopmilter")
	if out, err := exec.Command("go", "build", "-o", bin, "../../scripts/noopmilter").CombinedOutput(); err != nil {
		t.Fatalf("build noopmilter: %v\n%s", err, out)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "-listen", addr)
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	if !waitFor(10*time.Second, func() bool { return dialable(addr) }) {
		t.Fatalf("noopmilter did not listen on %s", addr)
	}
	sk := startSink(t)
	pf := startPostfix(t, postfixConfig{NextHop: sk.Addr, Milter: "inet:" + addr})

	s := dialSMTP(t, pf, true)
	id := uniqueID("noop")
	msg := "From: alice@example.org\nTo: bob@remote.test\nSubject: noop\nMessage-ID: <" + id + ">\n\nhello\n"
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
	if _, ok := sk.await(20*time.Second, func(m sinkMessage) bool { return m.From == "" && strings.Contains(string(m.Data), "x"+id) }); !ok {
		t.Fatalf("no bounce for ghost@%s reached the sink\n%s", e2eLocalDomain, pf.LogTail(30))
	}
	if bad := milterTrouble(pf.LogText()); len(bad) > 0 {
		t.Errorf("Postfix logged milter trouble with the deploy kit's settings:\n%s", strings.Join(bad, "\n"))
	}
	// Proof that Postfix used the milter: smtpd's session and cleanup's for
	// the bounce at least.
	stop()
	var n int
	if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "noopmilter: ")+len("noopmilter: "):], "%d sessions", &n); err != nil || n < 2 {
		t.Errorf("noopmilter saw %d sessions (%v), want at least 2 (smtpd, and cleanup for the bounce)\n%s", n, err, out.String())
	}
}
