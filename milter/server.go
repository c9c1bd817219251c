package milter

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	gomilter "github.com/emersion/go-milter"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Server is the milter: it accepts Postfix's milter connections on one or
// more listeners and runs a session on each.
type Server struct {
	cfg     atomic.Pointer[Config]
	eng     atomic.Pointer[rules.Engine]
	ledger  ledger.Ledger
	lookups backscatter.Ledger // ledger, with its lookups observed; nil without a ledger
	log     *zap.Logger
	metrics *Metrics
	ms      *gomilter.Server

	mu      sync.Mutex
	lns     map[net.Listener]struct{}
	conns   map[*conn]struct{}
	closing bool
	idle    chan struct{} // closed and replaced when the last connection closes

	records sync.WaitGroup // outbound records being written
	recSem  chan struct{}
	stop    chan struct{} // closed by Shutdown and Close: pending retries give up
	stopped sync.Once

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
	s := &Server{
		ledger:  l,
		log:     log,
		metrics: NewMetrics(reg),
		lns:     make(map[net.Listener]struct{}),
		conns:   make(map[*conn]struct{}),
		idle:    make(chan struct{}),
		recSem:  make(chan struct{}, cfg.MaxPendingRecords),
		stop:    make(chan struct{}),
	}
	if l != nil {
		s.lookups = observedLedger{l: l, m: s.metrics}
	}
	s.cfg.Store(&cfg)
	s.eng.Store(eng)
	s.ms = &gomilter.Server{
		NewMilter: func() gomilter.Milter { return &session{srv: s} },
		Actions: gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody |
			gomilter.OptQuarantine | gomilter.OptSetSymList,
		// Ask Postfix for the connection facts again at MAIL FROM, so that a
		// session made after a reject or discard on the same connection
		// still knows them, and for the queue id wherever Postfix has it.
		SymList: map[gomilter.Stage][]string{
			gomilter.StageConnect:  {"j", "{daemon_name}", "{client_addr}", "{client_name}", "_"},
			gomilter.StageMailFrom: {"i", "{auth_authen}", "{auth_type}", "{client_addr}", "{daemon_name}", "{mail_addr}"},
			gomilter.StageRcptTo:   {"i", "{rcpt_addr}"},
			gomilter.StageEOH:      {"i"},
			gomilter.StageEOM:      {"i", "{auth_authen}"},
		},
	}
	return s, nil
}

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.metrics }

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
	}
	s.cfg.Store(&cfg)
	return nil
}

// Serve accepts milter connections on ln until Shutdown or Close. It
// returns nil after Shutdown or Close, else the accept error.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	err := s.ms.Serve(&listener{Listener: ln, srv: s})
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
	var err error
	for {
		s.mu.Lock()
		n, idle := len(s.conns), s.idle
		s.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-idle:
			continue
		case <-ctx.Done():
			err = ctx.Err()
		}
		break
	}
	s.closeConns()
	// Records still failing will not get through in the time left: only
	// the writes in flight are waited for.
	s.stopped.Do(func() { close(s.stop) })
	done := make(chan struct{})
	go func() { s.records.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
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
	s.stopped.Do(func() { close(s.stop) })
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

// record writes an outbound record in the background, waiting at most
// RecordWait for it. Records beyond MaxPendingRecords are dropped (and
// logged): mail is never held up for the ledger. A write that fails (a
// shared ledger that is down) is retried with backoff for up to
// RecordRetry, so that the bounces of mail sent during an outage are not
// called backscatter later; the pending records stay bounded by
// MaxPendingRecords.
func (s *Server) record(r ledger.Record, why string) {
	if s.ledger == nil {
		return
	}
	select {
	case s.recSem <- struct{}{}:
	default:
		s.metrics.LedgerOps.WithLabelValues("put", "dropped").Inc()
		s.log.Warn("outbound record dropped: too many writes pending", zap.String("queue_id", r.QueueID),
			zap.String("message_id", r.MessageID))
		return
	}
	cfg := s.config()
	done := make(chan struct{})
	s.records.Add(1)
	go func() {
		defer s.records.Done()
		defer func() { <-s.recSem }()
		defer close(done)
		s.write(r, why, cfg)
	}()
	if cfg.RecordWait > 0 {
		t := time.NewTimer(cfg.RecordWait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	}
}

// Backoff between retries of a failed outbound record.
const (
	firstRetryDelay = 250 * time.Millisecond
	maxRetryDelay   = 30 * time.Second
)

// write puts r in the ledger, retrying failures until cfg.RecordRetry has
// passed or the server stops.
func (s *Server) write(r ledger.Record, why string, cfg *Config) {
	first := time.Now()
	delay := firstRetryDelay
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.WriteTimeout)
		start := time.Now()
		err := s.ledger.Put(ctx, r)
		cancel()
		d := time.Since(start)
		s.metrics.LedgerLatency.WithLabelValues("put").Observe(d.Seconds())
		if err == nil {
			s.metrics.LedgerOps.WithLabelValues("put", "ok").Inc()
			s.log.Info("outbound recorded", zap.String("queue_id", r.QueueID), zap.String("message_id", r.MessageID),
				zap.String("sender", r.Sender), zap.Int("recipients", len(r.Recipients)), zap.String("why", why),
				zap.Int("attempt", attempt), zap.Float64("ms", float64(d.Microseconds())/1000))
			return
		}
		s.metrics.LedgerOps.WithLabelValues("put", "error").Inc()
		if time.Since(first)+delay > cfg.RecordRetry {
			s.log.Error("outbound record not written", zap.String("queue_id", r.QueueID),
				zap.String("message_id", r.MessageID), zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		if attempt == 1 {
			s.log.Warn("outbound record not written yet, retrying", zap.String("queue_id", r.QueueID),
				zap.String("message_id", r.MessageID), zap.Error(err))
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-s.stop:
			t.Stop()
			s.log.Error("outbound record not written: shutting down", zap.String("queue_id", r.QueueID),
				zap.String("message_id", r.MessageID), zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		delay = min(2*delay, maxRetryDelay)
	}
}

// listener tracks the connections it accepts.
type listener struct {
	net.Listener
	srv *Server
}

func (l *listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &conn{Conn: nc, srv: l.srv, r: bufio.NewReaderSize(nc, 16<<10)}
	s := l.srv
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		return nil, net.ErrClosed
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.metrics.Sessions.Inc()
	return c, nil
}

// conn is a milter connection: buffered reads (go-milter reads the length
// and the payload of every packet separately), an idle timeout, and
// accounting for drain.
type conn struct {
	net.Conn
	srv  *Server
	r    *bufio.Reader
	once sync.Once
}

func (c *conn) Read(p []byte) (int, error) {
	if c.r.Buffered() == 0 {
		if t := c.srv.config().IdleTimeout; t > 0 {
			c.Conn.SetReadDeadline(time.Now().Add(t))
		}
	}
	return c.r.Read(p)
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		s := c.srv
		s.metrics.Sessions.Dec()
		s.mu.Lock()
		delete(s.conns, c)
		if len(s.conns) == 0 {
			close(s.idle)
			s.idle = make(chan struct{})
		}
		s.mu.Unlock()
	})
	return err
}
