package milter

import (
	"bytes"
	"errors"
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

// Limits on what one message can make the session keep and do.
const (
	maxRcpts = frontend.MaxRecipients // envelope recipients remembered (for the ledger and the verdict)
	// maxNDRFields bounds the X-NDR-* fields of one message the milter
	// deletes: each is a packet, and Postfix looks the field up from the
	// start of the header for each one (Postfix 3.7 here: 0.5 s for 1000,
	// 3.8 s for 5000, 10.7 s for 10,000). A message with more gets a
	// temporary failure: never delivered with one of them left.
	maxNDRFields = 1000
	// maxReplyChunk bounds one body replacement packet: libmilter and
	// go-milter's client refuse packets over 1 MiB; Postfix sends body
	// chunks of at most 64 KiB, and so does the milter.
	maxReplyChunk = gomilter.MaxBodyChunk
)

// Temporary failures, as SMTP replies (RFC 3463: 4.7.0 other security
// or policy status, 4.3.4 message too big for system).
var (
	replyNDRFields   = "451 4.7.0 Too many X-NDR-* header fields, try again later"
	replyHeaderLimit = "451 4.3.4 Message header too large for the mail filter, try again later"
)

// session is one milter connection's state. go-milter makes a new session
// after a final response (accept, reject, discard, tempfail), so Body
// returns Continue on every path that keeps the message, and the facts of
// the connection are also read again from the MAIL FROM macros, which the
// Server asks Postfix for with SymList.
type session struct {
	srv *Server
	c   *conn // the connection, and its facts

	msg message
}

// message is the state of the message in progress; MailFrom and Abort reset it.
type message struct {
	cfg     *Config
	start   time.Time
	from    string
	rawFrom string       // the envelope sender as the client wrote it, for BATV
	route   decide.Route // outbound or inbound, and whether it may be a bounce
	queueID string
	rcpts   []string
	// rawRcpts are rcpts as the client wrote them, for BATV.
	rawRcpts []string
	// received are rcpts as received, BATV tags included, when
	// plainRecipients rewrote one of them in rcpts.
	received []string
	// autoReply: an inbound message the header marks as an automatic
	// reply, kept for reading (keepAutoReply).
	autoReply bool

	messageID string
	subject   string
	hasSubj   bool
	ndr       []decide.Header // incoming X-NDR-* fields: name as sent, index among that name's fields
	counts    map[string]int  // occurrences of X-NDR-* and Subject names, lower case

	headerBytes int  // of the header fields so far (go-milter keeps them until the message ends)
	text        kept // header and body kept for parsing, up to cfg.ParseCap
	truncated   bool
	unread      bool // over the budget: the message passes unread

	failed bool // a panic happened: let the message through unchanged

	// refusal: the message gets a temporary failure at the end of its
	// header (frontend.Tempfail* reason and the SMTP reply), "" if not.
	refusal, refusalReply string

	busy time.Duration // time spent in callbacks for this message
}

// reset forgets the message and gives back what it held of the budget.
func (s *session) reset() {
	s.msg = message{}
	if s.c != nil {
		s.c.hold.Release()
	}
}

// hold makes the message's share of the budget cover the header fields
// go-milter keeps and the text kept; over the budget, the message passes
// unread and the text is dropped.
func (s *session) hold() {
	msg := &s.msg
	if msg.unread || s.c == nil {
		return
	}
	if !s.c.hold.Grow(msg.headerBytes + msg.text.size()) {
		msg.unread, msg.text, msg.truncated = true, kept{}, true
	}
}

// tempfail ends the message with a temporary failure, counted and logged:
// the MTA keeps it and the client tries again later.
func (s *session) tempfail(reason, reply string) gomilter.Response {
	s.srv.metrics.Tempfails.WithLabelValues(reason).Inc()
	s.srv.log.Warn("message refused for now: "+reply, zap.String("queue_id", s.msg.queueID),
		zap.String("reason", reason), zap.Int("header_bytes", s.msg.headerBytes), zap.Int("ndr_fields", len(s.msg.ndr)))
	s.reset()
	return gomilter.NewResponseStr('y', reply)
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
			if st == stHeader {
				*resp = s.headerReply()
			}
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
	c := s.c
	c.connSeen = true
	switch family {
	case "tcp4", "tcp6":
		if ip, ok := netip.AddrFromSlice(addr); ok {
			c.client = ip.Unmap()
		}
	default:
		c.local = true
	}
	if a, ok := macroAddr(m.Macros); ok {
		c.client = a
		c.local = false
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
	s.msg = message{cfg: cfg, start: time.Now(), from: ledger.NormalizeAddress(from), rawFrom: strings.Trim(from, "<>")}
	s.msg.queueID = m.Macros["i"]
	s.c.stray = 0
	client, haveClient := macroAddr(m.Macros)
	if !haveClient && s.c.client.IsValid() {
		client, haveClient = s.c.client, true
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
		o.Local = s.c.local
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
			s.msg.rawRcpts = append(s.msg.rawRcpts, strings.Trim(rcptTo, "<>"))
		}
	}
	if s.msg.queueID == "" {
		s.msg.queueID = m.Macros["i"]
	}
	return gomilter.RespContinue, nil
}

// Header notes Message-ID, Subject and X-NDR-* headers, and keeps the
// header of a possible bounce for parsing. Postfix expects no reply to a
// header field when it offers not to (protocolFor): a header section over
// frontend.MaxHeaderBytes, or with more X-NDR-* fields than the milter can
// delete, gets a temporary failure at the end of the header (Headers).
func (s *session) Header(name string, value string, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stHeader, time.Now())
	defer s.guard(stHeader, &resp, &err)
	msg := &s.msg
	size := len(name) + len(value) + 4
	if msg.cfg == nil {
		// Outside a message (after a temporary failure, or before MAIL):
		// go-milter still keeps the field until the next message.
		if s.c.stray += size; s.c.stray > frontend.MaxHeaderBytes {
			return nil, errors.New("milter: header fields sent outside a message: closing the connection")
		}
		return s.headerReply(), nil
	}
	if msg.headerBytes += size; msg.headerBytes > frontend.MaxHeaderBytes {
		// go-milter keeps every field until the message ends: a client
		// that goes on past twice the limit is cut off.
		if msg.headerBytes > 2*frontend.MaxHeaderBytes {
			return nil, errors.New("milter: header over twice the limit after the temporary failure: closing the connection")
		}
		s.refuse(frontend.TempfailHeaderLimit, replyHeaderLimit)
		return s.headerReply(), nil
	}
	lname := strings.ToLower(name)
	if lname == "message-id" && msg.messageID == "" {
		msg.messageID = ledger.NormalizeMessageID(value)
	}
	switch {
	case decide.IsNDRHeader(lname):
		// On every message, outbound too (decide.Outbound).
		if len(msg.ndr) == maxNDRFields {
			s.refuse(frontend.TempfailNDRFields, replyNDRFields)
			return s.headerReply(), nil
		}
		msg.counts[lname]++
		msg.ndr = append(msg.ndr, decide.Header{Name: name, Index: msg.counts[lname]})
	case lname == "subject":
		msg.counts[lname]++
		if !msg.hasSubj {
			msg.hasSubj, msg.subject = true, value
		}
	}
	if msg.route.Candidate && !msg.truncated && !msg.unread {
		msg.keep(name, ": ", value, "\r\n")
	}
	s.hold()
	return s.headerReply(), nil
}

// headerReply is the answer to a header field: none when the MTA waits
// for none (gomilter.OptNoHeaderReply negotiated; go-milter writes no
// packet for a nil Response), else continue.
func (s *session) headerReply() gomilter.Response {
	if s.c.proto&gomilter.OptNoHeaderReply != 0 {
		return nil
	}
	return gomilter.RespContinue
}

// refuse marks the message for a temporary failure at the end of its
// header, the first reason kept, and lets go of what it holds: nothing more
// of it is kept.
func (s *session) refuse(reason, reply string) {
	msg := &s.msg
	if msg.refusal == "" {
		msg.refusal, msg.refusalReply = reason, reply
	}
	msg.unread, msg.text, msg.truncated = true, kept{}, true
	if s.c != nil {
		s.c.hold.Release()
	}
}

// keep appends parts to the parse text while it is under the cap.
func (msg *message) keep(parts ...string) {
	for _, p := range parts {
		room := msg.cfg.ParseCap - msg.text.size()
		if len(p) > room {
			msg.text.addString(p[:room])
			msg.truncated = true
			return
		}
		msg.text.addString(p)
	}
}

// Headers ends the header: a message refused in Header gets its temporary
// failure, and one that needs nothing more is accepted (needsRest).
func (s *session) Headers(h textproto.MIMEHeader, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stEOH, time.Now())
	defer s.guard(stEOH, &resp, &err)
	msg := &s.msg
	if msg.refusal != "" {
		return s.tempfail(msg.refusal, msg.refusalReply), nil
	}
	if msg.route.Candidate && !msg.truncated && !msg.unread {
		msg.keep("\r\n")
	} else {
		msg.keepAutoReply(h)
		s.hold()
	}
	if msg.queueID == "" {
		msg.queueID = m.Macros["i"]
	}
	if msg.cfg != nil && !msg.failed && !s.needsRest() {
		// Counted as end of message would count it.
		s.srv.metrics.Messages.WithLabelValues("inbound").Inc()
		s.reset()
		return gomilter.RespAccept, nil
	}
	return gomilter.RespContinue, nil
}

// needsRest reports whether the milter needs the body and the end of the
// message, as the header ends: for outbound mail (recorded at the end of
// the message), a possible bounce (read whole), a message with X-NDR-*
// fields to delete (done at the end of the message, the only stage where
// the protocol allows changes), an automatic reply kept to be judged
// (keepAutoReply), and one with a recipient BATV rewrites
// (rewritesRecipients). Any other message is accepted
// at the end of its header: Postfix then sends this milter neither its body
// nor its end, and no abort.
func (s *session) needsRest() bool {
	msg := &s.msg
	route := msg.route.WithRecipients(msg.cfg.site, msg.rcpts)
	return route.Outbound() || route.Candidate || msg.keeps() || len(msg.ndr) > 0 || msg.rewritesRecipients()
}

// BodyChunk keeps the body of a possible bounce up to the cap; the rest, and
// every other body, passes without being stored. When the MTA takes
// SMFIR_SKIP, it is asked for no more chunks of a body the milter does not
// read: neither a bounce nor outbound mail, or a bounce past the cap.
func (s *session) BodyChunk(chunk []byte, m *gomilter.Modifier) (resp gomilter.Response, err error) {
	defer s.observe(stBody, time.Now())
	defer s.guard(stBody, &resp, &err)
	msg := &s.msg
	if msg.cfg == nil {
		return gomilter.RespContinue, nil
	}
	if msg.keeps() {
		room := msg.cfg.ParseCap - msg.text.size()
		if len(chunk) > room {
			chunk = chunk[:room]
			msg.truncated = true
		}
		msg.text.adopt(chunk)
		s.hold()
	}
	if s.c.mtaOffer&gomilter.OptSkip != 0 && !s.needsBody() {
		return skipBody{}, nil
	}
	return gomilter.RespContinue, nil
}

// needsBody reports whether the milter reads the rest of the message's
// body: a possible bounce's, up to the parse cap, and outbound mail's.
func (s *session) needsBody() bool {
	msg := &s.msg
	if msg.route.Outbound() {
		return true
	}
	return msg.keeps()
}

// Abort forgets the message; the connection facts stay.
func (s *session) Abort(m *gomilter.Modifier) (err error) {
	defer s.guard(stAbort, nil, &err)
	s.reset()
	s.c.stray = 0
	return nil
}

// Body ends the message: outbound mail is recorded, X-NDR-* headers from
// outside are deleted, and a bounce is read, judged and annotated.
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
	var out decide.Outcome
	if msg.route.Outbound() {
		s.srv.metrics.CountOutbound()
		s.srv.rec.Record(ledger.Record{MessageID: msg.messageID, QueueID: msg.queueID, Sender: msg.from,
			Recipients: msg.rcpts, Time: msg.start}, string(msg.route.Why), msg.cfg.recordPolicy())
		out = decide.Outbound(msg.cfg.site, decide.Facts{Recipients: msg.rcpts, Incoming: msg.ndr})
		if err := msg.signSender(m); err != nil {
			return nil, err
		}
	} else {
		if err := msg.plainRecipients(m); err != nil {
			return nil, err
		}
		out = s.inbound(msg)
	}
	if len(out.Delete) > 0 {
		s.srv.metrics.NDRFieldsRemoved.Add(float64(len(out.Delete)))
		s.srv.log.Info("X-NDR-* fields removed: ndrmilter did not write them", zap.String("queue_id", msg.queueID),
			zap.Int("fields", len(out.Delete)), zap.Bool("outbound", msg.route.Outbound()))
	}
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
		if err := replaceBody(m, out.Body); err != nil {
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

// replaceBody sends the new body in packets of at most maxReplyChunk
// bytes: the milter protocol appends each SMFIR_REPLBODY to the one before
// (libmilter's smfi_replacebody), and no MTA takes a packet over 1 MiB. A
// chunk ends after a line end where one is near, and never between a CR
// and its LF: go-milter turns CRLF into LF in each packet, as Postfix wants.
func replaceBody(m *gomilter.Modifier, body []byte) error {
	for len(body) > 0 {
		n := min(len(body), maxReplyChunk)
		if n < len(body) {
			if i := bytes.LastIndexByte(body[:n], '\n'); i >= n/2 {
				n = i + 1
			} else if body[n-1] == '\r' {
				n--
			}
		}
		if err := m.ReplaceBody(body[:n]); err != nil {
			return err
		}
		body = body[n:]
	}
	return nil
}

// inbound gathers the facts of an inbound message and hands them to the
// shared reader, which reads, explains and judges a possible bounce,
// decides, and logs and counts the decision. A message over the budget
// passes unread: its X-NDR-* fields are still deleted.
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
		Truncated:  msg.truncated,
	}
	r := frontend.Reader{Rules: s.srv.engine(), Ledger: s.srv.lookups, Site: cfg.site, Policy: cfg.policy(),
		LookupTimeout: cfg.LookupTimeout, Metrics: s.srv.metrics, Log: s.srv.log, Budget: s.srv.budget,
		Text: msg.text.bytes, Privacy: cfg.LogAddresses}
	evidenceReader(&r, msg)
	return r.Inbound(f, msg.route.Candidate && !msg.unread, msg.start)
}
