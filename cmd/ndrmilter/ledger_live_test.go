package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
	"golang.org/x/crypto/bcrypt"

	"github.com/ndrmilter/ndrmilter/httpapi"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// startServeChild runs "ndrmilter serve ARGS" in a child process (the test
// binary, as TestServeChild), waits until its milter socket at addr
// answers, and stops it with SIGTERM at the end of the test. stop stops it
// earlier.
func startServeChild(t *testing.T, addr string, args ...string) (out *syncBuffer, stop func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), serveChildEnv+"="+strings.Join(args, "\x1f"))
	out = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return out, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen:\n%s", out.String())
		}
	}
}

// recordThroughMilter sends a message from alice@example.org through the milter
// at addr as a client of the loopback (a trusted network): it is recorded.
func recordThroughMilter(t *testing.T, addr, messageID, queueID string) {
	t.Helper()
	c := gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second,
		ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader})
	s, err := c.Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Macros(gomilter.CodeConn, "{client_addr}", "127.0.0.1")
	if _, err := s.Conn("localhost", gomilter.FamilyInet, 25, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	s.Macros(gomilter.CodeMail, "{client_addr}", "127.0.0.1", "i", queueID)
	if _, err := s.Mail("alice@example.org", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rcpt("bob@remote.test", nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range [][2]string{{"From", "alice@example.org"}, {"To", "bob@remote.test"}, {"Message-ID", "<" + messageID + ">"}, {"Subject", "hello"}} {
		if _, err := s.HeaderField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		t.Fatal(err)
	}
	s.Macros(gomilter.CodeEOB, "i", queueID)
	if _, _, err := s.BodyReadFrom(strings.NewReader("hello\r\n")); err != nil {
		t.Fatal(err)
	}
}

// ledgerCLI runs "ndrmilter ledger ARGS" in this process and returns what
// it printed and its exit status.
func ledgerCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return captureStdout(t, func() int { return runLedger(args) })
}

// While serve runs on the embedded ledger (and holds its file), the ledger
// commands reach it through its API, with no other flag than --data: the
// service left its address, and a token that stands for a user, in the
// data directory.
func TestLedgerCommandsReachTheRunningService(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	haddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	// With authentication on: the commands use the token, not a password.
	hash, _ := bcrypt.GenerateFromPassword([]byte("secret"), bcrypt.MinCost)
	users := filepath.Join(dir, "users")
	os.WriteFile(users, []byte("helpdesk:"+string(hash)+"\n"), 0o600)
	out, stop := startServeChild(t, addr, "--listen", "inet:"+addr, "--data", data, "--domain", "example.org",
		"--http-listen", haddr, "--http-users", users)

	// The milter socket listens before the service has written the address
	// file: wait for it.
	a, err := httpapi.ReadAddrFile(data)
	for deadline := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		a, err = httpapi.ReadAddrFile(data)
	}
	if err != nil || a.URL != "http://"+haddr || a.Token == "" {
		t.Fatalf("address file: %+v, %v; want the API's URL and a token\n%s", a, err, out.String())
	}
	if fi, err := os.Stat(filepath.Join(data, httpapi.AddrFileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the address file (it holds a token) is not readable by its owner only: %v %v", fi.Mode(), err)
	}

	recordThroughMilter(t, addr, "live.1@example.org", "4LIVE1")
	var rec httpapi.LedgerRecord
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, rc := ledgerCLI(t, "lookup", "--data", data, "--json", "<live.1@example.org>")
		if rc == 0 {
			if err := json.Unmarshal([]byte(got), &rec); err != nil {
				t.Fatalf("lookup --json: %v: %q", err, got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ledger lookup did not find the message recorded a moment earlier: exit %d, %q\n%s", rc, got, out.String())
		}
	}
	if !rec.Found || rec.MessageID != "live.1@example.org" || rec.Sender != "alice@example.org" ||
		strings.Join(rec.Recipients, ",") != "bob@remote.test" || rec.QueueID != "4LIVE1" {
		t.Errorf("lookup through the service: %+v", rec)
	}
	// By queue id too, and the text form.
	got, rc := ledgerCLI(t, "lookup", "--data", data, "4LIVE1")
	if rc != 0 || !strings.Contains(got, "Message-ID: <live.1@example.org>") || !strings.Contains(got, "To:         bob@remote.test") {
		t.Errorf("lookup by queue id: exit %d\n%s", rc, got)
	}
	if got, rc := ledgerCLI(t, "lookup", "--data", data, "<never@example.org>"); rc != 1 || !strings.Contains(got, "not in the ledger") {
		t.Errorf("lookup of an unknown id: exit %d, %q; want 1 and not in the ledger", rc, got)
	}

	got, rc = ledgerCLI(t, "stats", "--data", data, "--json")
	var st httpapi.LedgerStats
	if err := json.Unmarshal([]byte(got), &st); rc != 0 || err != nil || st.Records != 1 || !strings.HasPrefix(st.Backend, "bbolt ") {
		t.Errorf("stats through the service: exit %d, %q (%v)", rc, got, err)
	}

	logFile := filepath.Join(dir, "mail.log")
	os.WriteFile(logFile, []byte(importLog(time.Now().Add(-time.Hour))), 0o644)
	got, rc = ledgerCLI(t, "import", "--data", data, "--domain", "example.org", "--json", logFile)
	var sum postfixlog.Summary
	if err := json.Unmarshal([]byte(got), &sum); rc != 0 || err != nil || sum.New != 2 || sum.Skipped != 1 || sum.Malformed != 1 {
		t.Errorf("import through the service: exit %d, %q (%v); want 2 new, 1 skipped, 1 malformed", rc, got, err)
	}
	if got, rc := ledgerCLI(t, "lookup", "--data", data, "out1@example.org"); rc != 0 || !strings.Contains(got, "alice@example.org") {
		t.Errorf("the imported message is not found: exit %d, %q", rc, got)
	}
	got, _ = ledgerCLI(t, "stats", "--data", data)
	if !strings.Contains(got, "records:   3") {
		t.Errorf("stats after the import:\n%s", got)
	}
	// The service's import is the command line's: a message past the cap
	// of recipients is capped, and the summary says so.
	got, rc = ledgerCLI(t, "import", "--data", data, "--json", hugeListLog(t, t.TempDir(), ledger.MaxRecipients+10))
	sum = postfixlog.Summary{}
	if err := json.Unmarshal([]byte(got), &sum); rc != 0 || err != nil || sum.New != 2 || sum.CappedMessages != 1 || sum.CappedRecipients != 10 {
		t.Errorf("import of a list through the service: exit %d, %q (%v); want 2 new, 1 message capped, 10 recipients past the cap", rc, got, err)
	}

	// Stopped, the service removes its address file and the commands
	// open the ledger themselves.
	stop()
	if _, err := os.Stat(filepath.Join(data, httpapi.AddrFileName)); !os.IsNotExist(err) {
		t.Errorf("the address file is left after the service stopped: %v", err)
	}
	if got, rc := ledgerCLI(t, "lookup", "--data", data, "4LIVE1"); rc != 0 || !strings.Contains(got, "live.1@example.org") {
		t.Errorf("lookup after the service stopped: exit %d, %q", rc, got)
	}
}

// A service that holds the ledger with its HTTP listener off: the commands
// say what to do rather than waiting for the lock and failing.
func TestLedgerCommandsSayWhatToDoWhenTheServiceHasNoAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	data := filepath.Join(t.TempDir(), "data")
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	// A file left by a service killed earlier (kill -9) is removed at start.
	os.MkdirAll(data, 0o750)
	httpapi.WriteAddrFile(data, httpapi.AddrFile{URL: "http://127.0.0.1:1", PID: 1})
	out, _ := startServeChild(t, addr, "--listen", "inet:"+addr, "--data", data, "--http-listen", "")
	// The milter socket listens before the stale file is removed: wait for
	// the service's start-up line.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), `"msg":"ndrmilter serving"`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(data, httpapi.AddrFileName)); !os.IsNotExist(err) {
		t.Errorf("a stale address file is left by a service without an API: %v", err)
	}
	var errOut string
	got, rc := captureStderr(t, func() int {
		out, rc := ledgerCLI(t, "stats", "--data", data)
		errOut = out
		return rc
	})
	if rc != exitLedger || !strings.Contains(got, "is locked by another process") || !strings.Contains(got, "http_listen") ||
		!strings.Contains(got, "systemctl stop ndrmilter") {
		t.Errorf("stats with the service's API off: exit %d, stdout %q, stderr %q", rc, errOut, got)
	}
}

// captureStderr runs f with os.Stderr sent to a file and returns what it wrote.
func captureStderr(t *testing.T, f func() int) (string, int) {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = tmp
	code := f()
	os.Stderr = old
	tmp.Close()
	b, _ := os.ReadFile(tmp.Name())
	return string(b), code
}
