package frontend

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// Backoff between retries of a failed accept (as net/http's server).
const (
	firstAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay   = time.Second
)

// refusalLogEvery is how often a kind of refusal is logged at most; the
// line says how many were not logged since.
const refusalLogEvery = 10 * time.Second

// Gate admits the connections of a front end's listeners: it retries the
// accept errors that pass (too many open files, a connection aborted
// before it was accepted) with backoff instead of stopping the front end,
// closes at once a TCP client outside the allowed networks, and hands a
// connection over the limit of open connections to the front end's refusal.
// Every refusal and accept error is counted, and logged at most every ten
// seconds per kind. Unix-socket clients are always allowed: the socket's
// permissions guard it.
//
// A Gate is safe for concurrent use; a front end has one for all its
// listeners.
type Gate struct {
	m   *Metrics
	log *zap.Logger

	quiet *throttle // of the log lines

	mu      sync.Mutex
	allowed []netip.Prefix // empty: every client
	max     int            // <= 0: no limit
	open    int
}

// NewGate returns a Gate counting in m and logging to log (nil: no log).
func NewGate(m *Metrics, log *zap.Logger) *Gate {
	if log == nil {
		log = zap.NewNop()
	}
	return &Gate{m: m, log: log, quiet: newThrottle(refusalLogEvery)}
}

// Configure sets the networks whose clients may connect (empty: any) and the
// number of connections open at once (<= 0: no limit). Connections open stay
// open.
func (g *Gate) Configure(allowed []netip.Prefix, maxConnections int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.allowed, g.max = allowed, maxConnections
}

// Open returns the number of connections admitted and not yet Done.
func (g *Gate) Open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// Accept returns the next connection of ln that may come in. A connection
// over the limit is passed to refuse (which must close it; nil: closed at
// once) and the next one is waited for. It returns ln's error when that is
// not one that passes (net.ErrClosed after ln is closed). Each connection
// it returns must be given back with Done when it closes.
func (g *Gate) Accept(ln net.Listener, refuse func(net.Conn)) (net.Conn, error) {
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if !acceptRetryable(err) {
				return nil, err
			}
			delay = min(max(2*delay, firstAcceptDelay), maxAcceptDelay)
			g.m.AcceptErrors.Inc()
			g.quiet.do("accept", func(n int) {
				g.log.Error("cannot accept a connection: retrying with backoff", zap.Error(err),
					zap.Duration("retry_in", delay), zap.Int("not_logged_since", n), zap.String("listen", ln.Addr().String()))
			})
			time.Sleep(delay)
			continue
		}
		delay = 0
		peer, tcp := peerAddr(nc)
		g.mu.Lock()
		switch {
		case tcp && !g.allows(peer):
			g.mu.Unlock()
			// Counted before the close: a client that sees its connection
			// closed finds the refusal counted.
			g.m.ConnectionsRefused.WithLabelValues(RefusedNotAllowed).Inc()
			nc.Close()
			g.quiet.do(RefusedNotAllowed, func(n int) {
				g.log.Warn("connection refused: the client is not in listen_allow", zap.String("client", peer.String()),
					zap.String("listen", ln.Addr().String()), zap.Int("not_logged_since", n))
			})
		case g.max > 0 && g.open >= g.max:
			open := g.open
			g.mu.Unlock()
			g.m.ConnectionsRefused.WithLabelValues(RefusedMaxConnections).Inc()
			if refuse == nil {
				nc.Close()
			} else {
				refuse(nc)
			}
			g.quiet.do(RefusedMaxConnections, func(n int) {
				g.log.Warn("connection refused: max_connections are open", zap.Int("open", open),
					zap.String("listen", ln.Addr().String()), zap.Int("not_logged_since", n))
			})
		default:
			g.open++
			g.mu.Unlock()
			return nc, nil
		}
	}
}

// Done gives back the place of a connection Accept returned.
func (g *Gate) Done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open > 0 {
		g.open--
	}
}

// allows reports whether a TCP client at peer may connect; g.mu is held.
func (g *Gate) allows(peer netip.Addr) bool {
	if len(g.allowed) == 0 {
		return true
	}
	for _, p := range g.allowed {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}

// peerAddr is the IP address of a TCP connection's client; tcp is false for
// other connections (a unix socket).
func peerAddr(c net.Conn) (netip.Addr, bool) {
	ta, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return netip.Addr{}, false
	}
	a, ok := netip.AddrFromSlice(ta.IP)
	return a.Unmap(), ok
}

// acceptRetryable reports whether an accept error passes: the process or
// the system is out of file descriptors or buffers for a moment, or a
// client went away before its connection was accepted.
func acceptRetryable(err error) bool {
	if errors.Is(err, net.ErrClosed) {
		return false
	}
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EPROTO, syscall.EPERM, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
