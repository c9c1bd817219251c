//go:build e2e

// The end-to-end tests run the ndrmilter binary as a separate process, as
// the milter of a private Postfix (internal/postfixtest) configured with the
// deploy kit's settings (deploy/postfix/main.cf), and send real SMTP into
// it. Run them with "make e2e", as root, after "make deps".
//
// Each test starts its own Postfix, sink and ndrmilter, so that no test
// depends on what another one sent or configured; they run in parallel
// ("go test -parallel") to keep the suite short.
//
// The network plan: clients from 127.0.0.1 are "the Internet" (without a
// login they may only send to example.org, which Postfix relays to the
// sink); in tests that say so, 127.0.0.2 is a trusted internal host
// (Postfix mynetworks and ndrmilter --trusted-networks); alice@example.org
// logs in with SASL PLAIN.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

const (
	internetIP  = "127.0.0.1"
	trustedIP   = "127.0.0.2"
	alice       = postfixtest.User
	localDomain = postfixtest.LocalDomain
	deliverWait = 30 * time.Second
)

// deployKitMilter is the milter address deploy/postfix/main.cf names; the
// tests put the address of their own ndrmilter in its place.
const deployKitMilter = "inet:127.0.0.1:9890"

// e2eEnv is one private mail site: Postfix, its sink, and ndrmilter as its
// milter.
type e2eEnv struct {
	t       *testing.T
	Postfix *postfixtest.Instance
	Milter  *milterProc
	Addr    string // the milter's fixed address, which Postfix's configuration names
	Data    string // its data directory (the embedded ledger)
	// Other is a second milter, listed before ndrmilter as an admin's
	// existing milter would be, with Postfix's global milter settings
	// (which the deploy kit leaves alone).
	Other *otherMilter
	// disturbed are the addresses of the milters a test stopped or
	// stalled: Postfix may complain about those.
	disturbed map[string]bool
}

// envConfig says how to set up an e2eEnv.
type envConfig struct {
	// MilterFlags are the flags of "ndrmilter serve" beyond its addresses,
	// data directory and domain.
	MilterFlags []string
	// Postfix are main.cf settings on top of postfixtest's and the deploy
	// kit's.
	Postfix []string
}

// withTrustedHost is the set-up in which 127.0.0.2 is a trusted internal
// host for both Postfix and ndrmilter, and 127.0.0.1 is not: mail from
// 127.0.0.1 is inbound unless its client logs in. extraFlags are more flags
// for ndrmilter.
func withTrustedHost(extraFlags ...string) envConfig {
	return envConfig{
		MilterFlags: append([]string{"--trusted-networks", trustedIP + "/32"}, extraFlags...),
		Postfix:     []string{"mynetworks = " + trustedIP + "/32"},
	}
}

// newE2EEnv starts ndrmilter and a second, no-op milter, then a Postfix
// that uses both: main.cf as deploy/postfix/main.cf ships it (only
// ndrmilter's address swapped), with the no-op milter put before ndrmilter
// in smtpd_milters and non_smtpd_milters, the way an admin adds ndrmilter
// to an existing list. At the test's end it fails the test if Postfix
// complained about a milter the test did not stop or stall.
func newE2EEnv(t *testing.T, cfg envConfig) *e2eEnv {
	t.Helper()
	env := &e2eEnv{t: t, Addr: fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t)), Data: t.TempDir(),
		disturbed: map[string]bool{}}
	env.Milter = startMilter(t, env.Addr, env.Data, cfg.MilterFlags...)
	env.Other = startOtherMilter(t)
	kit := besideOtherMilter(t, deployKitSettings(t, "inet:"+env.Addr), "inet:"+env.Other.Addr)
	env.Postfix = postfixtest.Start(t, postfixtest.Config{Settings: append(kit, cfg.Postfix...)})
	t.Cleanup(func() {
		for _, line := range env.Postfix.MilterComplaints() {
			if env.disturbed[env.Addr] && strings.Contains(line, "inet:"+env.Addr) ||
				env.disturbed[env.Other.Addr] && strings.Contains(line, "inet:"+env.Other.Addr) {
				continue
			}
			t.Errorf("Postfix complained about a milter: %s", line)
		}
		if t.Failed() {
			t.Logf("--- ndrmilter output ---\n%s", env.Milter.Output())
		}
	})
	return env
}

// deployKitSettings returns the settings of deploy/postfix/main.cf with its
// milter address replaced by milter, so that the snippet admins copy is the
// one tested.
func deployKitSettings(t *testing.T, milter string) []string {
	t.Helper()
	path := filepath.Join("..", "..", "deploy", "postfix", "main.cf")
	settings, err := postfixtest.ReadSettings(path)
	if err != nil {
		t.Fatalf("the deploy kit's main.cf: %v", err)
	}
	replaced := false
	for i, s := range settings {
		if strings.Contains(s, deployKitMilter) {
			settings[i] = strings.ReplaceAll(s, deployKitMilter, milter)
			replaced = true
		}
	}
	if !replaced {
		t.Fatalf("%s: no setting names %s, the address the tests replace with their milter's", path, deployKitMilter)
	}
	return settings
}

// StopMilter stops ndrmilter; Postfix then works without it.
func (env *e2eEnv) StopMilter() {
	env.disturbed[env.Addr] = true
	env.Milter.Stop()
}

// StallMilter freezes ndrmilter (SIGSTOP): its socket still accepts
// connections, but nothing answers. ResumeMilter (or the test's end)
// thaws it.
func (env *e2eEnv) StallMilter() {
	env.t.Helper()
	env.disturbed[env.Addr] = true
	if err := env.Milter.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		env.t.Fatalf("SIGSTOP ndrmilter: %v", err)
	}
}

// ResumeMilter thaws ndrmilter after StallMilter.
func (env *e2eEnv) ResumeMilter() { env.Milter.cmd.Process.Signal(syscall.SIGCONT) }

// StopOtherMilter stops the second milter.
func (env *e2eEnv) StopOtherMilter() {
	env.disturbed[env.Other.Addr] = true
	env.Other.Stop()
}

// RestartMilter starts ndrmilter again, after StopMilter, on the same
// address and data directory, with flags.
func (env *e2eEnv) RestartMilter(flags ...string) {
	env.t.Helper()
	env.Milter.Stop()
	env.Milter = startMilter(env.t, env.Addr, env.Data, flags...)
}

// Await waits for a message that match accepts to reach the sink, or fails
// the test saying what did not arrive.
func (env *e2eEnv) Await(what string, match func(postfixtest.Message) bool) postfixtest.Message {
	env.t.Helper()
	m, ok := env.Postfix.Sink.Await(deliverWait, match)
	if !ok {
		env.t.Fatalf("%s did not reach the sink within %s\n%s\n--- ndrmilter ---\n%s", what, deliverWait,
			env.Postfix.LogTail(40), tail(env.Milter.Output(), 20))
	}
	return m
}

// withMessageID matches the message whose Message-ID is <id>.
func withMessageID(id string) func(postfixtest.Message) bool {
	return func(m postfixtest.Message) bool {
		return m.Header != nil && m.Header.Get("Message-Id") == "<"+id+">"
	}
}

// bounceQuoting matches a bounce (null sender) whose text contains id.
func bounceQuoting(id string) func(postfixtest.Message) bool {
	return func(m postfixtest.Message) bool {
		return m.From == "" && strings.Contains(string(m.Data), id)
	}
}

// ledgerLookup asks "ndrmilter ledger lookup --json" about id in the ledger
// of data (with the embedded ledger, the milter must be stopped first: the
// bbolt file has one writer).
func ledgerLookup(t *testing.T, data, id string) lookupRecord {
	t.Helper()
	out, err := exec.Command(ndrmilterBinary(t), "ledger", "lookup", "--data", data, "--json", id).Output()
	var lr lookupRecord
	if jerr := json.Unmarshal(out, &lr); jerr != nil {
		t.Fatalf("ndrmilter ledger lookup %s: %v / %v\n%s", id, err, jerr, out)
	}
	return lr
}

// uniqueID returns a Message-ID (without brackets) unique to this run.
func uniqueID(tag string) string {
	return fmt.Sprintf("%s.%d.%d@client.e2e.test", tag, time.Now().UnixNano(), os.Getpid())
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitFor polls cond every 20 ms until it is true or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dialable reports whether something accepts TCP connections at addr.
func dialable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

var (
	buildOnce sync.Once
	binPath   string
	binErr    error
)

// ndrmilterBinary builds the binary once per test run, or returns
// $NDRMILTER_BIN when it is set (a binary built elsewhere, e.g. by make).
func ndrmilterBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if bin := os.Getenv("NDRMILTER_BIN"); bin != "" {
			binPath, binErr = filepath.Abs(bin)
			return
		}
		dir, err := os.MkdirTemp("", "ndrmilter-e2e-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ndrmilter")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestMain removes the binary ndrmilterBinary built, after all tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" && os.Getenv("NDRMILTER_BIN") == "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// milterProc is a running "ndrmilter serve".
type milterProc struct {
	Addr    string // host:port of the milter listener
	Metrics string // host:port of the metrics listener

	cmd   *exec.Cmd
	out   *bytes.Buffer
	outMu *sync.Mutex
	done  chan struct{}
}

// startMilter runs "ndrmilter serve" on a fixed address (so that Postfix's
// configuration survives a restart) with more flags, stopped at the test's
// end.
func startMilter(t testing.TB, addr, dataDir string, flags ...string) *milterProc {
	t.Helper()
	metrics := fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))
	args := append([]string{"serve", "--listen", "inet:" + addr, "--data", dataDir, "--domain", postfixtest.Domain,
		"--metrics-listen", metrics}, flags...)
	m := startProc(t, addr, args)
	m.Metrics = metrics
	return m
}

// startProc runs "ndrmilter args..." (serve or filter) until the test's end,
// and returns once it listens on addr; the test fails when it exits first
// or does not listen within 15 s.
func startProc(t testing.TB, addr string, args []string) *milterProc {
	t.Helper()
	m := &milterProc{Addr: addr, out: new(bytes.Buffer), outMu: new(sync.Mutex), done: make(chan struct{})}
	m.cmd = exec.Command(ndrmilterBinary(t), args...)
	w := &lockedWriter{mu: m.outMu, w: m.out}
	m.cmd.Stdout, m.cmd.Stderr = w, w
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start ndrmilter %s: %v", args[0], err)
	}
	go func() { m.cmd.Wait(); close(m.done) }()
	t.Cleanup(m.Stop)
	ok := waitFor(15*time.Second, func() bool {
		select {
		case <-m.done:
			return true
		default:
		}
		return dialable(addr)
	})
	select {
	case <-m.done:
		t.Fatalf("ndrmilter %q exited at start:\n%s", args, m.Output())
	default:
	}
	if !ok {
		t.Fatalf("ndrmilter %s did not listen on %s within 15s:\n%s", args[0], addr, m.Output())
	}
	return m
}

// Stop sends SIGTERM and waits (at most 10 s, then SIGKILL) for the process
// to exit. It may be called more than once.
func (m *milterProc) Stop() {
	select {
	case <-m.done:
		return
	default:
	}
	// SIGCONT first: a stalled (SIGSTOP) process handles SIGTERM only
	// once it runs again.
	m.cmd.Process.Signal(syscall.SIGCONT)
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

// Output returns what the process wrote so far.
func (m *milterProc) Output() string {
	m.outMu.Lock()
	defer m.outMu.Unlock()
	return m.out.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
