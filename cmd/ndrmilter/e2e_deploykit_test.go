//go:build e2e

package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// The milter settings of deploy/postfix/main.cf work with go-milter itself:
// with the no-op milter of scripts/noopmilter in ndrmilter's place, mail and
// Postfix's own bounces flow through smtpd_milters and non_smtpd_milters,
// and Postfix logs no complaint about the milter. This separates trouble in
// the deploy kit or the library from trouble in ndrmilter.
func TestE2EDeployKitWorksWithANoopMilter(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "noopmilter")
	if out, err := exec.Command("go", "build", "-o", bin, "../../scripts/noopmilter").CombinedOutput(); err != nil {
		t.Fatalf("build noopmilter: %v\n%s", err, out)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))
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
	pf := postfixtest.Start(t, postfixtest.Config{Settings: deployKitSettings(t, "inet:"+addr)})

	s := pf.Dial(t, internetIP)
	s.Login()
	id := uniqueID("noop")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "noop")); err != nil {
		t.Fatalf("send: %v", err)
	}
	ghostID := uniqueID("noop-ghost")
	ghost := "ghost@" + localDomain
	if err := s.Send(alice, []string{ghost}, aliceMessage(ghostID, ghost, "noop to a ghost")); err != nil {
		t.Fatalf("send to %s: %v", ghost, err)
	}
	s.Quit()
	if _, ok := pf.Sink.Await(deliverWait, withMessageID(id)); !ok {
		t.Fatalf("message <%s> did not reach the sink", id)
	}
	if _, ok := pf.Sink.Await(deliverWait, bounceQuoting(ghostID)); !ok {
		t.Fatalf("no bounce for %s reached the sink", ghost)
	}
	if bad := pf.MilterComplaints(); len(bad) > 0 {
		t.Errorf("Postfix complained about the milter with the deploy kit's settings:\n%s", strings.Join(bad, "\n"))
	}
	// Proof that Postfix used the milter: smtpd's session and cleanup's for
	// the bounce at least.
	stop()
	var n int
	if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "noopmilter: ")+len("noopmilter: "):], "%d sessions", &n); err != nil || n < 2 {
		t.Errorf("noopmilter saw %d sessions (%v), want at least 2 (smtpd, and cleanup for the bounce)\n%s", n, err, out.String())
	}
}
