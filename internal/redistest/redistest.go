// Package redistest starts private redis-server processes for tests: one
// standalone server or a three-master Redis Cluster, on free loopback ports,
// with their files in a temporary directory, stopped when the test ends.
// It drives the real binaries (redis-server, redis-cli from Debian's
// redis-server and redis-tools packages; "make deps-test" installs them).
package redistest

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/freeport"
)

// Server is one redis-server process owned by a test.
type Server struct {
	Port int    // TCP port on 127.0.0.1
	Dir  string // working directory (logs, cluster config)

	t     testing.TB
	extra []string
	tls   *TLSFiles // serve TLS only (rediss://) when set
	conf  string    // configuration file, first argument (Sentinel)

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Binary returns the path of the Redis program name (redis-server,
// redis-cli), or fails the test saying what to install.
func Binary(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("redistest: %s not found on PATH (%v): run \"make deps-test\" as root (or apt-get install redis-server redis-tools)", name, err)
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago,
// outside the kernel's ephemeral range (see package freeport).
func FreePort(t testing.TB) int {
	t.Helper()
	return freeport.Port(t)
}

// Start starts a standalone redis-server with no persistence; extra
// arguments are passed to redis-server. It fails the test if the server does
// not answer PING within 10 s.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	s := &Server{Dir: t.TempDir(), t: t, extra: extra}
	var err error
	for range 5 { // another process may take the port between pick and bind
		s.Port = FreePort(t)
		if err = s.start(); err == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", err)
	return nil
}

// TLSFiles are the PEM files of a TLS server.
type TLSFiles struct {
	Cert, Key, CA string
}

// StartTLS starts a standalone redis-server that speaks only TLS on its port
// (no client certificates asked), with the certificate and key in files.
func StartTLS(t testing.TB, files TLSFiles, extra ...string) *Server {
	t.Helper()
	s := &Server{Dir: t.TempDir(), t: t, extra: extra, tls: &files}
	var err error
	for range 5 {
		s.Port = FreePort(t)
		if err = s.start(); err == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server with TLS: %v", err)
	return nil
}

// Addr is HOST:PORT.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// URL is the ledger URL of database 0 on this server (rediss:// for TLS).
func (s *Server) URL() string {
	if s.tls != nil {
		return "rediss://" + s.Addr() + "/0"
	}
	return "redis://" + s.Addr() + "/0"
}

func (s *Server) start() error {
	port := []string{"--port", strconv.Itoa(s.Port)}
	if s.tls != nil {
		port = []string{"--port", "0", "--tls-port", strconv.Itoa(s.Port),
			"--tls-cert-file", s.tls.Cert, "--tls-key-file", s.tls.Key,
			"--tls-ca-cert-file", s.tls.CA, "--tls-auth-clients", "no"}
	}
	args := append(port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.Dir,
		"--logfile", filepath.Join(s.Dir, "redis.log"), "--daemonize", "no",
		"--protected-mode", "yes")
	args = append(args, s.extra...)
	if s.conf != "" {
		args = append([]string{s.conf}, args...)
	}
	cmd := exec.Command(Binary(s.t, "redis-server"), args...)
	cmd.Dir = s.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()

	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("redis-server on port %d exited at start: %s", s.Port, s.logTail())
		default:
		}
		if pong(s.Addr(), s.tls != nil) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("redis-server on port %d did not answer PING within 10 s: %s", s.Port, s.logTail())
}

// Stop kills the server (SIGKILL, as a crash would) and waits for it to exit.
// It may be called more than once.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

// Restart starts the server again on the same port after Stop.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restarting redis-server: %v", err)
	}
}

// Cmd runs redis-cli against this server and returns its trimmed output.
func (s *Server) Cmd(args ...string) (string, error) {
	a := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(s.Port)}
	if s.tls != nil {
		a = append(a, "--tls", "--cacert", s.tls.CA)
	}
	a = append(a, args...)
	out, err := exec.Command(Binary(s.t, "redis-cli"), a...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (s *Server) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], " | ")
}

// pong sends PING in RESP and expects +PONG. With useTLS it speaks TLS
// without checking the certificate: it only asks whether the server is up.
func pong(addr string, useTLS bool) error {
	d := &net.Dialer{Timeout: 200 * time.Millisecond}
	var c net.Conn
	var err error
	if useTLS {
		c, err = tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	} else {
		c, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// StartSentinel starts one Redis Sentinel (redis-server --sentinel) that
// watches master under the name masterName, with a quorum of 1. It fails the
// test unless the sentinel knows the master within 10 s.
func StartSentinel(t testing.TB, master *Server, masterName string) *Server {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 1\nsentinel down-after-milliseconds %s 2000\n", masterName, master.Port, masterName)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Server{Dir: dir, t: t, conf: conf, extra: []string{"--sentinel"}}
	var err error
	for range 5 {
		s.Port = FreePort(t)
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: starting redis-server --sentinel: %v", err)
	}
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := s.Cmd("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)
		if err == nil && strings.Contains(out, strconv.Itoa(master.Port)) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: sentinel does not know master %s after 10 s: %v %s", masterName, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Cluster is a Redis Cluster of masters without replicas.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts n (at least 3) redis-server processes with
// --cluster-enabled yes, joins them with redis-cli --cluster create, and
// waits until every node reports cluster_state:ok. It fails the test with
// the reason if any step fails.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	if n < 3 {
		t.Fatalf("redistest: a Redis Cluster needs at least 3 masters, asked for %d", n)
	}
	c := &Cluster{}
	var addrs []string
	for range n {
		dir := t.TempDir()
		// The cluster bus needs a second port; Redis 7 takes it from
		// --cluster-port instead of PORT+10000.
		s := Start(t, "--cluster-enabled", "yes",
			"--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-port", strconv.Itoa(FreePort(t)),
			"--cluster-node-timeout", "2000")
		c.Nodes = append(c.Nodes, s)
		addrs = append(addrs, s.Addr())
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.Command(Binary(t, "redis-cli"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redistest: redis-cli --cluster create %s: %v\n%s", strings.Join(addrs, " "), err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, s := range c.Nodes {
		for {
			info, err := s.Cmd("CLUSTER", "INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redistest: node %s not in cluster_state:ok after 30 s: %v %s", s.Addr(), err, info)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return c
}

// URL is the ledger URL naming every node as a seed.
func (c *Cluster) URL() string {
	var a []string
	for _, s := range c.Nodes {
		a = append(a, s.Addr())
	}
	return "redis://" + strings.Join(a, ",")
}
