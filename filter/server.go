package filter

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Server is the SMTP filter: it accepts SMTP connections on one or more
// listeners and relays each transaction to the next hop as it happens.
type Server struct {
	cfg     atomic.Pointer[Config]
	eng     atomic.Pointer[rules.Engine]
	lookups backscatter.Ledger // the ledger, lookups observed; nil without one
	rec     *frontend.Recorder
	log     *zap.Logger
	metrics *frontend.Metrics
	stages  stageLatency           // CallbackLatency of the SMTP commands
	nextHop *prometheus.CounterVec // next hop failures, by stage
	refused prometheus.Counter     // connections refused over MaxConnections
	gate    *frontend.Gate         // admits connections
	budget  *frontend.Budget       // memory of all connections
	smtp    *smtp.Server

	mu      sync.Mutex
	conns   map[*conn]struct{}
	closing atomic.Bool
	idle    chan struct{} // closed and replaced when the last connection closes

	afterQueueWarned atomic.Bool
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
		return nil, errors.New("filter: no rules engine")
	}
	if log == nil {
		log = zap.NewNop()
	}
	m := frontend.NewMetrics(reg)
	m.InitStages([]string{"mail", "rcpt", "data"}, []string{"header", "data"}) // session.go's stages and FailOpen
	s := &Server{
		lookups: m.Lookups(l),
		rec:     frontend.NewRecorder(l, m, log, cfg.MaxPendingRecords),
		log:     log,
		metrics: m,
		stages: stageLatency{mail: m.CallbackLatency.WithLabelValues("mail"),
			rcpt: m.CallbackLatency.WithLabelValues("rcpt"), data: m.CallbackLatency.WithLabelValues("data")},
		nextHop: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_filter_next_hop_failures_total",
			Help: "Failures to reach or talk to the next hop (not its replies), by stage."}, []string{"stage"}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "ndrmilter_filter_connections_refused_total",
			Help: "Client connections refused because max_connections were open."}),
		gate:   frontend.NewGate(m, log),
		budget: frontend.NewBudget(cfg.BufferBudget, m, log),
		conns:  make(map[*conn]struct{}),
		idle:   make(chan struct{}),
	}
	s.gate.Configure(cfg.ListenAllow, cfg.MaxConnections)
	if reg != nil {
		reg.MustRegister(s.nextHop, s.refused)
	}
	s.rec.SetPrivacy(cfg.LogAddresses)
	if cfg.SpoolDir != "" {
		if err := s.rec.UseSpool(cfg.SpoolDir, cfg.SpoolMax); err != nil {
			log.Error("no record spool: outbound records the ledger does not take are kept in memory only, and lost on a restart",
				zap.Error(err))
		}
	}
	for _, st := range []string{"connect", "mail", "rcpt", "data", "rset"} { // session.go's nextHopFailed and drop
		s.nextHop.WithLabelValues(st)
	}
	s.cfg.Store(&cfg)
	s.eng.Store(eng)
	s.metrics.InitRules(eng)
	be := smtp.BackendFunc(s.newSession)
	s.smtp = smtp.NewServer(be)
	s.smtp.Domain = cfg.Hostname
	s.smtp.EnableSMTPUTF8 = true // announced only when the next hop offers it (conn.go)
	s.smtp.EnableDSN = true      // likewise
	s.smtp.MaxLineLength = 0     // message lines: any length; command lines: maxCommandLine (conn.go)
	s.smtp.ReadTimeout = 0       // a deadline per read instead (conn.go)
	s.smtp.WriteTimeout = time.Minute
	s.smtp.ErrorLog = zapLogger{log}
	if cfg.BackscatterAction == decide.ActionReject {
		log.Info("backscatter_action reject answers 550 at the end of DATA: right for a before-queue filter " +
			"(smtpd_proxy_filter), wrong after the queue (content_filter), where Postfix would bounce the " +
			"rejected message to its null sender; the filter warns when it sees it runs after the queue")
	}
	return s, nil
}

// stageLatency are the series of CallbackLatency the session observes,
// looked up once rather than by label at every command.
type stageLatency struct {
	mail, rcpt, data prometheus.Observer
}

// Health reports what keeps outbound records from being durable (no
// record spool, or its last write failed); nil when all is well.
func (s *Server) Health() error { return s.rec.Health() }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *frontend.Metrics { return s.metrics }

func (s *Server) config() *Config       { return s.cfg.Load() }
func (s *Server) engine() *rules.Engine { return s.eng.Load() }
func (s *Server) draining() bool        { return s.closing.Load() }

// Reload replaces the configuration and the rules; sessions pick them up at
// their next transaction. Changing Hostname or MaxPendingRecords needs a
// restart.
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
	s.afterQueueWarned.Store(false)
	return nil
}

// Serve accepts SMTP connections on ln until Shutdown or Close, the
// direction of their mail as Config.Direction says. It returns nil after
// Shutdown or Close, else the accept error.
func (s *Server) Serve(ln net.Listener) error { return s.ServeDirection(ln, "") }

// ServeDirection is Serve for a listener whose mail goes the direction d
// whatever Config.Direction says ("": as it says). An MTA that cannot send
// XFORWARD (Exim, OpenSMTPD) connects from its own address for all mail,
// and sends its users' mail to a listener served with DirectionOutbound and
// the rest to one served with DirectionInbound; both share one ledger.
func (s *Server) ServeDirection(ln net.Listener, d Direction) error {
	if d != "" {
		pd, err := ParseDirection(string(d))
		if err != nil {
			ln.Close()
			return err
		}
		d = pd
	}
	if s.closing.Load() {
		ln.Close()
		return nil
	}
	err := s.smtp.Serve(&listener{Listener: ln, srv: s, dir: d})
	if s.closing.Load() {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and drains: a connection between
// transactions gets 421 at its next command (a waiting one at once), one in
// a transaction finishes it first. It waits for the connections to close
// and for outbound records to be written, until ctx ends; then it closes
// what is left. It does not close the ledger.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	// go-smtp's Shutdown closes the listeners, then waits for its
	// connections, which only their clients end: the wait is the one below,
	// which wakes the connections between transactions.
	now, cancel := context.WithCancel(context.Background())
	cancel()
	s.smtp.Shutdown(now)
	for _, c := range s.connections() {
		c.wake()
	}
	err := frontend.WaitIdle(ctx, s.openConns)
	for _, c := range s.connections() {
		c.Close()
	}
	s.rec.Stop()
	if werr := s.rec.Wait(ctx); werr != nil {
		err = werr
	}
	return err
}

// Close stops at once: listeners and connections are closed.
func (s *Server) Close() error {
	s.closing.Store(true)
	s.smtp.Close()
	for _, c := range s.connections() {
		c.Close()
	}
	s.rec.Stop()
	return nil
}

// Sessions returns the number of client connections open.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *Server) connections() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		cs = append(cs, c)
	}
	return cs
}

func (s *Server) forget(c *conn) {
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
}

// newSession starts a session at a client's first EHLO or HELO, connecting
// to the next hop at once so that the reply to EHLO can carry its limits. A
// next hop that is down is tried again at MAIL, which then gets 451.
func (s *Server) newSession(sc *smtp.Conn) (smtp.Session, error) {
	c, ok := sc.Conn().(*conn)
	if !ok {
		return nil, errors.New("filter: connection not accepted by the filter's listener")
	}
	ss := &session{srv: s, c: c}
	if err := ss.connect(); err == nil {
		caps := ss.hop.caps
		c.caps = &caps
	}
	return ss, nil
}

// nextHopFailed logs and counts a failure to reach or talk to the next hop.
func (s *Server) nextHopFailed(stage string, err error) {
	s.nextHop.WithLabelValues(stage).Inc()
	s.log.Warn("next hop failed: the client gets 4xx and tries again", zap.String("stage", stage),
		zap.String("next", s.config().Next), zap.Error(err))
}

// sawAfterQueue warns, once per configuration, when reject is configured
// and the filter sees that it runs after the queue.
func (s *Server) sawAfterQueue() {
	if s.config().BackscatterAction != decide.ActionReject || s.afterQueueWarned.Swap(true) {
		return
	}
	s.log.Warn("this filter runs after the queue (the client forwarded a queue id with XFORWARD): " +
		"backscatter_action reject makes Postfix bounce each rejected bounce to its null sender, " +
		"where it is dropped; use discard or tag here, reject only before the queue (smtpd_proxy_filter)")
}

// listener admits connections through the server's gate: those beyond
// MaxConnections get 421, those from outside ListenAllow are closed.
type listener struct {
	net.Listener
	srv *Server
	dir Direction // "" for Config.Direction
}

func (l *listener) Accept() (net.Conn, error) {
	s := l.srv
	nc, err := s.gate.Accept(l.Listener, func(nc net.Conn) {
		s.refused.Inc()
		go refuse(nc)
	})
	if err != nil {
		return nil, err
	}
	if s.closing.Load() {
		nc.Close()
		s.gate.Done()
		return nil, net.ErrClosed
	}
	c := newConn(nc, s)
	c.dir = l.dir
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.metrics.Sessions.Inc()
	return c, nil
}

// refuse tells a client over the connection limit to come back later
// (RFC 5321 section 3.1: 421 instead of the greeting).
func refuse(nc net.Conn) {
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(nc, "421 4.3.2 Too many connections, try again later\r\n")
	nc.Close()
}

// zapLogger is go-smtp's error log on zap.
type zapLogger struct{ l *zap.Logger }

func (z zapLogger) Printf(format string, v ...interface{}) {
	z.l.Sugar().Warnf("smtp server: "+format, v...)
}
func (z zapLogger) Println(v ...interface{}) {
	z.l.Sugar().Warn(append([]any{"smtp server: "}, v...)...)
}

// openConns reports the number of open connections and the channel closed
// when the last one closes (frontend.WaitIdle).
func (s *Server) openConns() (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), s.idle
}
