package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"
)

// With its file descriptors used up (ulimit -n 128 and 126 idle
// connections), serve keeps running: accept errors are retried with
// backoff and counted; a connection that never begins the milter
// negotiation is closed after the handshake timeout, which frees the
// descriptors; and then a bounce goes through as before.
func TestServeSurvivesRunningOutOfFileDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	maddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	c := startChild(t, childOptions{shell: "ulimit -n 128", wait: addr},
		"--listen", "inet:"+addr, "--data", t.TempDir(), "--domain", "example.org", "--metrics-listen", maddr)
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", c.cmd.Process.Pid))
	if err != nil || !strings.Contains(string(limits), "Max open files            128") {
		t.Fatalf("the child's limits (want 128 open files):\n%s %v", limits, err)
	}
	var idle []net.Conn
	defer func() {
		for _, ic := range idle {
			ic.Close()
		}
	}()
	for range 126 {
		ic, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", len(idle)+1, err)
		}
		idle = append(idle, ic)
	}
	time.Sleep(time.Second)
	if !c.running() {
		t.Fatalf("serve exited with its file descriptors used up: %v\n%s", c.exitErr, lastLines(c.out.String(), 20))
	}
	// Each idle connection is closed by serve: the first ones after the
	// handshake timeout, the rest once accepted with the descriptors freed.
	var wg sync.WaitGroup
	closed := make([]bool, len(idle))
	for i, ic := range idle {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ic.SetReadDeadline(time.Now().Add(40 * time.Second))
			_, err := ic.Read(make([]byte, 1))
			closed[i] = err != nil && !isTimeout(err)
		}()
	}
	wg.Wait()
	for i, ok := range closed {
		if !ok {
			t.Fatalf("idle connection %d was not closed by serve within 40 s", i+1)
		}
	}
	if !c.running() {
		t.Fatalf("serve exited: %v\n%s", c.exitErr, lastLines(c.out.String(), 20))
	}
	mods, act := sendBounce(t, addr)
	if act.Code != gomilter.ActContinue || !hasHeader(mods, "X-NDR-Backscatter", "yes; evidence=message-id") {
		t.Fatalf("a bounce after the flood: %c %+v", act.Code, mods)
	}
	if n := scrapeMetric(t, maddr, "ndrmilter_accept_errors_total"); n < 1 {
		t.Errorf("ndrmilter_accept_errors_total = %v after running out of descriptors, want > 0", n)
	}
	if !strings.Contains(c.out.String(), "cannot accept a connection: retrying with backoff") {
		t.Errorf("the accept errors were not logged")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// A milter socket, a filter listener or a metrics listener beyond the
// loopback is warned about at start; a client outside listen_allow is
// closed at once, counted and logged; on loopback nothing is warned.
func TestListenersBeyondLoopbackAreWarnedAndAllowListed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve and filter in child processes")
	}
	port, mport := freeLoopbackPort(t), freeLoopbackPort(t)
	addr, maddr := fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", mport)
	c := startChild(t, childOptions{wait: addr}, "--listen", fmt.Sprintf("inet:0.0.0.0:%d", port), "--data", t.TempDir(),
		"--domain", "example.org", "--metrics-listen", fmt.Sprintf("0.0.0.0:%d", mport), "--listen-allow", "192.0.2.0/24")
	refused(t, addr)
	// Two refused: startChild's probe of the port, and this one.
	if n := scrapeMetric(t, maddr, `ndrmilter_connections_refused_total{reason="not_allowed"}`); n != 2 {
		t.Errorf(`ndrmilter_connections_refused_total{reason="not_allowed"} = %v, want 2`, n)
	}
	c.stop()
	log := c.out.String()
	for _, want := range []string{`"listener":"milter"`, `"listener":"metrics"`, `"listen_allow":"192.0.2.0/24"`,
		"connection refused: the client is not in listen_allow"} {
		if !strings.Contains(log, want) {
			t.Errorf("serve's log lacks %s:\n%s", want, log)
		}
	}
	if strings.Count(log, "listening beyond the loopback") != 2 {
		t.Errorf("want two warnings (milter, metrics):\n%s", log)
	}

	// The filter: the same.
	fport := freeLoopbackPort(t)
	faddr := fmt.Sprintf("127.0.0.1:%d", fport)
	f := startChild(t, childOptions{filter: true, wait: faddr}, "--listen", fmt.Sprintf("0.0.0.0:%d", fport), "--next", "127.0.0.1:1",
		"--data", t.TempDir(), "--domain", "example.org", "--metrics-listen", "", "--listen-allow", "192.0.2.0/24")
	refused(t, faddr)
	f.stop()
	if log := f.out.String(); !strings.Contains(log, `"listener":"filter"`) || !strings.Contains(log, "not in listen_allow") {
		t.Errorf("the filter's log lacks the warning or the refusal:\n%s", log)
	}

	// On loopback: no warning.
	addr = fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	q := startChild(t, childOptions{wait: addr}, "--listen", "inet:"+addr, "--data", filepath.Join(t.TempDir(), "d"),
		"--domain", "example.org", "--metrics-listen", fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t)))
	q.stop()
	if log := q.out.String(); strings.Contains(log, "beyond the loopback") {
		t.Errorf("a warning on loopback:\n%s", log)
	}
}

// refused fails the test unless a connection to addr is closed by the
// server before anything is said on it.
func refused(t *testing.T, addr string) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := nc.Read(make([]byte, 512)); err == nil || isTimeout(err) {
		t.Fatalf("a client outside listen_allow: read %d bytes, %v; want the connection closed", n, err)
	}
}
