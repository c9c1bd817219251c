package milter

import (
	"net"
	"net/netip"
	"net/textproto"
	"runtime/debug"
	"strings"
	"time"

	gomilter "github.com/emersion/go-milter"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// Limits on what one message can make the session keep.
const (
	maxRcpts      = frontend.MaxRecipients // envelope recipients remembered (for the ledger and the verdict)
	maxNDRHeaders = 100                    // incoming X-NDR-* headers deleted; more are left (and logged)
)

// session is one milter connection's state. go-milter makes a new session
// after a final response (accept, reject, discard, tempfail), so Body
// returns Continue on every path that keeps the message, and the facts of
// the connection are also read again from the MAIL FROM macros, which the
// Server asks Postfix for with SymList.
type session struct {
	srv *Server

	// Connection facts.
	connSeen bool       // a Connect callback came
	local    bool       // connected over a local socket or from an unknown family
	client   netip.Addr // client IP, if known

	msg message
}

// message is the state of the message in progress; MailFrom and Abort reset it.
type message struct {
	cfg     *Config
	start   time.Time
	from    string
	route   decide.Route // outbound or inbound, and whether it may be a bounce
	queueID string
	rcpts   []string

	messageID string
	subject   string
	hasSubj   bool
	ndr       []decide.Header // incoming X-NDR-* fields: name as sent, index among that name's fields
	counts    map[string]int  // occurrences of X-NDR-* and Subject names, lower case

	buf       []byte // header and body kept for parsing, up to cfg.ParseCap
	truncated bool

	failed bool // a panic happened: let the message through unchanged

	busy time.Duration // time spent in callbacks for this message
}

func (s *session) reset() {
	s.msg = message{}
}

// guard turns a panic in a callback into fail-open: the message is let
// through unchanged, and the panic is logged and counted.
func (s *session) guard(st stage, resp *gomilter.Response, err *error) {
	if v := recover(); v != nil {
		s.msg.failed = true
		s.srv.metrics.FailOpen.WithLabelValues(stageNames[st]).Inc()
		s.srv.log.Error("internal error: message passes unchanged",
			zap.String("stage", stageNames[st]), zap.Any("panic", v), zap.ByteString("stack", debug.Stack()))
		if resp != nil {
			*resp = gomilter.RespContinue
		}
		if err != nil {
			*err = nil
		}
	}
}

// observe records the latency of a callback and adds it to the time the
// message spent in the milter; at end of message it reports that total and
// forgets the message.
func (s *session) observe(st stage, start time.Time) {
	d := time.Since(start)
	s.srv.cb[st].Observe(d.Seconds())
	s.msg.busy += d
	if st == stEOM {
		if h := s.srv.onMessage.Load(); h != nil && s.msg.cfg != nil {
			(*h)(s.msg.busy)
		}
		s.reset()
	}
}

// Connect records the facts of the connection.
func (s *session) Connect(host string, family string, port uint16, addr net.IP, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stConnect, time.Now())
	defer s.guard(stConnect, &resp, &err)
	s.connSeen = true
	switch family {
	case "tcp4", "tcp6":
		if ip, ok := netip.AddrFromSlice(addr); ok {
			s.client = ip.Unmap()
		}
	default:
		s.local = true
	}
	if a, ok := macroAddr(m.Macros); ok {
		s.client = a
		s.local = false
	}
	return gomilter.RespContinue, nil
}

// macroAddr reads {client_addr} from the macros of the current stage.
func macroAddr(macros map[string]string) (netip.Addr, bool) {
	v := strings.Trim(macros["{client_addr}"], "[]")
	v = strings.TrimPrefix(v, "IPv6:")
	if v == "" {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// Helo is not needed.
func (s *session) Helo(name string, m *gomilter.Modifier) (gomilter.Response, error) {
	return gomilter.RespContinue, nil
}

// MailFrom starts a message and decides whether it is outbound.
func (s *session) MailFrom(from string, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stMail, time.Now())
	defer s.guard(stMail, &resp, &err)
	s.reset()
	cfg := s.srv.config()
	s.msg = message{cfg: cfg, start: time.Now(), from: ledger.NormalizeAddress(from)}
	s.msg.queueID = m.Macros["i"]
	client, haveClient := macroAddr(m.Macros)
	if !haveClient && s.client.IsValid() {
		client, haveClient = s.client, true
	}
	o := decide.Origin{Authenticated: m.Macros["{auth_authen}"] != ""}
	if haveClient {
		o.Addr = client
	} else {
		// Connected over a local socket or with an unknown address family:
		// Postfix's own submissions. (Postfix presents sendmail and pickup
		// submissions as coming from 127.0.0.1, which the default trusted
		// networks cover.) A session that saw no Connect at all is one
		// go-milter made after a reject or discard on an inbound connection
		// whose MAIL FROM macros lack {client_addr}: it stays inbound, the
		// safe side, since inbound processing only adds headers.
		o.Local = s.local
	}
	// A bounce may come from a trusted or local client too: Postfix's own
	// bounces (internal_mail_filter_classes = bounce) or an internal relay's.
	// It is kept for parsing; end of message decides by its recipients.
	s.msg.route = cfg.site.Classify(o, s.msg.from)
	s.msg.counts = make(map[string]int)
	return gomilter.RespContinue, nil
}

// RcptTo remembers the envelope recipients.
func (s *session) RcptTo(rcptTo string, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stRcpt, time.Now())
	defer s.guard(stRcpt, &resp, &err)
	if s.msg.cfg == nil { // RCPT without MAIL: not from Postfix; ignore
		return gomilter.RespContinue, nil
	}
	if len(s.msg.rcpts) < maxRcpts {
		if a := ledger.NormalizeAddress(rcptTo); a != "" {
			s.msg.rcpts = append(s.msg.rcpts, a)
		}
	}
	if s.msg.queueID == "" {
		s.msg.queueID = m.Macros["i"]
	}
	return gomilter.RespContinue, nil
}

// Header notes Message-ID, Subject and X-NDR-* headers, and keeps the
// header of a possible bounce for parsing.
func (s *session) Header(name string, value string, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stHeader, time.Now())
	defer s.guard(stHeader, &resp, &err)
	msg := &s.msg
	if msg.cfg == nil {
		return gomilter.RespContinue, nil
	}
	lname := strings.ToLower(name)
	if lname == "message-id" && msg.messageID == "" {
		msg.messageID = ledger.NormalizeMessageID(value)
	}
	if msg.route.Outbound() && !msg.route.Candidate {
		return gomilter.RespContinue, nil
	}
	switch {
	case decide.IsNDRHeader(lname):
		msg.counts[lname]++
		if len(msg.ndr) < maxNDRHeaders {
			msg.ndr = append(msg.ndr, decide.Header{Name: name, Index: msg.counts[lname]})
		}
	case lname == "subject":
		msg.counts[lname]++
		if !msg.hasSubj {
			msg.hasSubj, msg.subject = true, value
		}
	}
	if msg.route.Candidate && !msg.truncated {
		msg.keep(name, ": ", value, "\r\n")
	}
	return gomilter.RespContinue, nil
}

// keep appends parts to the parse buffer while it is under the cap.
func (msg *message) keep(parts ...string) {
	for _, p := range parts {
		room := msg.cfg.ParseCap - len(msg.buf)
		if len(p) > room {
			msg.buf = append(msg.buf, p[:room]...)
			msg.truncated = true
			return
		}
		msg.buf = append(msg.buf, p...)
	}
}

// Headers ends the header.
func (s *session) Headers(h textproto.MIMEHeader, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stEOH, time.Now())
	defer s.guard(stEOH, &resp, &err)
	if s.msg.route.Candidate && !s.msg.truncated {
		s.msg.keep("\r\n")
	}
	if s.msg.queueID == "" {
		s.msg.queueID = m.Macros["i"]
	}
	return gomilter.RespContinue, nil
}

// BodyChunk keeps the body of a possible bounce up to the cap; the rest, and
// every other body, passes without being stored.
func (s *session) BodyChunk(chunk []byte, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stBody, time.Now())
	defer s.guard(stBody, &resp, &err)
	msg := &s.msg
	if msg.route.Candidate && !msg.truncated {
		room := msg.cfg.ParseCap - len(msg.buf)
		if len(chunk) > room {
			chunk = chunk[:room]
			msg.truncated = true
		}
		if msg.buf == nil {
			msg.buf = make([]byte, 0, min(msg.cfg.ParseCap, 64<<10))
		}
		msg.buf = append(msg.buf, chunk...)
	}
	return gomilter.RespContinue, nil
}

// Abort forgets the message; the connection facts stay.
func (s *session) Abort(m *gomilter.Modifier) (err error) {
	defer s.guard(stAbort, nil, &err)
	s.reset()
	return nil
}

// Body ends the message: outbound mail is recorded, inbound X-NDR-* headers
// are deleted, and a bounce is read, judged and annotated.
func (s *session) Body(m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stEOM, time.Now())
	defer s.guard(stEOM, &resp, &err)
	msg := &s.msg
	if msg.cfg == nil || msg.failed {
		return gomilter.RespContinue, nil
	}
	if q := m.Macros["i"]; q != "" {
		msg.queueID = q
	}
	// A bounce from inside (Postfix's own, or an internal server's) to our
	// own users is explained like one from outside.
	msg.route = msg.route.WithRecipients(msg.cfg.site, msg.rcpts)
	if msg.route.Outbound() {
		s.srv.metrics.CountOutbound()
		s.srv.rec.Record(ledger.Record{MessageID: msg.messageID, QueueID: msg.queueID, Sender: msg.from,
			Recipients: msg.rcpts, Time: msg.start}, string(msg.route.Why), msg.cfg.recordPolicy())
		return gomilter.RespContinue, nil
	}

	out := s.inbound(msg)
	// Everything is decided: now write. A failure to write means the
	// connection is gone; nothing can be let through or held any more.
	for _, h := range out.Delete {
		if err := m.ChangeHeader(h.Index, h.Name, ""); err != nil {
			return nil, err
		}
	}
	for _, h := range out.Change {
		if err := m.ChangeHeader(h.Index, h.Name, h.Value); err != nil {
			return nil, err
		}
	}
	for _, h := range out.Add {
		if err := m.AddHeader(h.Name, h.Value); err != nil {
			return nil, err
		}
	}
	if out.Body != nil {
		if err := m.ReplaceBody(out.Body); err != nil {
			return nil, err
		}
	}
	switch out.Action {
	case decide.ActionQuarantine:
		if err := m.Quarantine(out.Quarantine); err != nil {
			return nil, err
		}
	case decide.ActionReject:
		return gomilter.NewResponseStr('y', out.Reply.String()), nil
	case decide.ActionDiscard:
		return gomilter.RespDiscard, nil
	}
	return gomilter.RespContinue, nil
}

// inbound gathers the facts of an inbound message and hands them to the
// shared reader, which reads, explains and judges a possible bounce,
// decides, and logs and counts the decision.
func (s *session) inbound(msg *message) decide.Outcome {
	cfg := msg.cfg
	f := decide.Facts{
		QueueID:    msg.queueID,
		Recipients: msg.rcpts,
		Inside:     msg.route.Inside,
		NullSender: msg.route.NullSender,
		Subject:    msg.subject,
		HasSubject: msg.hasSubj,
		Incoming:   msg.ndr,
		Raw:        msg.buf,
		Truncated:  msg.truncated,
	}
	r := frontend.Reader{Rules: s.srv.engine(), Ledger: s.srv.lookups, Site: cfg.site, Policy: cfg.policy(),
		LookupTimeout: cfg.LookupTimeout, Metrics: s.srv.metrics, Log: s.srv.log}
	return r.Inbound(f, msg.route.Candidate, msg.start)
}
