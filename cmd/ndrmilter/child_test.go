package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// child is "ndrmilter serve" or "ndrmilter filter" running as a process of
// its own: this test binary, run as TestServeChild or TestFilterChild, so
// that limits, signals and kill -9 are real.
type child struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     *syncBuffer
	done    chan struct{}
	exitErr error
}

// childOptions say how to start a child.
type childOptions struct {
	filter  bool     // ndrmilter filter instead of serve
	shell   string   // a sh command run before the binary (e.g. "ulimit -n 128"), "" for none
	unshare bool     // run the shell in a mount namespace of its own (unshare -m), as root
	env     []string // more environment
	wait    string   // HOST:PORT to wait for; "" for none
}

// startChild starts the child with args and waits until o.wait accepts
// connections; it is killed at the end of the test.
func startChild(t *testing.T, o childOptions, args ...string) *child {
	t.Helper()
	run, env := "^TestServeChild$", serveChildEnv
	if o.filter {
		run, env = "^TestFilterChild$", filterChildEnv
	}
	argv := []string{os.Args[0], "-test.run=" + run, "-test.count=1"}
	var cmd *exec.Cmd
	switch {
	case o.unshare:
		cmd = exec.Command("unshare", append([]string{"-m", "/bin/sh", "-c", o.shell + ` && exec "$0" "$@"`}, argv...)...)
	case o.shell != "":
		cmd = exec.Command("/bin/sh", append([]string{"-c", o.shell + ` && exec "$0" "$@"`}, argv...)...)
	default:
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Env = append(append(os.Environ(), env+"="+strings.Join(args, "\x1f")), o.env...)
	c := &child{t: t, cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.out, c.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.exitErr = cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		c.kill()
		if t.Failed() {
			t.Logf("--- child output ---\n%s", lastLines(c.out.String(), 40))
		}
	})
	if o.wait != "" {
		deadline := time.Now().Add(20 * time.Second)
		for {
			if !c.running() {
				t.Fatalf("the child exited at start: %v\n%s", c.exitErr, c.out.String())
			}
			if conn, err := net.DialTimeout("tcp", o.wait, 200*time.Millisecond); err == nil {
				conn.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the child did not listen on %s:\n%s", o.wait, c.out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return c
}

// running reports whether the child has not exited.
func (c *child) running() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// kill stops the child with SIGKILL and waits for it.
func (c *child) kill() {
	if c.running() {
		c.cmd.Process.Kill()
	}
	<-c.done
}

// stop sends SIGTERM and waits at most 15 s for the child to exit.
func (c *child) stop() error {
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return c.exitErr
	case <-time.After(15 * time.Second):
		c.t.Fatalf("the child did not exit after SIGTERM:\n%s", lastLines(c.out.String(), 30))
		return nil
	}
}

// status returns /proc/PID/status field name (such as VmHWM), in kB.
func (c *child) status(name string) int64 {
	c.t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		c.t.Fatalf("/proc status of the child: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			f := strings.Fields(v)
			n, _ := strconv.ParseInt(f[0], 10, 64)
			return n
		}
	}
	c.t.Fatalf("no %s in /proc/%d/status", name, c.cmd.Process.Pid)
	return 0
}

// httpGet returns the status and body of http://addr/path.
func httpGet(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// scrapeMetric returns the value of the sample of /metrics whose line
// starts with series (name and labels), or -1.
func scrapeMetric(t *testing.T, addr, series string) float64 {
	t.Helper()
	_, body := httpGet(t, addr, "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return -1
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
