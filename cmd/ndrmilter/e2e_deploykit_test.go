//go:build e2e

package main

// The deploy kit's main.cf (deploy/postfix/main.cf) beside another milter:
// ndrmilter's default action and timeouts are its own (per-milter settings
// in smtpd_milters), and every other milter keeps Postfix's global ones.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// besideOtherMilter returns the deploy kit's settings with other put first
// in smtpd_milters and non_smtpd_milters, as an admin who already runs a
// milter adds ndrmilter after it.
func besideOtherMilter(t *testing.T, kit []string, other string) []string {
	t.Helper()
	out := append([]string(nil), kit...)
	found := map[string]bool{}
	for i, s := range out {
		name, value, _ := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if name == "smtpd_milters" || name == "non_smtpd_milters" {
			out[i] = name + " = " + other + ", " + strings.TrimSpace(value)
			found[name] = true
		}
	}
	if !found["smtpd_milters"] || !found["non_smtpd_milters"] {
		t.Fatalf("the deploy kit's main.cf sets %v of smtpd_milters and non_smtpd_milters, want both", found)
	}
	return out
}

var (
	noopOnce sync.Once
	noopBin  string
	noopErr  error
)

// noopMilterBinary builds scripts/noopmilter once per test run.
func noopMilterBinary(t testing.TB) string {
	t.Helper()
	noopOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ndrmilter-e2e-noop-")
		if err != nil {
			noopErr = err
			return
		}
		noopBin = filepath.Join(dir, "noopmilter")
		if out, err := exec.Command("go", "build", "-o", noopBin, "../../scripts/noopmilter").CombinedOutput(); err != nil {
			noopErr = fmt.Errorf("build scripts/noopmilter: %v\n%s", err, out)
		}
	})
	if noopErr != nil {
		t.Fatal(noopErr)
	}
	return noopBin
}

// otherMilter is a running scripts/noopmilter: a milter that changes
// nothing, standing for the milters a site already runs.
type otherMilter struct {
	Addr string // host:port it listens on

	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// startOtherMilter starts a no-op milter on a free loopback port, stopped
// at the test's end.
func startOtherMilter(t testing.TB) *otherMilter {
	t.Helper()
	m := &otherMilter{Addr: fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)), out: &syncBuffer{}, done: make(chan struct{})}
	m.cmd = exec.Command(noopMilterBinary(t), "-listen", m.Addr)
	m.cmd.Stdout, m.cmd.Stderr = m.out, m.out
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start noopmilter: %v", err)
	}
	go func() { m.cmd.Wait(); close(m.done) }()
	t.Cleanup(m.Stop)
	if !waitFor(10*time.Second, func() bool { return dialable(m.Addr) }) {
		t.Fatalf("noopmilter did not listen on %s:\n%s", m.Addr, m.out.String())
	}
	return m
}

// Stop stops the milter (SIGTERM) and waits for it; it may be called more
// than once.
func (m *otherMilter) Stop() {
	select {
	case <-m.done:
		return
	default:
	}
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

// Sessions stops the milter and returns the number of milter sessions it
// reports at exit.
func (m *otherMilter) Sessions(t testing.TB) int {
	t.Helper()
	m.Stop()
	out := m.out.String()
	i := strings.Index(out, "noopmilter: ")
	var n int
	if i < 0 {
		t.Fatalf("noopmilter did not report its sessions:\n%s", out)
	}
	if _, err := fmt.Sscanf(out[i+len("noopmilter: "):], "%d sessions", &n); err != nil {
		t.Fatalf("noopmilter's report: %v\n%s", err, out)
	}
	return n
}

// The milter settings of deploy/postfix/main.cf work with go-milter itself:
// with the no-op milter of scripts/noopmilter in ndrmilter's place, mail and
// Postfix's own bounces flow through smtpd_milters and non_smtpd_milters,
// and Postfix logs no complaint about the milter. This separates trouble in
// the deploy kit or the library from trouble in ndrmilter.
func TestE2EDeployKitWorksWithANoopMilter(t *testing.T) {
	t.Parallel()
	noop := startOtherMilter(t)
	pf := postfixtest.Start(t, postfixtest.Config{Settings: deployKitSettings(t, "inet:"+noop.Addr)})

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
	if n := noop.Sessions(t); n < 2 {
		t.Errorf("noopmilter saw %d sessions, want at least 2 (smtpd, and cleanup for the bounce)", n)
	}
}

// The deploy kit sets ndrmilter's default action and timeouts inside its
// smtpd_milters entry and no global milter_* parameter, so a milter listed
// beside it keeps Postfix's defaults: with ndrmilter down, mail is accepted
// unchanged (ndrmilter's default_action=accept); with the other milter
// down, Postfix applies that milter's default action, its global tempfail
// (the client is told to retry, nothing is delivered).
func TestE2EOtherMilterKeepsItsDefaultActionBesideTheDeployKit(t *testing.T) {
	t.Parallel()
	kit, err := postfixtest.ReadSettings(filepath.Join("..", "..", "deploy", "postfix", "main.cf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range kit {
		if strings.HasPrefix(s, "milter_") {
			t.Errorf("deploy/postfix/main.cf sets %q: a global milter setting changes every other milter", s)
		}
	}
	env := newE2EEnv(t, withTrustedHost())
	for _, name := range []string{"milter_default_action", "milter_connect_timeout", "milter_command_timeout",
		"milter_content_timeout", "milter_protocol", "milter_connect_macros", "milter_mail_macros",
		"milter_rcpt_macros", "milter_end_of_header_macros", "milter_end_of_data_macros"} {
		if got, want := env.Postfix.Param(name), postfixtest.DefaultParam(t, name); got != want {
			t.Errorf("with the deploy kit, %s = %q; want Postfix's default %q", name, got, want)
		}
	}
	if got := env.Postfix.Param("milter_default_action"); got != "tempfail" {
		t.Fatalf("Postfix's milter_default_action here is %q; this test tells tempfail from accept", got)
	}
	bounce := func(id string) string {
		return remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 unknown", "")
	}

	// Both milters up: the bounce is explained.
	id := uniqueID("both-up")
	if err := sendFrom(t, env.Postfix, "", alice, bounce(id)); err != nil {
		t.Fatalf("bounce with both milters up: %v", err)
	}
	m := env.Await("the bounce of <"+id+"> with both milters up", withMessageID("dsn."+id))
	if v := m.HeaderValues("X-NDR-Backscatter"); len(v) != 1 {
		t.Errorf("with both milters up the bounce has X-NDR-Backscatter %q, want one", v)
	}

	// ndrmilter down: its default_action, accept; delivered unchanged.
	env.StopMilter()
	id = uniqueID("ndr-down")
	if err := sendFrom(t, env.Postfix, "", alice, bounce(id)); err != nil {
		t.Fatalf("with ndrmilter down: %v; want accepted (its default_action=accept)", err)
	}
	m = env.Await("the bounce of <"+id+"> with ndrmilter down", withMessageID("dsn."+id))
	if v := m.HeaderValues("X-NDR-Backscatter"); len(v) != 0 {
		t.Errorf("with ndrmilter down the bounce has X-NDR-Backscatter %q", v)
	}

	// ndrmilter back, the other milter down: the other's default action.
	env.RestartMilter("--trusted-networks", trustedIP+"/32")
	env.StopOtherMilter()
	id = uniqueID("other-down")
	err = sendFrom(t, env.Postfix, "", alice, bounce(id))
	if se := smtpError(err); se == nil || se.Code/100 != 4 {
		t.Errorf("with the other milter down: %v; want a 4xx reply (its default_action, tempfail)", err)
	}
	if _, ok := env.Postfix.Sink.Await(3*time.Second, withMessageID("dsn."+id)); ok {
		t.Errorf("with the other milter down (tempfail) the message was delivered")
	}
}

// A stuck ndrmilter (its socket accepts, nothing answers) is given up after
// its own command_timeout (10s in the deploy kit), not Postfix's global 30s
// that the other milter keeps, and then its default_action=accept lets the
// mail through unchanged.
func TestE2EStalledNdrmilterIsGivenUpAfterItsOwnTimeout(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	global := postfixtest.DefaultParam(t, "milter_command_timeout")
	if global != "30s" {
		t.Fatalf("Postfix's default milter_command_timeout is %s; this test tells 10s from 30s", global)
	}
	env.StallMilter()
	id := uniqueID("ndr-stalled")
	start := time.Now()
	err := sendFrom(t, env.Postfix, "", alice, remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 unknown", ""))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("with ndrmilter stalled: %v; want accepted after its command_timeout", err)
	}
	m := env.Await("the bounce of <"+id+">", withMessageID("dsn."+id))
	env.ResumeMilter()
	if v := m.HeaderValues("X-NDR-Backscatter"); len(v) != 0 {
		t.Errorf("with ndrmilter stalled the bounce has X-NDR-Backscatter %q", v)
	}
	// Postfix waited for the stalled milter (so it was in the chain), and
	// gave up well before the global 30s.
	if took < 9*time.Second || took >= 30*time.Second {
		t.Errorf("the SMTP session took %s with ndrmilter stalled; want its command_timeout, 10s (not Postfix's global %s)", took.Round(time.Millisecond), global)
	}
}

// sendFrom sends one message in an SMTP session of its own, from
// 127.0.0.1 without a login (the Internet), and returns the session's first
// error: from the greeting and EHLO on, which Dial would turn into a
// failure of the test.
func sendFrom(t *testing.T, pf *postfixtest.Instance, from, to, msg string) error {
	t.Helper()
	c, err := smtp.Dial(pf.SMTP)
	if err != nil {
		return err
	}
	defer c.Close()
	// Longer than any milter timeout in play (30s), so that Postfix, not
	// the client, gives up first.
	c.CommandTimeout = 60 * time.Second
	if err := c.Hello("client.test"); err != nil {
		return err
	}
	if err := c.SendMail(from, []string{to}, strings.NewReader(strings.ReplaceAll(msg, "\n", "\r\n"))); err != nil {
		return err
	}
	return c.Quit()
}
