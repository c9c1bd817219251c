package frontend

import (
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// Evidence is the backscatter evidence a site turned on beyond the ledger's
// Message-IDs, queue ids and pairs (package backscatter): receive-only
// addresses, BATV tags and DKIM signatures. The zero Evidence turns none on;
// automatic replies are judged by what they answer whenever there is a
// ledger. Both front ends read it through a Reader, and BATV signs and
// strips tags in both.
type Evidence struct {
	// Retention is the ledger's retention period: an automatic reply is
	// judged yes, and a receive-only address learned, only once the ledger
	// is at least that old (backscatter.Judge.Retention).
	Retention time.Duration
	// ReceiveOnly are addresses of ours that never send mail (normalized:
	// ledger.NormalizeAddress).
	ReceiveOnly []string
	// LearnReceiveOnly: an address of ours that sent nothing within the
	// retention period, in a ledger that covers it, never sends either.
	LearnReceiveOnly bool
	// BATV, when set, signs the envelope sender of outbound mail and
	// verifies the tags of inbound reports.
	BATV *BATV
	// DKIM are our DKIM public keys: a report quoting an original whose
	// header carries a valid signature of one of them is no backscatter.
	DKIM []backscatter.DKIMKey
}

// BATV is the BATV configuration of a front end (package batv).
type BATV struct {
	// Signer signs and verifies, with its keys.
	Signer *batv.Signer
	// ExemptSenders are the senders whose mail leaves unsigned: addresses,
	// or "@domain" for a whole domain (normalized, lower case).
	ExemptSenders []string
	// ExemptDestinations are the recipients for whom mail leaves unsigned
	// (mailing lists that compare the envelope sender with their member
	// list): addresses, or "@domain".
	ExemptDestinations []string
	// SigningSince is when every outbound message of a signing sender
	// began to leave signed; a report to such a sender's plain address
	// counts as backscatter (batv-missing) once a tag's lifetime has passed
	// since. Zero: never.
	SigningSince time.Time
}

// matchAddress reports whether addr is in list, as an address or by its
// "@domain" entry.
func matchAddress(list []string, addr string) bool {
	addr = ledger.NormalizeAddress(addr)
	at := strings.LastIndexByte(addr, '@')
	for _, e := range list {
		if e == addr || (at >= 0 && strings.HasPrefix(e, "@") && e == addr[at:]) {
			return true
		}
	}
	return false
}

// Signs reports whether the mail of sender, one of our addresses, leaves
// signed.
func (b *BATV) Signs(site decide.Site, sender string) bool {
	if b == nil || b.Signer == nil {
		return false
	}
	sender = ledger.NormalizeAddress(sender)
	return sender != "" && strings.Contains(sender, "@") && site.Ours(sender) && !matchAddress(b.ExemptSenders, sender)
}

// SignedSender is the envelope sender outbound mail from sender to rcpts
// leaves with: signed when sender signs and no recipient is an exempt
// destination; ok is false when it stays as it is. sender is signed as
// given (its case kept).
func (b *BATV) SignedSender(site decide.Site, sender string, rcpts []string) (signed string, ok bool) {
	if !b.Signs(site, sender) {
		return sender, false
	}
	for _, r := range rcpts {
		if matchAddress(b.ExemptDestinations, r) {
			return sender, false
		}
	}
	if _, _, tagged := batv.Split(sender); tagged {
		return sender, false
	}
	return b.Signer.Sign(sender), true
}

// PlainRecipient is the address a recipient with a valid tag of ours
// stands for; ok is false for any other recipient (unsigned, forged or
// expired), which stays as it is. Only the recipients of a null-sender
// message are rewritten: a report comes with the null sender.
func (b *BATV) PlainRecipient(site decide.Site, rcpt string) (plain string, ok bool) {
	if b == nil || b.Signer == nil {
		return rcpt, false
	}
	p, res := b.Signer.Verify(rcpt)
	if res != batv.Valid || !site.Ours(p) {
		return rcpt, false
	}
	return p, true
}

// Judge is the backscatter judge of a site with this evidence.
func (e *Evidence) Judge(site decide.Site, l backscatter.Ledger) backscatter.Judge {
	j := backscatter.Judge{Ledger: l, Ours: site.JudgeOurs()}
	if e == nil {
		return j
	}
	j.Retention = e.Retention
	j.DKIM = e.DKIM
	if len(e.ReceiveOnly) > 0 {
		list := e.ReceiveOnly
		j.ReceiveOnly.Listed = func(a string) bool { return matchAddress(list, a) }
	}
	j.ReceiveOnly.Learn = e.LearnReceiveOnly
	if b := e.BATV; b != nil && b.Signer != nil {
		jb := &backscatter.BATV{
			Signer:            b.Signer,
			Signs:             func(s string) bool { return b.Signs(site, s) },
			ExemptDestination: func(r string) bool { return matchAddress(b.ExemptDestinations, r) },
		}
		if !b.SigningSince.IsZero() {
			life := b.Signer.Lifetime
			if life <= 0 {
				life = batv.DefaultLifetime
			}
			jb.MissingAfter = b.SigningSince.Add(life)
		}
		j.BATV = jb
	}
	return j
}
