package filter

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// Replies of the filter's own. Everything else a client hears is the next
// hop's reply, or go-smtp's.
var (
	// errNextHopDown: no connection to the next hop; the client keeps the
	// message and tries again (RFC 3463 4.4.1: no answer from host).
	errNextHopDown = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 4, 1},
		Message: "Next hop not available, try again later"}
	// errNextHopLost: the next hop went away or timed out in the middle of
	// a transaction (4.4.2: bad connection).
	errNextHopLost = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 4, 2},
		Message: "Connection to the next hop lost, try again later"}
	// errClientLost: reading the message from the client failed.
	errClientLost = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 4, 2},
		Message: "Error reading the message, try again later"}
	// errNoTransaction: RCPT or DATA after a failed MAIL.
	errNoTransaction = &smtp.SMTPError{Code: 503, EnhancedCode: smtp.EnhancedCode{5, 5, 1},
		Message: "Error: need MAIL command"}
)

// session is one client connection: go-smtp calls it for each command, and
// it relays each to the next hop as it comes.
type session struct {
	srv *Server
	c   *conn
	hop *nextHop // nil when not connected

	// The transaction in progress.
	cfg     *Config
	open    bool // MAIL accepted by the next hop, transaction not finished there
	start   time.Time
	from    string
	rcpts   []string // normalised, at most frontend.MaxRecipients
	route   decide.Route
	queueID string // the upstream MTA's queue id (XFORWARD IDENT)
	ev      evidenceState
}

// observe records the time spent in a command since start.
func observe(stage prometheus.Observer, start time.Time) {
	stage.Observe(time.Since(start).Seconds())
}

// connect makes sure there is a connection to the next hop.
func (s *session) connect() error {
	if s.hop != nil {
		return nil
	}
	cfg := s.srv.config()
	h, err := dialNext(cfg.Next, cfg.Hostname, cfg.NextTimeout)
	if err != nil {
		s.srv.nextHopFailed("connect", err)
		return err
	}
	s.hop = h
	return nil
}

// drop forgets the next hop connection after a failure: err, the next
// hop's at stage, or nil when the client failed (the message cut off: the
// connection is closed without ending the data, so nothing is delivered).
func (s *session) drop(stage string, err error) {
	if err != nil {
		s.srv.nextHopFailed(stage, err)
	}
	if s.hop != nil {
		s.hop.abort()
		s.hop = nil
	}
	s.open = false
}

// Mail starts a transaction at the next hop, passing on the client's
// XFORWARD attributes and the MAIL parameters (SIZE, SMTPUTF8, DSN's RET
// and ENVID; go-smtp's client declares BODY=8BITMIME to a next hop that
// offers it), and decides where the message comes from.
func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	defer observe(s.srv.stages.mail, time.Now())
	s.finish()
	cfg := s.srv.config()
	sender := ledger.NormalizeAddress(from)
	route := cfg.site.Classify(s.origin(cfg), sender)
	if holdsMail(cfg, route, from) {
		s.ev.pending = &pendingMail{from: from, opts: opts}
	} else if err := s.mailNext(from, opts); err != nil {
		return err
	}
	s.open, s.cfg, s.start = true, cfg, time.Now()
	s.c.inTx.Store(true)
	s.from = sender
	s.queueID = s.c.xf.value(xfIDENT)
	if s.queueID != "" && s.c.xf.value(xfSOURCE) != "" {
		// A Postfix content_filter forwards the queue id of a message
		// already in its queue: this filter runs after the queue.
		s.srv.sawAfterQueue()
	}
	s.route = route
	return nil
}

// mailNext sends MAIL to the next hop, connecting first if needed; a
// connection found dead (a next hop that timed out an idle connection) is
// replaced once.
func (s *session) mailNext(from string, opts *smtp.MailOptions) error {
	for attempt := 0; ; attempt++ {
		if err := s.connect(); err != nil {
			return errNextHopDown
		}
		var n int
		s.hop.xf, n = s.c.xf.appendCommands(s.hop.xf[:0], s.hop.caps.xforward)
		err := s.hop.xforward(s.hop.xf, n)
		if se, ok := isSMTPReply(err); ok {
			s.srv.log.Warn("next hop refused XFORWARD: the client's attributes are not passed on", zap.Error(se))
			err = nil
		}
		if err == nil {
			err = s.hop.c.Mail(from, opts)
			if se := s.hop.conn.refusedXForward(); se != nil {
				s.srv.log.Warn("next hop refused XFORWARD: the client's attributes are not passed on", zap.Error(se))
			}
		}
		if err == nil {
			return nil
		}
		if se, ok := isSMTPReply(err); ok {
			return se
		}
		if strings.HasPrefix(err.Error(), "smtp: server does not support") {
			// Checked by go-smtp's client before sending: a parameter the
			// next hop did not offer (SMTPUTF8 with a next hop without it).
			return &smtp.SMTPError{Code: 555, EnhancedCode: smtp.EnhancedCode{5, 5, 4},
				Message: "MAIL parameter not supported by the next hop"}
		}
		s.drop("mail", err)
		if attempt > 0 {
			return errNextHopDown
		}
	}
}

// origin is where the message comes from, as the direction setting and the
// client (or what it forwarded with XFORWARD) say.
func (s *session) origin(cfg *Config) decide.Origin {
	dir := cfg.Direction
	if s.c.dir != "" {
		dir = s.c.dir
	}
	switch dir {
	case DirectionInbound:
		return decide.Origin{}
	case DirectionOutbound:
		return decide.Origin{Submission: true}
	}
	if !s.c.xf.set {
		return decide.Origin{Addr: s.c.peer}
	}
	// The XFORWARD attributes replace the connection's, never mixed with
	// them (XFORWARD_README): an unknown address is not the connecting one.
	if a, ok := s.c.xf.addr(); ok {
		return decide.Origin{Addr: a}
	}
	return decide.Origin{Local: s.c.xf.local()}
}

// Rcpt relays a recipient; the client gets the next hop's refusal as it is.
func (s *session) Rcpt(to string, opts *smtp.RcptOptions) error {
	defer observe(s.srv.stages.rcpt, time.Now())
	if s.open && s.ev.pending != nil {
		if err := s.sendPendingMail(to); err != nil {
			return err
		}
	}
	if !s.open || s.hop == nil {
		return errNoTransaction
	}
	next := s.nextRecipient(to)
	if err := s.hop.c.Rcpt(next, opts); err != nil {
		if se, ok := isSMTPReply(err); ok {
			return se
		}
		s.drop("rcpt", err)
		return errNextHopLost
	}
	s.noteReceived(to)
	if len(s.rcpts) < frontend.MaxRecipients {
		if a := ledger.NormalizeAddress(next); a != "" {
			s.rcpts = append(s.rcpts, a)
		}
	}
	return nil
}

// Data reads the start of the message, decides, and streams the message,
// annotated, to the next hop; the client gets the next hop's reply to it.
func (s *session) Data(r io.Reader) error {
	s.c.enterData()
	defer observe(s.srv.stages.data, time.Now())
	if !s.open || s.hop == nil {
		return errNoTransaction
	}
	cfg := s.cfg
	route := s.route.WithRecipients(cfg.site, s.rcpts)
	keep := route.Candidate && !route.Outbound()
	br := dataReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		dataReaders.Put(br)
	}()
	// What the message holds of the budget is given back when it is gone.
	defer s.c.hold.Release()
	h, err := readHead(br, keep, cfg.ParseCap, s.c.hold)
	if err == nil && !keep && keepsAutoReply(route, h) {
		h.autoReply = true
		err = h.keepBody(br, cfg.ParseCap, s.c.hold)
	}
	if err != nil {
		s.drop("data", nil)
		return errClientLost
	}

	out := s.decide(h, route, cfg)
	if len(out.Delete) > 0 || h.oversize {
		s.srv.metrics.NDRFieldsRemoved.Add(float64(len(out.Delete)))
		s.srv.log.Info("X-NDR-* fields removed: ndrmilter did not write them", zap.String("queue_id", s.queueID),
			zap.Int("fields", len(out.Delete)), zap.Bool("outbound", route.Outbound()), zap.Bool("oversize_header", h.oversize))
	}
	switch out.Action {
	case decide.ActionReject:
		return replyError(out.Reply)
	case decide.ActionDiscard:
		// Accepted and dropped: the next hop's transaction is reset in
		// Reset. (Reject and discard apply only to a report from outside.)
		return nil
	}
	recorded := false
	if route.Outbound() && s.queueID != "" {
		// The upstream MTA named the queue id (after the queue): the record
		// is made durable while the message goes to the next hop, which
		// syncs its own queue file meanwhile, and the client's reply waits
		// for both. (As the milter does, a record may then stand for a
		// message the next hop refuses: the upstream MTA tries it again or
		// bounces it to its sender.)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.record(h, s.queueID, route, cfg)
		}()
		defer func() { <-done }()
		recorded = true
	}

	w, err := s.hop.c.Data()
	if err != nil {
		if se, ok := isSMTPReply(err); ok {
			return se
		}
		s.drop("data", err)
		return errNextHopLost
	}
	s.hop.conn.gather() // until the reply to the end of data is read
	if err := send(w, h, br, &out, route.Outbound() && !stripsOutbound(cfg, s.rcpts)); err != nil {
		if errors.Is(err, errReadClient) {
			s.drop("data", nil)
			return errClientLost
		}
		s.drop("data", err)
		return errNextHopLost
	}
	resp, err := w.CloseWithResponse()
	s.open = false
	if err != nil {
		if se, ok := isSMTPReply(err); ok {
			return se
		}
		// No reply to the end of data: whether the next hop has the message
		// is not known. A 4xx makes the client try again (a duplicate at
		// worst, never a loss).
		s.drop("data", err)
		return errNextHopLost
	}
	if route.Outbound() && !recorded {
		// No XFORWARD IDENT: before the queue (smtpd_proxy_filter), or
		// mail submitted on the upstream host. The next hop names the id
		// the message has in its queue, which its Received field shows
		// too.
		s.record(h, queuedAs(resp.StatusText), route, cfg)
	}
	if ce := s.srv.log.Check(zap.DebugLevel, "relayed"); ce != nil {
		ce.Write(zap.String("queue_id", s.queueID), zap.String("route", routeName(route)),
			zap.String("next_hop_reply", resp.StatusText))
	}
	return acceptedReply(resp.StatusText)
}

// record writes the record of an outbound message and returns once it is
// durable (frontend.Recorder).
func (s *session) record(h *head, queueID string, route decide.Route, cfg *Config) {
	s.srv.metrics.CountOutbound()
	s.srv.rec.Record(ledger.Record{MessageID: h.messageID(), QueueID: queueID, Sender: s.from,
		Recipients: s.rcpts, Time: s.start}, string(route.Why), cfg.recordPolicy())
}

func routeName(r decide.Route) string {
	switch {
	case r.Outbound():
		return "outbound:" + string(r.Why)
	case r.Inside:
		return "inside"
	}
	return "inbound"
}

// decide is the Outcome for the message: for outbound mail, only its
// X-NDR-* fields deleted when it goes to one of our users; for inbound
// mail, the shared reader's decision. A panic in reading the message fails
// open: the message passes unannotated, its X-NDR-* fields removed. So does
// one over the budget. A header too large to hold passes as it streams
// (passOversize), its X-NDR-* fields left out there.
func (s *session) decide(h *head, route decide.Route, cfg *Config) (out decide.Outcome) {
	if h.oversize {
		s.srv.metrics.FailOpen.WithLabelValues("header").Inc()
		s.srv.log.Warn("header too large: message passes unannotated", zap.String("queue_id", s.queueID),
			zap.Int("limit", maxHeaderBytes))
		return decide.Outcome{Action: decide.ActionNone}
	}
	f := h.facts(cfg.ParseCap)
	f.QueueID, f.Recipients, f.Inside, f.NullSender = s.queueID, s.rcpts, route.Inside, route.NullSender
	if route.Outbound() {
		return decide.Outbound(cfg.site, f)
	}
	defer func() {
		if v := recover(); v != nil {
			s.srv.metrics.FailOpen.WithLabelValues("data").Inc()
			s.srv.log.Error("internal error: message passes unannotated", zap.Any("panic", v),
				zap.ByteString("stack", debug.Stack()))
			out = decide.Inbound(decide.Policy{}, decide.Facts{Incoming: f.Incoming})
		}
	}()
	rd := frontend.Reader{Rules: s.srv.engine(), Ledger: s.srv.lookups, Site: cfg.site, Policy: cfg.policy(),
		LookupTimeout: cfg.LookupTimeout, Metrics: s.srv.metrics, Log: s.srv.log, Budget: s.srv.budget,
		Privacy: cfg.LogAddresses, Evidence: cfg.Evidence, Received: s.ev.received, AutoReplyOnly: h.autoReply && !h.unread}
	return rd.Inbound(f, route.Candidate && !h.unread, s.start)
}

// stripsOutbound reports whether outbound mail to rcpts loses its X-NDR-*
// fields (decide.Outbound): one of its recipients is ours.
func stripsOutbound(cfg *Config, rcpts []string) bool {
	for _, r := range rcpts {
		if cfg.site.Ours(r) {
			return true
		}
	}
	return false
}

// dataReaders are the readers of message data, one per message in
// progress: taken from the pool rather than made (and zeroed) for each.
var dataReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// errReadClient marks a failure to read the message from the client.
var errReadClient = errors.New("reading the message from the client")

// hopWriter notes the errors of writes to the next hop, so that an error
// of the copy that is not one is the client's.
type hopWriter struct {
	w   io.Writer
	err error
}

func (h *hopWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	if err != nil && h.err == nil {
		h.err = err
	}
	return n, err
}

// copyRest streams the rest of the message from br to w through br's own
// buffer; a read error is marked errReadClient.
func copyRest(w io.Writer, br *bufio.Reader) error {
	hw := &hopWriter{w: w}
	_, err := br.WriteTo(hw)
	switch {
	case err == nil, hw.err != nil:
		return err
	case errors.Is(err, io.EOF):
		return nil
	}
	return fmt.Errorf("%w: %w", errReadClient, err)
}

// send writes the message to the next hop: its start with the Outcome
// applied, then the rest as it comes from the client. A header too large to
// hold streams through, its X-NDR-* fields left out, unless asIs (outbound
// mail to other domains only, which keeps them).
func send(w io.Writer, h *head, br *bufio.Reader, out *decide.Outcome, asIs bool) error {
	if h.oversize {
		if asIs {
			if _, err := w.Write(h.raw); err != nil {
				return err
			}
		} else if err := h.passOversize(w, br); err != nil {
			return err
		}
	} else if err := h.write(w, out); err != nil {
		return err
	}
	return copyRest(w, br)
}

// finish ends the transaction at the next hop if it is still open there
// (the client said RSET, or the message was rejected or discarded).
func (s *session) finish() {
	if s.open && s.hop != nil {
		if err := s.hop.reset(); err != nil {
			if _, ok := isSMTPReply(err); !ok {
				s.drop("rset", err)
			}
		}
	}
	s.open, s.cfg, s.from, s.rcpts, s.route, s.queueID = false, nil, "", nil, decide.Route{}, ""
	s.ev = evidenceState{}
}

// Reset ends the transaction: after each message, at RSET and at EHLO.
// The XFORWARD attributes end with it (XFORWARD_README).
func (s *session) Reset() {
	s.finish()
	s.c.inTx.Store(false)
	s.c.xf = xforward{}
}

// Logout closes the connection to the next hop.
func (s *session) Logout() error {
	s.finish()
	if s.hop != nil {
		s.hop.close()
		s.hop = nil
	}
	return nil
}

// replyError is a decide.Reply as go-smtp's error.
func replyError(r decide.Reply) error {
	return &smtp.SMTPError{Code: r.Code, EnhancedCode: enhanced(r.Enhanced), Message: r.Text}
}

// acceptedReply passes the next hop's acceptance on ("250 2.0.0 Ok: queued
// as 4Xq..."), so that the client's log shows where the message went.
// go-smtp's server writes the code and text of an *SMTPError returned from
// Data, whatever the code.
func acceptedReply(text string) error {
	code, msg, ok := strings.Cut(text, " ")
	ec := enhanced(code)
	if !ok || ec == smtp.EnhancedCodeNotSet {
		ec, msg = smtp.EnhancedCode{2, 0, 0}, text
	}
	if msg == "" {
		msg = "Ok"
	}
	return &smtp.SMTPError{Code: 250, EnhancedCode: ec, Message: msg}
}

// queuedAs returns the queue id in a reply to the end of data, as Postfix
// words it ("2.0.0 Ok: queued as 4Xq2Lm0Bz"), "" when there is none: 5 to
// 64 letters, digits, ".", "_" or "-", as a Received field's id clause.
func queuedAs(text string) string {
	_, rest, ok := strings.Cut(text, "queued as ")
	if !ok {
		return ""
	}
	n := 0
	for n < len(rest) && n <= 64 && isQueueIDChar(rest[n]) {
		n++
	}
	id := strings.TrimRight(rest[:n], "._-")
	if len(id) < 5 || len(id) > 64 {
		return ""
	}
	return id
}

func isQueueIDChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// enhanced parses an enhanced status code "x.y.z" (RFC 3463), the zero
// EnhancedCode (not set) when s is not one.
func enhanced(s string) smtp.EnhancedCode {
	var ec smtp.EnhancedCode
	for i := range ec {
		part := s
		if i < len(ec)-1 {
			var ok bool
			if part, s, ok = strings.Cut(s, "."); !ok {
				return smtp.EnhancedCodeNotSet
			}
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || n > 999 {
			return smtp.EnhancedCodeNotSet
		}
		ec[i] = n
	}
	if ec[0] < 2 || ec[0] > 5 {
		return smtp.EnhancedCodeNotSet
	}
	return ec
}
