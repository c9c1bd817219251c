// Package freeport picks TCP ports on the loopback for test servers that
// must be told their port before they start (Postfix's master.cf,
// redis-server's --port), where asking the kernel for port 0 is not
// possible.
//
// A port found by listening on port 0 and closing the listener comes from
// the kernel's ephemeral range, the range connect(2) takes local ports from:
// any outgoing connection on the machine (Postfix's smtp client, a Redis
// client, a test's dial) can take it before the server binds it, and the
// server then fails to start. Seen in CI: master(8) exited three times in a
// row when another service's port of the same instance had been taken. The
// ports given here lie below the ephemeral range (ip_local_port_range,
// Linux's ip-sysctl documentation), where no outgoing connection lands;
// only another test picking the same port at the same moment can take one,
// and a process never hands out the same port twice.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lowest is the lowest port handed out: below it live the well-known and
// many registered services' ports.
const lowest = 20000

// ephemeralRange is Linux's list of local ports for outgoing connections.
const ephemeralRange = "/proc/sys/net/ipv4/ip_local_port_range"

// defaultEphemeralLow is the start of the ephemeral range when
// ephemeralRange cannot be read: Linux's default (32768-60999).
const defaultEphemeralLow = 32768

var (
	mu     sync.Mutex
	issued = map[int]bool{} // ports this process handed out
)

// Port returns a TCP port on 127.0.0.1 that was free a moment ago, outside
// the ephemeral range when the range leaves room below it, and never one
// this process returned before. It fails the test when no port can be
// bound at all.
func Port(t testing.TB) int {
	t.Helper()
	p, err := pick(ephemeralLow())
	if err != nil {
		t.Fatalf("freeport: %v", err)
	}
	return p
}

// Addr returns "127.0.0.1:PORT" for a port from Port.
func Addr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(Port(t)))
}

// pick scans [lowest, below) from a random start, skipping the ports it
// handed out before, and returns the first one it can bind; it falls back
// to a port the kernel chooses when that range is too small or it finds
// none in 200 binds.
func pick(below int) (int, error) {
	mu.Lock()
	defer mu.Unlock()
	if n := below - lowest; n >= 1000 {
		start, tries := rand.IntN(n), 0
		for i := 0; i < n && tries < 200; i++ {
			p := lowest + (start+i)%n
			if issued[p] {
				continue
			}
			tries++
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				continue
			}
			ln.Close()
			issued[p] = true
			return p, nil
		}
	}
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("finding a free port: %v", err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !issued[p] {
			issued[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("finding a free port: the kernel gave only ports already handed out")
}

// ephemeralLow returns the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	b, err := os.ReadFile(ephemeralRange)
	if err != nil {
		return defaultEphemeralLow
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return defaultEphemeralLow
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 0 || n > 65535 {
		return defaultEphemeralLow
	}
	return n
}
