package filter

import (
	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// The filter's part in the evidence beyond bounces (frontend.Evidence), the
// same as the milter's: an inbound message its header marks as an
// automatic reply is kept and judged by what it answers; with BATV, the
// MAIL FROM of outbound mail is signed, and a null-sender message to a
// prvs= address with a valid tag goes on to the plain address (RCPT
// rewritten).

// evidenceState is what a transaction keeps for the evidence beyond bounces.
type evidenceState struct {
	// pending is the MAIL of an outbound message whose sender BATV signs,
	// held until the first RCPT, so that an exempt destination leaves
	// unsigned.
	pending *pendingMail
	// received are the recipients as received, BATV tags included, once
	// one of them went on rewritten (nil: as s.rcpts).
	received []string
}

// pendingMail is a MAIL command not yet sent to the next hop.
type pendingMail struct {
	from string
	opts *smtp.MailOptions
}

// holdsMail reports whether the MAIL of an outbound message from from waits
// for its first recipient: BATV is on and signs that sender.
func holdsMail(cfg *Config, route decide.Route, from string) bool {
	ev := cfg.Evidence
	return ev != nil && ev.BATV != nil && route.Outbound() && ev.BATV.Signs(cfg.site, from)
}

// sendPendingMail sends the held MAIL to the next hop, its sender signed
// unless rcpt, the first recipient, is an exempt destination. Only the first
// recipient is known then: a later one that is exempt gets the signed
// sender too (the milter, which sees them all at the end of the message,
// leaves such a message unsigned).
func (s *session) sendPendingMail(rcpt string) error {
	p := s.ev.pending
	s.ev.pending = nil
	from := p.from
	if signed, ok := s.cfg.Evidence.BATV.SignedSender(s.cfg.site, p.from, []string{rcpt}); ok {
		from = signed
	}
	if err := s.mailNext(from, p.opts); err != nil {
		s.open = false
		s.c.inTx.Store(false)
		return err
	}
	return nil
}

// nextRecipient is the recipient sent to the next hop for to: the plain
// address of a null-sender message to a prvs= address with a valid tag of
// ours, else to itself. It notes the recipients as received.
func (s *session) nextRecipient(to string) string {
	ev := s.cfg.Evidence
	if ev == nil || ev.BATV == nil || !s.route.NullSender || s.route.Outbound() {
		return to
	}
	plain, ok := ev.BATV.PlainRecipient(s.cfg.site, ledger.NormalizeAddress(to))
	if !ok {
		return to
	}
	if _, rawPlain, split := batv.Split(to); split {
		plain = rawPlain // as the client wrote it
	}
	if s.ev.received == nil {
		s.ev.received = append([]string{}, s.rcpts...)
	}
	return plain
}

// noteReceived adds a recipient, as received, to the list of those kept
// once one was rewritten.
func (s *session) noteReceived(to string) {
	if s.ev.received != nil && len(s.ev.received) < frontend.MaxRecipients {
		if a := ledger.NormalizeAddress(to); a != "" {
			s.ev.received = append(s.ev.received, a)
		}
	}
}

// keepsAutoReply reports whether an inbound message that is not a possible
// report is kept for reading: its header (h) marks it as an automatic reply.
func keepsAutoReply(route decide.Route, h *head) bool {
	return !route.Candidate && !route.Outbound() && !h.oversize && frontend.MarkedAutoReply(h.raw[:h.bodyAt])
}
