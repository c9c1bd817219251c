package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/decide"
)

func TestParseListen(t *testing.T) {
	for _, tc := range []struct{ in, network, addr string }{
		{"inet:127.0.0.1:9890", "tcp", "127.0.0.1:9890"},
		{"inet:localhost:10025", "tcp", "localhost:10025"},
		{"inet:[::1]:9890", "tcp", "[::1]:9890"},
		{"inet6:::1:9890", "tcp", "[::1]:9890"},
		{"inet::9890", "tcp", "127.0.0.1:9890"},
		{"unix:/run/ndrmilter/milter.sock", "unix", "/run/ndrmilter/milter.sock"},
		{"local:/var/spool/postfix/ndr.sock", "unix", "/var/spool/postfix/ndr.sock"},
	} {
		n, a, err := parseListen(tc.in)
		if err != nil || n != tc.network || a != tc.addr {
			t.Errorf("parseListen(%q) = %q, %q, %v; want %q, %q", tc.in, n, a, err, tc.network, tc.addr)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:9890", "inet:127.0.0.1", "inet:host:port", "tcp:1.2.3.4:5", "unix:"} {
		if _, _, err := parseListen(bad); err == nil {
			t.Errorf("parseListen(%q) accepted", bad)
		}
	}
}

func parseServeArgs(t *testing.T, args ...string) (serveConfig, error) {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flagged := defaultServeConfig()
	flagged.Domains, flagged.TrustedNetworks, flagged.Rules = nil, nil, nil
	var path string
	serveFlags(fs, &flagged, &path)
	if err := fs.Parse(args); err != nil {
		return serveConfig{}, err
	}
	return resolveConfig(fs, flagged, path)
}

func TestConfigPrecedence(t *testing.T) {
	// No file: defaults plus flags.
	c, err := parseServeArgs(t, "--listen", "inet:127.0.0.1:9999", "--data", "/tmp/x", "--domain", "example.org",
		"--domain", "example.net,example.com", "--backscatter-action", "reject", "--trusted-networks", "10.0.0.0/8,192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "inet:127.0.0.1:9999" || c.Data != "/tmp/x" || strings.Join(c.Domains, " ") != "example.org example.net example.com" ||
		c.BackscatterAction != "reject" || strings.Join(c.TrustedNetworks, " ") != "10.0.0.0/8 192.0.2.1" || c.HTTPListen != "127.0.0.1:9891" {
		t.Fatalf("config from flags: %+v", c)
	}
	mc, err := c.milterConfig()
	if err != nil || mc.BackscatterAction != decide.ActionReject || len(mc.TrustedNetworks) != 2 || mc.TrustedNetworks[1].String() != "192.0.2.1/32" {
		t.Fatalf("milter config: %+v %v", mc, err)
	}

	// A file, and flags over it.
	path := filepath.Join(t.TempDir(), "ndrmilter.yaml")
	os.WriteFile(path, []byte("listen: unix:/tmp/ndr.sock\ndomains: [a.example, b.example]\nbackscatter_action: quarantine\nretention: 7d\nsubject_tag: true\nlookup_timeout: 50ms\n"), 0o600)
	c, err = parseServeArgs(t, "--config", path, "--backscatter-action", "discard")
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "unix:/tmp/ndr.sock" || len(c.Domains) != 2 || c.BackscatterAction != "discard" ||
		time.Duration(c.Retention) != 7*24*time.Hour || !c.SubjectTag || time.Duration(c.LookupTimeout) != 50*time.Millisecond ||
		strings.Join(c.TrustedNetworks, " ") != "127.0.0.0/8 ::1/128" {
		t.Fatalf("config from file and flags: %+v", c)
	}

	// The shipped example must load as it is.
	if _, err := parseServeArgs(t, "--config", "../../deploy/ndrmilter.yaml"); err != nil {
		t.Fatalf("deploy/ndrmilter.yaml: %v", err)
	}

	for _, bad := range [][]string{
		{"--backscatter-action", "bounce"},
		{"--trusted-networks", "not-a-net"},
		{"--retention", "forever"},
		{"--listen", "tcp:1.2.3.4:5"},
	} {
		if _, err := parseServeArgs(t, bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	os.WriteFile(path, []byte("listen: inet:127.0.0.1:1\nbackscatter_acton: reject\n"), 0o600)
	if _, err := parseServeArgs(t, "--config", path); err == nil || !strings.Contains(err.Error(), "backscatter_acton") {
		t.Fatalf("unknown key in file: err = %v, want it named", err)
	}
}

// The serve test runs this test binary as "ndrmilter serve" in a child
// process, so that signals are real.
const serveChildEnv = "NDR_SERVE_CHILD_ARGS"

func TestServeChild(t *testing.T) {
	args := os.Getenv(serveChildEnv)
	if args == "" {
		t.Skip("helper process for TestServeSignals")
	}
	os.Exit(serveMain(strings.Split(args, "\x1f"), os.Stderr))
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const testBounce = "From: MAILER-DAEMON@mx.remote.example\r\nTo: alice@example.org\r\nSubject: Undelivered Mail\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\n" +
	"Your message could not be delivered.\r\n--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.remote.example\r\n\r\n" +
	"Final-Recipient: rfc822; nobody@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 user unknown\r\n\r\n" +
	"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: alice@example.org\r\nMessage-ID: <never.sent.1@example.org>\r\n\r\n--B--\r\n"

// sendBounce runs testBounce through the milter at addr as Postfix would.
func sendBounce(t *testing.T, addr string) ([]gomilter.ModifyAction, *gomilter.Action) {
	t.Helper()
	c := gomilter.NewClientWithOptions("tcp", addr, gomilter.ClientOptions{ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second,
		ActionMask: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody | gomilter.OptQuarantine})
	s, err := c.Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Macros(gomilter.CodeConn, "{client_addr}", "203.0.113.9")
	if _, err := s.Conn("mx.remote.example", gomilter.FamilyInet, 25, "203.0.113.9"); err != nil {
		t.Fatal(err)
	}
	s.Macros(gomilter.CodeMail, "{client_addr}", "203.0.113.9")
	if _, err := s.Mail("", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rcpt("alice@example.org", nil); err != nil {
		t.Fatal(err)
	}
	head, body, _ := strings.Cut(testBounce, "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n") {
		k, v, _ := strings.Cut(line, ": ")
		if _, err := s.HeaderField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.HeaderEnd(); err != nil {
		t.Fatal(err)
	}
	s.Macros(gomilter.CodeEOB, "i", "4SERVE1")
	mods, act, err := s.BodyReadFrom(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return mods, act
}

func TestServeSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	dir := t.TempDir()
	port, mport := freeLoopbackPort(t), freeLoopbackPort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	maddr := fmt.Sprintf("127.0.0.1:%d", mport)
	cfgPath := filepath.Join(dir, "ndrmilter.yaml")
	os.WriteFile(cfgPath, []byte("backscatter_action: tag\n"), 0o600)
	args := []string{"--config", cfgPath, "--listen", "inet:" + addr, "--data", filepath.Join(dir, "data"),
		"--domain", "example.org", "--metrics-listen", maddr, "--log-level", "info"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), serveChildEnv+"="+strings.Join(args, "\x1f"))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	done := make(chan struct{})
	go func() { exited <- cmd.Wait(); close(done) }()
	defer func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	mods, act := sendBounce(t, addr)
	if act.Code != gomilter.ActContinue || !hasHeader(mods, "X-NDR-Backscatter", "yes; evidence=message-id") {
		t.Fatalf("bounce with action tag: %c %+v\n%s", act.Code, mods, out.String())
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + maddr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz = %d %q", code, body)
	}
	_, metrics := get("/metrics")
	for _, want := range []string{`ndrmilter_bounces_total{kind="bounce",owner="`, `ndrmilter_backscatter_verdicts_total{evidence="message-id",verdict="yes"} 1`,
		`ndrmilter_backscatter_actions_total{action="tag"} 1`, "ndrmilter_sessions_in_flight", `ndrmilter_callback_latency_seconds_bucket{stage="eom"`,
		`ndrmilter_ledger_operations_total{op="lookup",result="notfound"}`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// SIGHUP: the file now says reject; the flags did not set the action, so the file wins.
	os.WriteFile(cfgPath, []byte("backscatter_action: reject\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	deadline = time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), `"reloaded"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no reload logged:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, act := sendBounce(t, addr); act.Code != gomilter.ActReplyCode || act.SMTPCode != 550 {
		t.Fatalf("after SIGHUP to reject: action %+v", act)
	}

	// SIGTERM: drains and exits 0.
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not exit after SIGTERM:\n%s", out.String())
	}
	log := out.String()
	for _, want := range []string{`"msg":"bounce"`, `"verdict":"yes"`, `"action":"tag"`, `"queue_id":"4SERVE1"`, `"ms":`, `"msg":"ndrmilter stopped"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
}

func hasHeader(mods []gomilter.ModifyAction, name, value string) bool {
	for _, m := range mods {
		if m.Code == gomilter.ActAddHeader && m.HeaderName == name && m.HeaderValue == value {
			return true
		}
	}
	return false
}

func TestListenUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ndrmilter.sock")
	ln, err := listen("unix", path, "0640")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o640 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v mode %v, want a socket with 0640", err, fi.Mode())
	}
	// In use: refused.
	if _, err := listen("unix", path, "0660"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second listen on a live socket: %v", err)
	}
	// Left over from a dead process: replaced. (Close would remove the
	// file; unlink-on-close is turned off to leave it behind.)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	ln2, err := listen("unix", path, "0660")
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	ln2.Close()
	// A regular file is never removed.
	file := filepath.Join(t.TempDir(), "not-a-socket")
	os.WriteFile(file, []byte("x"), 0o600)
	if _, err := listen("unix", file, "0660"); err == nil {
		t.Fatal("listen over a regular file succeeded")
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("the regular file was removed")
	}
	if code := serveMain([]string{"--help"}, io.Discard); code != 0 {
		t.Fatalf("serve --help exits %d, want 0", code)
	}
}
