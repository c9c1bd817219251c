package milter

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/textproto"
	"runtime/debug"
	"strings"
	"time"

	gomilter "github.com/emersion/go-milter"
	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Limits on what one message can make the session keep.
const (
	maxRcpts      = 1000 // envelope recipients remembered (for the ledger and the verdict)
	maxNDRHeaders = 100  // incoming X-NDR-* headers deleted; more are left (and logged)
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
	cfg      *Config
	start    time.Time
	from     string
	outbound bool
	why      string // why outbound: auth, trusted-network, local
	inside   bool   // a bounce from inside to our own users (e.g. Postfix's own)
	queueID  string
	rcpts    []string

	candidate bool // not authenticated, and the envelope sender says it may be a bounce
	messageID string
	subject   string
	hasSubj   bool
	ndr       []ndrHeader
	counts    map[string]int // occurrences of X-NDR-* and Subject names, lower case

	buf       []byte // header and body kept for parsing, up to cfg.ParseCap
	truncated bool

	failed bool // a panic happened: let the message through unchanged

	busy time.Duration // time spent in callbacks for this message
}

// ndrHeader is an incoming X-NDR-* header: its name as sent and its index
// among the headers of that name (1-based, case-insensitive), as
// SMFIR_CHGHEADER wants.
type ndrHeader struct {
	name  string
	index int
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
	s.srv.metrics.cb[st].Observe(d.Seconds())
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
	switch {
	case m.Macros["{auth_authen}"] != "":
		s.msg.outbound, s.msg.why = true, "auth"
	case haveClient && cfg.trusted(client):
		s.msg.outbound, s.msg.why = true, "trusted-network"
	case !haveClient && s.local:
		// Connected over a local socket or with an unknown address family:
		// Postfix's own submissions. (Postfix presents sendmail and pickup
		// submissions as coming from 127.0.0.1, which the default trusted
		// networks cover.) A session that saw no Connect at all is one
		// go-milter made after a reject or discard on an inbound connection
		// whose MAIL FROM macros lack {client_addr}: it stays inbound, the
		// safe side, since inbound processing only adds headers.
		s.msg.outbound, s.msg.why = true, "local"
	}
	// A bounce may come from a trusted or local client too: Postfix's own
	// bounces (internal_mail_filter_classes = bounce) or an internal relay's.
	// It is kept for parsing; end of message decides by its recipients.
	if s.msg.why != "auth" {
		s.msg.candidate = s.msg.from == "" || isReportSender(s.msg.from)
	}
	s.msg.counts = make(map[string]int)
	return gomilter.RespContinue, nil
}

// isReportSender reports whether addr's local part is one that sends
// delivery reports with a non-null envelope sender.
func isReportSender(addr string) bool {
	local, _, _ := strings.Cut(addr, "@")
	switch local {
	case "mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon":
		return true
	}
	return false
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
	if msg.outbound && !msg.candidate {
		return gomilter.RespContinue, nil
	}
	switch {
	case strings.HasPrefix(lname, hdrPrefix):
		msg.counts[lname]++
		if len(msg.ndr) < maxNDRHeaders {
			msg.ndr = append(msg.ndr, ndrHeader{name: name, index: msg.counts[lname]})
		}
	case lname == "subject":
		msg.counts[lname]++
		if !msg.hasSubj {
			msg.hasSubj, msg.subject = true, value
		}
	}
	if msg.candidate && !msg.truncated {
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
	if s.msg.candidate && !s.msg.truncated {
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
	if msg.candidate && !msg.truncated {
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
	if msg.outbound && msg.candidate && msg.cfg.allOurs(msg.rcpts) {
		// A bounce from inside (Postfix's own, or an internal server's) to
		// our own users: it is explained like one from outside.
		msg.outbound, msg.inside = false, true
	}
	if msg.outbound {
		s.srv.metrics.Messages.WithLabelValues("outbound").Inc()
		s.srv.record(ledger.Record{MessageID: msg.messageID, QueueID: msg.queueID, Sender: msg.from,
			Recipients: msg.rcpts, Time: msg.start}, msg.why)
		return gomilter.RespContinue, nil
	}

	out := s.inbound(msg)
	// Everything is decided: now write. A failure to write means the
	// connection is gone; nothing can be let through or held any more.
	for i := len(msg.ndr) - 1; i >= 0; i-- {
		h := msg.ndr[i]
		if err := m.ChangeHeader(h.index, h.name, ""); err != nil {
			return nil, err
		}
	}
	for _, h := range out.change {
		if err := m.ChangeHeader(h.index, h.name, h.value); err != nil {
			return nil, err
		}
	}
	for _, h := range out.add {
		if err := m.AddHeader(h.name, h.value); err != nil {
			return nil, err
		}
	}
	if out.body != nil {
		if err := m.ReplaceBody(out.body); err != nil {
			return nil, err
		}
	}
	if out.quarantine != "" {
		if err := m.Quarantine(out.quarantine); err != nil {
			return nil, err
		}
	}
	if out.resp != nil {
		return out.resp, nil
	}
	return gomilter.RespContinue, nil
}

// header is a header to add or change.
type header struct {
	name, value string
	index       int
}

// outcome is what end of message does to an inbound message.
type outcome struct {
	change     []header
	add        []header
	body       []byte
	quarantine string
	resp       gomilter.Response // nil: continue (accept)
}

// inbound reads a possible bounce and decides the outcome.
func (s *session) inbound(msg *message) outcome {
	var out outcome
	if !msg.candidate {
		s.srv.metrics.Messages.WithLabelValues("inbound").Inc()
		return out
	}
	rep, perr := dsn.Parse(msg.buf)
	if rep == nil || (rep.Kind != dsn.KindBounce && rep.Kind != dsn.KindDelay) {
		s.srv.metrics.Messages.WithLabelValues("inbound").Inc()
		return out
	}
	s.srv.metrics.Messages.WithLabelValues("bounce").Inc()
	cfg := msg.cfg
	readings := s.srv.engine().Explain(rep)
	shown := pickReadings(readings, cfg.MaxRecipientHeaders)
	win := shown[0]
	owner := validOwner(win.Owner)

	j := judge(context.Background(), cfg, s.srv.ledger, s.srv.metrics, rep, msg.rcpts)
	s.srv.metrics.Verdicts.WithLabelValues(string(j.Verdict), j.Evidence).Inc()
	s.srv.metrics.Bounces.WithLabelValues(string(rep.Kind), labelReason(win.Reason), owner).Inc()

	action := "none"
	if j.Verdict == VerdictYes {
		act := cfg.BackscatterAction
		if msg.inside && (act == ActionReject || act == ActionDiscard) {
			// A bounce written inside (Postfix's own, with
			// internal_mail_filter_classes = bounce) is refused inside
			// Postfix's cleanup: the original then stays deferred and its
			// sender is never told. Such a bounce is tagged instead.
			act = ActionTag
		}
		action = string(act)
		s.srv.metrics.Actions.WithLabelValues(action).Inc()
	}
	defer func() {
		fields := []zap.Field{
			zap.String("queue_id", textclean.Line(msg.queueID, 64)),
			zap.Strings("recipients", msg.rcpts),
			zap.String("kind", string(rep.Kind)),
			zap.String("status", win.Status),
			zap.String("reason", win.Reason),
			zap.String("owner", owner),
			zap.String("failed_recipient", textclean.Line(win.Recipient.Address, 320)),
			zap.String("verdict", string(j.Verdict)),
			zap.String("evidence", j.Evidence),
			zap.String("action", action),
			zap.Float64("ms", float64(time.Since(msg.start).Microseconds())/1000),
		}
		if j.Err != nil {
			fields = append(fields, zap.NamedError("ledger_error", j.Err))
		}
		if perr != nil {
			fields = append(fields, zap.NamedError("parse_error", perr))
		}
		if msg.truncated {
			fields = append(fields, zap.Bool("truncated", true))
		}
		s.srv.log.Info("bounce", fields...)
	}()

	if j.Verdict == VerdictYes {
		switch Action(action) {
		case ActionReject:
			out.resp = gomilter.NewResponseStr('y', "550 5.7.1 Rejected as backscatter: this is a bounce for a message that was not sent from here")
			return out
		case ActionDiscard:
			out.resp = gomilter.RespDiscard
			return out
		case ActionQuarantine:
			out.quarantine = "ndrmilter: backscatter (" + j.String() + ")"
		}
	}

	out.add = append(out.add,
		header{name: hdrBackscatter, value: fold(hdrBackscatter, j.String())},
		header{name: hdrOwner, value: owner})
	for _, r := range shown {
		st := r.Status
		if st == "" {
			st = "none"
		}
		v := statusValue("status", st, "reason", r.Reason, "recipient", r.Recipient.Address,
			"permanent", yesNo(r.Permanent), "owner", validOwner(r.Owner), "action", r.Recipient.Action)
		out.add = append(out.add, header{name: hdrStatus, value: fold(hdrStatus, v)})
	}
	for _, r := range shown {
		out.add = append(out.add, header{name: hdrExplanation, value: fold(hdrExplanation, explanation(r))})
	}
	if more := len(readings) - len(shown); more > 0 && len(shown) == cfg.MaxRecipientHeaders {
		t := fmt.Sprintf("%d more recipients are reported in this message and not shown here.", more)
		out.add = append(out.add, header{name: hdrExplanation, value: fold(hdrExplanation, t)})
	}
	if cfg.SubjectTag {
		summary := textclean.Line(win.Summary, 80)
		if summary == "" {
			summary = "delivery failed"
			if rep.Kind == dsn.KindDelay {
				summary = "delivery delayed"
			}
		}
		tag := "[Bounce: " + summary + "]"
		if msg.hasSubj {
			out.change = append(out.change, header{name: "Subject", index: 1,
				value: fold("Subject", textclean.Unstructured(tag)+" "+unfold(msg.subject))})
		} else {
			out.add = append(out.add, header{name: "Subject", value: fold("Subject", textclean.Unstructured(tag))})
		}
	}
	if cfg.BodySummary && !msg.truncated {
		out.body = withSummary(msg.buf, summaryText(shown, j))
	}
	return out
}

// pickReadings returns the readings to show, failed first then delayed
// then the rest, each group in report order, at most max.
func pickReadings(rs []rules.Reading, max int) []rules.Reading {
	out := make([]rules.Reading, 0, min(len(rs), max))
	for _, group := range []int{0, 1, 2} {
		for _, r := range rs {
			g := 2
			switch r.Recipient.Action {
			case "failed":
				g = 0
			case "delayed":
				g = 1
			}
			if g == group && len(out) < max {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, rules.Reading{Verdict: rules.Verdict{Owner: rules.OwnerUnknown, Reason: "undefined"}})
	}
	return out
}

func validOwner(o string) string {
	switch o {
	case rules.OwnerSender, rules.OwnerSenderAdmin, rules.OwnerRecipientAdmin, rules.OwnerGroupOwner, rules.OwnerNone, rules.OwnerUnknown:
		return o
	}
	return rules.OwnerUnknown
}

// labelReason keeps a metric label within a sane alphabet and length.
func labelReason(r string) string {
	if r == "" {
		return "undefined"
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') || i > 40 {
			return "other"
		}
	}
	return r
}

// explanation is the X-NDR-Explanation text of one reading.
func explanation(r rules.Reading) string {
	text := textclean.Line(r.Explanation, maxText)
	if text == "" {
		text = "Delivery failed"
		if r.Recipient.Action == "delayed" {
			text = "Delivery is delayed"
		}
		if r.Status != "" {
			text += " with status " + textclean.Line(r.Status, 16)
		}
		text += "; no explanation is known for it."
	}
	if fix := textclean.Line(r.Fix, maxText); fix != "" {
		text += " " + fix
	}
	if a := textclean.Line(r.Recipient.Address, 320); a != "" {
		text = a + ": " + text
	}
	return textclean.Unstructured(text)
}

// unfold joins a folded header value into one line.
func unfold(v string) string {
	v = strings.ReplaceAll(v, "\r", "")
	v = strings.ReplaceAll(v, "\n", "")
	return strings.ReplaceAll(v, "\x00", "")
}
