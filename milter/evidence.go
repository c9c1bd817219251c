package milter

import (
	"net/textproto"
	"slices"
	"sort"
	"strings"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// The milter's part in the evidence beyond bounces (frontend.Evidence):
// keeping an automatic reply for reading, signing the envelope sender of
// outbound mail with BATV (change-from) and giving a report to a prvs=
// address with a valid tag to the plain address (delete and add recipient).

// batvActions are the actions BATV needs, negotiated only when it is on:
// Postfix 3.7 grants change-from to go-milter's protocol 2 (see
// DEVELOPERS.md), but a milter client that cannot grant it would refuse the
// whole negotiation.
const batvActions = gomilter.OptChangeFrom | gomilter.OptAddRcpt | gomilter.OptRemoveRcpt

// actions are the milter actions asked for: BATV's only when it is on.
func (s *Server) actions() gomilter.OptAction {
	a := baseActions
	if cfg := s.config(); cfg.Evidence != nil && cfg.Evidence.BATV != nil {
		a |= batvActions
	}
	return a
}

// rewritesRecipients reports whether the end of the message may give a
// prvs= recipient its plain address (plainRecipients): BATV is on, the
// sender is null and a recipient is in the signed form. Such a message is
// not accepted at the end of its header (needsRest).
func (msg *message) rewritesRecipients() bool {
	ev := msg.cfg.Evidence
	if ev == nil || ev.BATV == nil || !msg.route.NullSender {
		return false
	}
	for _, r := range msg.rawRcpts {
		if _, _, ok := batv.Split(r); ok {
			return true
		}
	}
	return false
}

// keepAutoReply starts keeping an inbound message that is not a possible
// report but whose header marks it as an automatic reply
// (frontend.MarkedAutoReply), so that it is judged by what it answers. The
// header, as go-milter gathered it by the end of the header, is written
// into the kept text (names sorted: their order does not matter to the
// reading), and the body is kept as for a report.
func (msg *message) keepAutoReply(h textproto.MIMEHeader) {
	if msg.cfg == nil || msg.route.Candidate || msg.route.Why != decide.WhyInbound || msg.unread || msg.truncated {
		return
	}
	if !mayMarkAutoReply(h) {
		return // ordinary mail: no copy of its header
	}
	var b strings.Builder
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range h[name] {
			v = strings.ReplaceAll(strings.ReplaceAll(v, "\r\n", "\n"), "\n", "\r\n")
			b.WriteString(name + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	if !frontend.MarkedAutoReply([]byte(b.String())) {
		return
	}
	msg.autoReply = true
	msg.keep(b.String())
}

// keeps reports whether the text of the message is kept for reading.
func (msg *message) keeps() bool {
	return (msg.route.Candidate || msg.autoReply) && !msg.truncated && !msg.unread
}

// signSender changes the envelope sender of an outbound message to its
// BATV-signed form, when the sender signs and no recipient is exempt.
func (msg *message) signSender(m *gomilter.Modifier) error {
	ev := msg.cfg.Evidence
	if ev == nil || ev.BATV == nil {
		return nil
	}
	signed, ok := ev.BATV.SignedSender(msg.cfg.site, msg.rawFrom, msg.rcpts)
	if !ok {
		return nil
	}
	return m.ChangeFrom("<" + signed + ">")
}

// plainRecipients gives a null-sender message to a prvs= address with a
// valid tag of ours to the plain address: the tagged recipient is deleted
// and the plain one added. msg.rcpts become the plain addresses, as the
// decision sees them, and msg.received keeps them as received.
func (msg *message) plainRecipients(m *gomilter.Modifier) error {
	ev := msg.cfg.Evidence
	if ev == nil || ev.BATV == nil || !msg.route.NullSender {
		return nil
	}
	var plain []string
	for i, r := range msg.rcpts {
		p, ok := ev.BATV.PlainRecipient(msg.cfg.site, r)
		if !ok {
			continue
		}
		// go-milter puts the angle brackets around the address.
		if err := m.DeleteRecipient(msg.rawRcpts[i]); err != nil {
			return err
		}
		if _, rawPlain, ok := batv.Split(msg.rawRcpts[i]); ok {
			p = rawPlain // as the client wrote it
		}
		if err := m.AddRecipient(p); err != nil {
			return err
		}
		if plain == nil {
			plain = slices.Clone(msg.rcpts)
		}
		plain[i] = ledger.NormalizeAddress(p)
	}
	if plain != nil {
		msg.received, msg.rcpts = msg.rcpts, plain
	}
	return nil
}

// evidenceReader adds the site's evidence, and the recipients as received,
// to a Reader.
func evidenceReader(r *frontend.Reader, msg *message) {
	r.Evidence, r.Received = msg.cfg.Evidence, msg.received
	r.AutoReplyOnly = msg.autoReply && !msg.unread
}

// autoReplyFields are the fields one of which dsn.MarkedAutoReply needs,
// in textproto's canonical form.
var autoReplyFields = []string{"Auto-Submitted", "X-Autoreply", "X-Autorespond", "X-Autoresponder",
	"X-Vacation", "Precedence", "X-Auto-Response-Suppress"}

// mayMarkAutoReply reports whether h has a field that may mark the message
// as an automatic reply: a look-up per name, so that ordinary mail costs no
// copy of its header.
func mayMarkAutoReply(h textproto.MIMEHeader) bool {
	for _, name := range autoReplyFields {
		if _, ok := h[name]; ok {
			return true
		}
	}
	return false
}
