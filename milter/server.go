package milter

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	gomilter "github.com/emersion/go-milter"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Server is the milter: it accepts Postfix's milter connections on one or
// more listeners and runs a session on each.
type Server struct {
	cfg     atomic.Pointer[Config]
	eng     atomic.Pointer[rules.Engine]
	lookups backscatter.Ledger // ledger, with its lookups observed; nil without a ledger
	rec     *frontend.Recorder // outbound records
	log     *zap.Logger
	metrics *frontend.Metrics
	cb      [numStages]prometheus.Observer // callback latency by stage
	gate    *frontend.Gate                 // admits connections
	budget  *frontend.Budget               // memory of all sessions

	mu      sync.Mutex
	lns     map[net.Listener]struct{}
	conns   map[*conn]struct{}
	closing bool
	idle    chan struct{} // closed and replaced when the last connection closes

	// onMessage, if set before serving, gets the time each message spent
	// in the milter's callbacks (for benchmarks).
	onMessage atomic.Pointer[func(time.Duration)]
}

// New returns a Server. l may be nil (no ledger: every verdict is unknown
// and nothing is recorded); log may be nil; metrics are registered with reg
// unless it is nil.
func New(cfg Config, eng *rules.Engine, l ledger.Ledger, log *zap.Logger, reg prometheus.Registerer) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if eng == nil {
		return nil, errors.New("milter: no rules engine")
	}
	if log == nil {
		log = zap.NewNop()
	}
	m := frontend.NewMetrics(reg)
	m.InitStages(stageNames[:], stageNames[:]) // every callback can fail open
	s := &Server{
		lookups: m.Lookups(l),
		rec:     frontend.NewRecorder(l, m, log, cfg.MaxPendingRecords),
		log:     log,
		metrics: m,
		cb:      stageObservers(m),
		gate:    frontend.NewGate(m, log),
		budget:  frontend.NewBudget(cfg.BufferBudget, m, log),
		lns:     make(map[net.Listener]struct{}),
		conns:   make(map[*conn]struct{}),
		idle:    make(chan struct{}),
	}
	s.gate.Configure(cfg.ListenAllow, cfg.MaxConnections)
	s.rec.SetPrivacy(cfg.LogAddresses)
	if cfg.SpoolDir != "" {
		if err := s.rec.UseSpool(cfg.SpoolDir, cfg.SpoolMax); err != nil {
			log.Error("no record spool: outbound records the ledger does not take are kept in memory only, and lost on a restart",
				zap.Error(err))
		}
	}
	s.cfg.Store(&cfg)
	s.eng.Store(eng)
	s.metrics.InitRules(eng)
	return s, nil
}

// symList asks Postfix for the connection facts again at MAIL FROM, so that
// a session made after a reject or discard on the same connection still
// knows them, and for the queue id wherever Postfix has it.
var symList = map[gomilter.Stage][]string{
	gomilter.StageConnect:  {"j", "{daemon_name}", "{client_addr}", "{client_name}", "_"},
	gomilter.StageMailFrom: {"i", "{auth_authen}", "{auth_type}", "{client_addr}", "{daemon_name}", "{mail_addr}"},
	gomilter.StageRcptTo:   {"i", "{rcpt_addr}"},
	gomilter.StageEOH:      {"i"},
	gomilter.StageEOM:      {"i", "{auth_authen}"},
}

// serveConn runs go-milter's protocol on one connection. go-milter's server
// has no way to serve a connection it did not accept, nor to tell a session
// which connection it runs on: a server of its own, on a listener that
// hands it this one connection, makes every session of the connection know
// it (for what the connection holds of the budget, released when it closes
// however the session ends).
func (s *Server) serveConn(c *conn) {
	ms := &gomilter.Server{
		NewMilter: func() gomilter.Milter { return &session{srv: s, c: c} },
		Actions:   s.actions(),
		SymList:   symList,
	}
	// go-milter copies Protocol into the connection's session once Accept
	// has returned the connection: the MTA's offer is read first.
	ms.Serve(&connListener{c: c, offered: func(offer gomilter.OptProtocol) {
		c.mtaOffer = offer
		c.proto = protocolFor(offer)
		ms.Protocol = c.proto
	}})
}

// Health reports what keeps outbound records from being durable (no
// record spool, or its last write failed); nil when all is well.
func (s *Server) Health() error { return s.rec.Health() }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *frontend.Metrics { return s.metrics }

func (s *Server) config() *Config       { return s.cfg.Load() }
func (s *Server) engine() *rules.Engine { return s.eng.Load() }

// Reload replaces the configuration and the rules; sessions pick them up at
// their next message. Changing MaxPendingRecords needs a restart.
func (s *Server) Reload(cfg Config, eng *rules.Engine) error {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	if eng != nil {
		s.eng.Store(eng)
		s.metrics.InitRules(eng)
	}
	s.gate.Configure(cfg.ListenAllow, cfg.MaxConnections)
	s.budget.SetMax(cfg.BufferBudget)
	s.cfg.Store(&cfg)
	return nil
}

// Serve accepts milter connections on ln until Shutdown or Close. It
// returns nil after Shutdown or Close, else the accept error that does not
// pass (frontend.Gate retries those that do: too many open files, ...).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	var err error
	for {
		var nc net.Conn
		nc, err = s.gate.Accept(ln, nil)
		if err != nil {
			break
		}
		if c := s.track(nc); c != nil {
			go s.serveConn(c)
		}
	}
	ln.Close()
	s.mu.Lock()
	closing := s.closing
	delete(s.lns, ln)
	s.mu.Unlock()
	if closing {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and waits for open sessions to end
// (Postfix closes a milter connection when its SMTP session ends) and for
// outbound records to be written, until ctx ends; then it closes what is
// left. It does not close the ledger.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for ln := range s.lns {
		ln.Close()
	}
	s.mu.Unlock()
	err := frontend.WaitIdle(ctx, s.openConns)
	s.closeConns()
	// Records still failing will not get through in the time left: only
	// the writes in flight are waited for.
	s.rec.Stop()
	if werr := s.rec.Wait(ctx); werr != nil {
		err = werr
	}
	return err
}

// Close stops at once: listeners and connections are closed.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing = true
	for ln := range s.lns {
		ln.Close()
	}
	s.mu.Unlock()
	s.rec.Stop()
	s.closeConns()
	return nil
}

func (s *Server) closeConns() {
	s.mu.Lock()
	cs := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// Sessions returns the number of milter connections open.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// track registers a connection the gate admitted; nil when the server is
// closing (the connection is closed).
func (s *Server) track(nc net.Conn) *conn {
	c := &conn{Conn: nc, srv: s, r: bufio.NewReaderSize(nc, 16<<10), hold: s.budget.NewHold(), closed: make(chan struct{})}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		s.gate.Done()
		return nil
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.metrics.Sessions.Inc()
	return c
}

// conn is a milter connection: buffered reads (go-milter reads the length
// and the payload of every packet separately), batched writes (go-milter
// writes each packet on its own: the changes at the end of a message and
// its reply go out in one write), a deadline for the first
// packet and an idle timeout after it, what its messages hold of the
// budget, the facts of the connection that every session on it shares, and
// accounting for drain.
type conn struct {
	net.Conn
	srv    *Server
	r      *bufio.Reader
	hold   *frontend.Hold // what the message in progress holds of the budget
	once   sync.Once
	closed chan struct{}
	began  bool   // a packet was read: the negotiation began
	w      []byte // packets written by go-milter, not yet sent (flushed before a read waits)
	// mtaOffer is the protocol options the MTA offered in its option
	// negotiation (go-milter does not keep them): SMFIP_SKIP says it takes
	// SMFIR_SKIP.
	mtaOffer gomilter.OptProtocol
	proto    gomilter.OptProtocol // the protocol options asked for (protocolFor)

	// Connection facts, from the Connect callback; a session made after a
	// final response on the connection sees them too. The sessions of a
	// connection run one after the other on its goroutine.
	connSeen bool       // a Connect callback came
	local    bool       // connected over a local socket or from an unknown family
	client   netip.Addr // client IP, if known
	// readBy and writeBy are the deadlines last set on the connection
	// (setDeadline).
	readBy, writeBy time.Time
	// stray counts the header bytes that came outside a message (after a
	// temporary failure, to a client that goes on sending): go-milter keeps
	// them until the next message, so a connection that sends too many is
	// closed.
	stray int
}

// maxPendingWrite bounds the packets held before they are sent: a body
// replacement goes out in pieces of about this size.
const maxPendingWrite = 64 << 10

// writeTimeout bounds the sending of the packets held: Postfix reads them
// at once (it waits for them).
const writeTimeout = time.Minute

// Write holds the packets go-milter writes until the next read would wait
// for Postfix, which waits for them: the protocol is request and reply, so
// every reply of a request goes out in one write, before the next request
// is awaited. go-milter writes and reads on the connection's goroutine only.
func (c *conn) Write(p []byte) (int, error) {
	c.w = append(c.w, p...)
	if len(c.w) >= maxPendingWrite {
		if err := c.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// flush sends the packets held.
func (c *conn) flush() error {
	if len(c.w) == 0 {
		return nil
	}
	setDeadline(c.Conn.SetWriteDeadline, &c.writeBy, writeTimeout)
	_, err := c.Conn.Write(c.w)
	if cap(c.w) > maxPendingWrite {
		c.w = nil
	} else {
		c.w = c.w[:0]
	}
	return err
}

func (c *conn) Read(p []byte) (int, error) {
	if c.r.Buffered() == 0 {
		if err := c.flush(); err != nil {
			return 0, err
		}
		t := c.srv.config().IdleTimeout
		if !c.began {
			t = min(t, HandshakeTimeout)
		}
		setDeadline(c.Conn.SetReadDeadline, &c.readBy, t)
	}
	n, err := c.r.Read(p)
	if n > 0 {
		c.began = true
	}
	return n, err
}

// setDeadline sets a deadline t from now with set, and keeps it in *by,
// unless the deadline already set, *by, is at most t/64 earlier (or is
// later: a shorter t). Each deadline set is a change to a runtime timer:
// setting one at every read and write of a message's packets cost the
// milter about 2% of its CPU (a profile under scripts/bench-postfix), where
// most of them would move the deadline by microseconds. A deadline so kept
// comes up to t/64 early: an idle timeout of 6 minutes is 5.6 seconds
// shorter at worst.
func setDeadline(set func(time.Time) error, by *time.Time, t time.Duration) {
	d := time.Now().Add(t)
	if diff := d.Sub(*by); diff > t/64 || diff < 0 {
		set(d)
		*by = d
	}
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		s := c.srv
		c.hold.Release()
		s.gate.Done()
		s.metrics.Sessions.Dec()
		s.mu.Lock()
		delete(s.conns, c)
		if len(s.conns) == 0 {
			close(s.idle)
			s.idle = make(chan struct{})
		}
		s.mu.Unlock()
		close(c.closed)
	})
	return err
}

// connListener hands go-milter's server its one connection, then waits
// until that connection is closed, so that the server's accept loop ends
// with it.
type connListener struct {
	c       *conn
	taken   bool
	offered func(gomilter.OptProtocol) // gets the MTA's offer before go-milter reads it
}

func (l *connListener) Accept() (net.Conn, error) {
	if !l.taken {
		l.taken = true
		setDeadline(l.c.Conn.SetReadDeadline, &l.c.readBy, min(l.c.srv.config().IdleTimeout, HandshakeTimeout))
		l.offered(readOffer(l.c.r))
		return l.c, nil
	}
	<-l.c.closed
	return nil, net.ErrClosed
}

func (l *connListener) Close() error   { return nil }
func (l *connListener) Addr() net.Addr { return l.c.LocalAddr() }

// openConns reports the number of open connections and the channel closed
// when the last one closes (frontend.WaitIdle).
func (s *Server) openConns() (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), s.idle
}
