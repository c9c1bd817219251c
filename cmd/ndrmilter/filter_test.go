package main

import (
	"bytes"
	"errors"
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

	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/filter"
)

func parseFilterArgs(t *testing.T, args ...string) (filterConfig, error) {
	t.Helper()
	fs := flag.NewFlagSet("filter", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flagged := defaultFilterConfig()
	flagged.Domains, flagged.TrustedNetworks, flagged.Rules = nil, nil, nil
	var path string
	filterFlags(fs, &flagged, &path)
	if err := fs.Parse(args); err != nil {
		return filterConfig{}, err
	}
	return resolveFilterConfig(fs, flagged, path)
}

func TestFilterConfig(t *testing.T) {
	c, err := parseFilterArgs(t, "--listen", "inet:127.0.0.1:9893", "--next", "[::1]:9894", "--direction", "Outbound",
		"--backscatter-action", "discard", "--domain", "example.org", "--next-timeout", "30s")
	if err != nil {
		t.Fatal(err)
	}
	fc, err := c.filterConfig()
	if err != nil || fc.Next != "[::1]:9894" || fc.Direction != filter.DirectionOutbound || fc.BackscatterAction != decide.ActionDiscard ||
		fc.NextTimeout != 30*time.Second || c.HTTPListen != "127.0.0.1:9892" {
		t.Fatalf("filter config from flags: %+v %v", fc, err)
	}
	// The filter's own keys in a file, with serve's.
	path := filepath.Join(t.TempDir(), "filter.yaml")
	os.WriteFile(path, []byte("next: 127.0.0.1:20026\ndirection: inbound\nmax_connections: 7\ndomains: [example.org]\n"), 0o600)
	c, err = parseFilterArgs(t, "--config", path)
	if err != nil || c.Next != "127.0.0.1:20026" || c.Direction != "inbound" || c.MaxConnections != 7 || c.Listen != "127.0.0.1:9893" {
		t.Fatalf("filter config from a file: %+v %v", c, err)
	}
	for _, bad := range [][]string{
		{"--backscatter-action", "quarantine"},
		{"--direction", "sideways"},
		{"--next", "localhost"},
		{"--listen", "unix:/tmp/filter.sock"},
	} {
		if _, err := parseFilterArgs(t, bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

const filterChildEnv = "NDR_FILTER_CHILD_ARGS"

func TestFilterChild(t *testing.T) {
	args := os.Getenv(filterChildEnv)
	if args == "" {
		t.Skip("helper process for TestFilterSignals")
	}
	os.Exit(filterMain(strings.Split(args, "\x1f"), os.Stderr))
}

// testSink is a go-smtp server that keeps the messages it takes.
type testSink struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (k *testSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &testSinkSession{k: k}, nil }

type testSinkSession struct{ k *testSink }

func (s *testSinkSession) Reset()                               {}
func (s *testSinkSession) Logout() error                        { return nil }
func (s *testSinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *testSinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *testSinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	s.k.mu.Lock()
	s.k.msgs = append(s.k.msgs, b)
	s.k.mu.Unlock()
	return err
}

// "ndrmilter filter" in a child process: a bounce through it is annotated,
// /healthz and /metrics answer, SIGHUP reloads the file (reject), and
// SIGTERM drains and exits 0.
func TestFilterSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter filter in a child process")
	}
	sink := &testSink{}
	ks := smtp.NewServer(sink)
	kln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go ks.Serve(kln)
	defer ks.Close()

	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	maddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	cfgPath := filepath.Join(dir, "filter.yaml")
	os.WriteFile(cfgPath, []byte("backscatter_action: tag\ndirection: inbound\n"), 0o600)
	args := []string{"--config", cfgPath, "--listen", addr, "--next", kln.Addr().String(), "--data", filepath.Join(dir, "data"),
		"--domain", "example.org", "--metrics-listen", maddr, "--hostname", "filter.example.org"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFilterChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), filterChildEnv+"="+strings.Join(args, "\x1f"))
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
	// Wait for the child's own word that it listens: the port was free when
	// picked, but a test running in parallel may have taken it since, and a
	// connection to it would reach someone else's server.
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(out.String(), `"msg":"ndrmilter filter serving"`) {
		select {
		case <-done:
			t.Fatalf("filter exited at start:\n%s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("filter did not listen:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	send := func() error {
		c, err := smtp.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.SendMail("", []string{"alice@example.org"}, strings.NewReader(testBounce))
	}
	if err := send(); err != nil {
		t.Fatalf("bounce through the filter: %v\n%s", err, out.String())
	}
	sink.mu.Lock()
	n := len(sink.msgs)
	var got []byte
	if n > 0 {
		got = sink.msgs[0]
	}
	sink.mu.Unlock()
	if n != 1 {
		t.Fatalf("the sink got %d messages, want 1:\n%s", n, out.String())
	}
	if !bytes.Contains(got, []byte("\r\nX-NDR-Backscatter: yes; evidence=message-id\r\n")) {
		t.Fatalf("bounce delivered without X-NDR-Backscatter: yes:\n%s", got)
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
	for _, want := range []string{`ndrmilter_backscatter_verdicts_total{evidence="message-id",verdict="yes"} 1`,
		`ndrmilter_callback_latency_seconds_bucket{stage="data"`, "ndrmilter_sessions_in_flight",
		`ndrmilter_messages_total{direction="bounce"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	os.WriteFile(cfgPath, []byte("backscatter_action: reject\ndirection: inbound\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	deadline = time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), `"reloaded"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no reload logged:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var se *smtp.SMTPError
	if err := send(); !errors.As(err, &se) || se.Code != 550 {
		t.Fatalf("after SIGHUP to reject: %v, want 550", err)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("filter did not exit after SIGTERM:\n%s", out.String())
	}
	for _, want := range []string{`"msg":"ndrmilter filter serving"`, `"msg":"bounce"`, `"verdict":"yes"`, `"msg":"ndrmilter filter stopped"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, out.String())
		}
	}
}
