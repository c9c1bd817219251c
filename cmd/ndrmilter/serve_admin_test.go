package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// serveStartError runs serve in this process until it fails to start, and
// returns its exit status and what it wrote.
func serveStartError(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- serveMain(args, &errOut) }()
	select {
	case rc := <-done:
		return rc, errOut.String()
	case <-time.After(20 * time.Second):
		t.Fatalf("serve %v did not fail to start: %s", args, errOut.String())
		return 0, ""
	}
}

// checkOneSentence fails unless out is one line of plain text: no JSON, no
// stack trace.
func checkOneSentence(t *testing.T, what, out string) {
	t.Helper()
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "ndrmilter serve: ") || strings.Contains(out, "{") ||
		strings.Contains(out, "goroutine") || strings.Contains(out, ".go:") {
		t.Errorf("%s: start-up error is not one sentence on one line:\n%s", what, out)
	}
}

func TestServeStartErrorsAreOneSentenceWithTheirExitStatus(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	rc, out := serveStartError(t, "--listen", "inet:"+busy.Addr().String(), "--data", t.TempDir(), "--metrics-listen", "")
	if rc != exitListen || !strings.Contains(out, "cannot listen on inet:"+busy.Addr().String()) {
		t.Errorf("milter port in use: exit %d, %q; want %d", rc, out, exitListen)
	}
	checkOneSentence(t, "milter port in use", out)

	port := freeLoopbackPort(t)
	rc, out = serveStartError(t, "--listen", fmt.Sprintf("inet:127.0.0.1:%d", port), "--data", t.TempDir(), "--metrics-listen", busy.Addr().String())
	if rc != exitListen || !strings.Contains(out, "cannot open the HTTP listener on "+busy.Addr().String()) {
		t.Errorf("metrics port in use: exit %d, %q; want %d", rc, out, exitListen)
	}
	checkOneSentence(t, "metrics port in use", out)
	// Everything opened was closed again: the milter port is free.
	if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		t.Errorf("the milter socket was left open after the failed start: %v", err)
	} else {
		ln.Close()
	}

	data := t.TempDir()
	held, err := ledger.Open("", data, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	rc, out = serveStartError(t, "--listen", fmt.Sprintf("inet:127.0.0.1:%d", freeLoopbackPort(t)), "--data", data, "--metrics-listen", "")
	if rc != exitLedger || !strings.Contains(out, "cannot open the ledger") || !strings.Contains(out, "locked") {
		t.Errorf("locked ledger: exit %d, %q; want %d", rc, out, exitLedger)
	}
	checkOneSentence(t, "locked ledger", out)

	conf := filepath.Join(t.TempDir(), "ndrmilter.yaml")
	os.WriteFile(conf, []byte("domains: [example.org]\ntrusted_networks: [10.0.0.300/8]\n"), 0o600)
	rc, out = serveStartError(t, "--config", conf)
	if rc != exitConfig || out != "ndrmilter serve: configuration rejected: "+conf+`:2: trusted_networks: "10.0.0.300/8" is not a network: expected a CIDR such as 192.0.2.0/24 or an address`+"\n" {
		t.Errorf("bad configuration: exit %d, %q; want %d", rc, out, exitConfig)
	}
	rc, out = serveStartError(t, "--config", conf, "--trusted-networks", "10.0.0.0/8", "--log-level", "loud")
	if rc != exitConfig || out != `ndrmilter serve: configuration rejected: flag --log-level: log_level "loud": expected debug, info, warn or error`+"\n" {
		t.Errorf("bad flag value: exit %d, %q; want %d and the flag named", rc, out, exitConfig)
	}
}

// journalFile makes a file the journal stream, as systemd does for a
// service's standard error (JOURNAL_STREAM=DEV:INODE).
func journalFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino)))
	return f
}

func TestLogLinesCarryJournalPriorities(t *testing.T) {
	var buf bytes.Buffer
	level := zap.NewAtomicLevelAt(zap.DebugLevel)
	log := newLogger(&buf, level, true)
	log.Debug("d")
	log.Info("i")
	log.Warn("w")
	log.Error("e", zap.Error(io.ErrUnexpectedEOF))
	log.Sync()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{`<7>{"level":"debug"`, `<6>{"level":"info"`, `<4>{"level":"warn"`, `<3>{"level":"error"`}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || strings.Contains(lines[i], "stacktrace") {
			t.Errorf("line %d = %s; want it to start with %s, without a stack trace", i+1, lines[i], w)
		}
	}
	// Without the journal: plain JSON lines.
	buf.Reset()
	newLogger(&buf, level, false).Error("e")
	if !strings.HasPrefix(buf.String(), `{"level":"error"`) {
		t.Errorf("without the journal: %s", buf.String())
	}
}

func TestJournalIsDetectedFromJournalStream(t *testing.T) {
	f := journalFile(t)
	if !stderrIsJournal(f) {
		t.Fatal("JOURNAL_STREAM names the file, but it is not taken for the journal")
	}
	other, _ := os.Create(filepath.Join(t.TempDir(), "other"))
	defer other.Close()
	if stderrIsJournal(other) {
		t.Fatal("a file that JOURNAL_STREAM does not name is taken for the journal")
	}
	t.Setenv("JOURNAL_STREAM", "")
	if stderrIsJournal(f) {
		t.Fatal("no JOURNAL_STREAM, yet the journal")
	}

	// A start-up error on the journal is at priority 3 (journalctl -p err).
	f = journalFile(t)
	conf := filepath.Join(t.TempDir(), "ndrmilter.yaml")
	os.WriteFile(conf, []byte("backscatter_action: bounce\n"), 0o600)
	if rc := serveMain([]string{"--config", conf}, f); rc != exitConfig {
		t.Fatalf("exit %d", rc)
	}
	got, _ := os.ReadFile(f.Name())
	if !strings.HasPrefix(string(got), "<3>ndrmilter serve: configuration rejected: "+conf+":1: ") {
		t.Fatalf("start-up error on the journal: %q", got)
	}
}

// metricSample reads one sample from a Prometheus text exposition.
func metricSample(t *testing.T, body, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics lacks %s", name)
	}
	return m[1]
}

func TestReloadGaugesAndFlagLog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	maddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	cfgPath := filepath.Join(dir, "ndrmilter.yaml")
	os.WriteFile(cfgPath, []byte("domains: [example.org]\nbackscatter_action: tag\nlisten: inet:127.0.0.1:1\n"), 0o600)
	args := []string{"--config", cfgPath, "--listen", "inet:" + addr, "--data", filepath.Join(dir, "data"), "--metrics-listen", maddr}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), serveChildEnv+"="+strings.Join(args, "\x1f"))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	metrics := func() string {
		resp, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var body string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if body = metrics(); body != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
	if v := metricSample(t, body, "ndrmilter_config_last_reload_success"); v != "1" {
		t.Fatalf("after start: last_reload_success = %s, want 1", v)
	}
	started := metricSample(t, body, "ndrmilter_config_last_reload_success_timestamp_seconds")
	log := out.String()
	if !strings.Contains(log, `"msg":"settings from command-line flags"`) || !strings.Contains(log, `"--listen=inet:`+addr+`"`) {
		t.Errorf("the values from flags are not logged:\n%s", log)
	}
	if !strings.Contains(log, `"msg":"a command-line flag overrides the configuration file","flag":"--listen","key":"listen","file":"`+cfgPath+`:3"`) {
		t.Errorf("no warning that --listen overrides the file's listen:\n%s", log)
	}

	// A rejected reload: the gauge drops to 0, the time of the last success stays.
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(cfgPath, []byte("domains: [example.org]\nbackscatter_action: bounce\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	waitMetric := func(want string) string {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			body := metrics()
			if body != "" && metricSample(t, body, "ndrmilter_config_last_reload_success") == want {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatalf("last_reload_success never became %s:\n%s", want, out.String())
			}
		}
	}
	body = waitMetric("0")
	if ts := metricSample(t, body, "ndrmilter_config_last_reload_success_timestamp_seconds"); ts != started {
		t.Errorf("a failed reload moved the success time from %s to %s", started, ts)
	}
	if !strings.Contains(out.String(), cfgPath+`:2: backscatter action \"bounce\"`) {
		t.Errorf("the rejected reload does not log FILE:LINE:\n%s", out.String())
	}
	// Fixed: back to 1, with a later time.
	os.WriteFile(cfgPath, []byte("domains: [example.org]\nbackscatter_action: reject\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	body = waitMetric("1")
	ts := metricSample(t, body, "ndrmilter_config_last_reload_success_timestamp_seconds")
	if after, before := parseFloat(t, ts), parseFloat(t, started); after <= before {
		t.Errorf("a successful reload left the success time at %s (start: %s)", ts, started)
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return f
}

// The unit passes only --config (the file is the one source of settings)
// and checks the file before each reload, so that a bad one fails
// "systemctl reload" visibly.
func TestSystemdUnitUsesTheFileAndChecksBeforeReload(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ndrmilter.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(string(raw), "\\\n", " ")
	var start string
	var reloads []string
	for _, line := range strings.Split(unit, "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			start = strings.Join(strings.Fields(v), " ")
		}
		if v, ok := strings.CutPrefix(line, "ExecReload="); ok {
			reloads = append(reloads, strings.Join(strings.Fields(v), " "))
		}
	}
	if start != "/usr/sbin/ndrmilter serve --config "+defaultConfigPath {
		t.Errorf("ExecStart=%s; want only --config %s", start, defaultConfigPath)
	}
	if len(reloads) != 2 || reloads[0] != "/usr/sbin/ndrmilter config check --config "+defaultConfigPath ||
		reloads[1] != "/bin/kill -HUP $MAINPID" {
		t.Errorf("ExecReload=%q; want config check, then SIGHUP", reloads)
	}
}
