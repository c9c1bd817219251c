package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestPortIsBelowTheEphemeralRangeAndBindable(t *testing.T) {
	low := ephemeralLow()
	if low-lowest < 1000 {
		t.Skipf("the ephemeral range starts at %d: no room below it, ports come from the kernel", low)
	}
	for range 20 {
		p := Port(t)
		if p < lowest || p >= low {
			t.Fatalf("Port() = %d, want a port in [%d, %d), below the ephemeral range", p, lowest, low)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("Port() = %d, which cannot be bound: %v", p, err)
		}
		ln.Close()
	}
}

func TestPortIsNeverHandedOutTwice(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		p := Port(t)
		if seen[p] {
			t.Fatalf("Port() returned %d twice", p)
		}
		seen[p] = true
	}
}

func TestEphemeralLowReadsTheKernelRange(t *testing.T) {
	if n := ephemeralLow(); n < 1024 || n > 65535 {
		t.Fatalf("ephemeralLow() = %d, want a port number", n)
	}
}

func TestPortAvoidsAPortInUse(t *testing.T) {
	low := ephemeralLow()
	if low-lowest < 1000 {
		t.Skipf("the ephemeral range starts at %d: no room below it", low)
	}
	// Hold a port of the range, mark every other one as issued but that
	// one and one free port: pick must skip the held one.
	mu.Lock()
	saved := issued
	issued = map[int]bool{}
	mu.Unlock()
	defer func() { mu.Lock(); issued = saved; mu.Unlock() }()
	var held net.Listener
	var heldPort int
	for p := lowest; p < low; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			held, heldPort = ln, p
			break
		}
	}
	if held == nil {
		t.Skip("no bindable port in the range")
	}
	defer held.Close()
	free := -1
	for p := heldPort + 1; p < low; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			ln.Close()
			free = p
			break
		}
	}
	if free < 0 {
		t.Skip("no second bindable port in the range")
	}
	mu.Lock()
	for p := lowest; p < low; p++ {
		if p != heldPort && p != free {
			issued[p] = true
		}
	}
	mu.Unlock()
	got, err := pick(low)
	if err != nil {
		t.Fatal(err)
	}
	if got != free {
		t.Fatalf("pick returned %d, want %d, the one port of the range neither held by a listener (%d) nor handed out before", got, free, heldPort)
	}
}
