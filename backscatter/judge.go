package backscatter

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Ledger is what a judgement reads of the ledger of sent mail; a
// ledger.Ledger is one. Any error other than ledger.ErrNotFound means
// "cannot tell" and never leads to Yes.
type Ledger interface {
	// ByMessageID returns the record with that (normalised) Message-ID.
	ByMessageID(ctx context.Context, messageID string) (ledger.Record, error)
	// ByQueueID returns the record with that queue id.
	ByQueueID(ctx context.Context, queueID string) (ledger.Record, error)
	// SentTo reports whether sender sent to recipient within the retention window.
	SentTo(ctx context.Context, sender, recipient string) (bool, error)
	// LastSent returns the time of sender's latest sending within the
	// retention window, ledger.ErrNotFound when it sent nothing in it.
	LastSent(ctx context.Context, sender string) (time.Time, error)
	// Since returns the time from which the ledger holds all it was given.
	Since(ctx context.Context) (time.Time, error)
}

// Judge judges delivery reports and automatic replies against a ledger.
// The zero Judge has no ledger: every report is Unknown with
// EvidenceNoLedger. The fields after Ours turn on evidence beyond the
// ledger's; each is off when it is nil or zero.
type Judge struct {
	// Ledger is the mail we sent; nil when there is none.
	Ledger Ledger
	// Ours reports whether an address is one of ours (in one of our
	// domains); nil means every address is.
	Ours func(addr string) bool

	// Retention is the ledger's retention period: an automatic reply is
	// judged Yes, and an address learned to be receive-only, only when
	// the ledger began (Ledger.Since) at least that long ago, so that its
	// silence covers the whole period (0: never).
	Retention time.Duration
	// ReceiveOnly says which of our addresses never send mail.
	ReceiveOnly ReceiveOnly
	// BATV verifies the tags of the envelope recipients; nil: tags are not
	// read (a tagged address is judged as it is).
	BATV *BATV
	// DKIM are our DKIM public keys: a valid signature of ours on the
	// quoted original's header is proof that we sent it.
	DKIM []DKIMKey
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// ReceiveOnly says which of our addresses never send mail: a report or an
// automatic reply to one of them is backscatter (EvidenceNeverSends).
type ReceiveOnly struct {
	// Listed reports whether the site listed addr as one that never sends
	// (nil: none is).
	Listed func(addr string) bool
	// Learn: an address of ours that sent nothing within the retention,
	// while the ledger covers it, never sends either (Judgement.Learned).
	Learn bool
}

// BATV is how a judgement reads BATV tags (package batv): a report to an
// address with a valid tag of ours is proof that the original left here
// signed, one with a forged tag is backscatter, and, once all mail has left
// signed for longer than a tag lives, a report to the plain address of a
// sender whose mail is signed is suspect (EvidenceBATVMissing).
type BATV struct {
	// Signer verifies tags.
	Signer *batv.Signer
	// Signs reports whether the mail of sender leaves signed (one of our
	// addresses, not exempt); nil: no sender's does.
	Signs func(sender string) bool
	// ExemptDestination reports whether mail to rcpt leaves unsigned
	// (nil: none does): a report naming such a recipient may be for an
	// unsigned message.
	ExemptDestination func(rcpt string) bool
	// MissingAfter is when a report without a tag starts to count: signing
	// began at least a tag's lifetime before it (zero: never).
	MissingAfter time.Time
}

// Input is what a judgement reads of one message.
type Input struct {
	// Report is what dsn read of the message.
	Report *dsn.Report
	// Recipients are the message's envelope recipients as received (with
	// their BATV tags, if any): for a report, the original's envelope
	// sender.
	Recipients []string
	// Raw is the message as kept (header and body): the automatic reply's
	// references and the quoted original's DKIM signature are read from it.
	Raw []byte
	// AutoReply: the message is an automatic reply (see decide), judged by
	// the Message-IDs it answers rather than as a delivery report.
	AutoReply bool
}

// maxPairLookups bounds the (sender, recipient) lookups of one report.
const maxPairLookups = 20

// Report judges rep, a bounce or delay report; envelopeRcpts are the
// envelope recipients of the report, that is the original's envelope
// sender(s). It is Judge with only these (see Judge).
func (j Judge) Report(ctx context.Context, rep *dsn.Report, envelopeRcpts []string) Judgement {
	return j.Judge(ctx, Input{Report: rep, Recipients: envelopeRcpts})
}

// findings collects what the lookups of one judgement found: the first
// positive finding ends the judgement with No; otherwise the strongest
// reference looked up and not found is named by a Yes, unless a lookup
// failed.
type findings struct {
	missing []Evidence // references looked up and not found
	learned bool       // EvidenceNeverSends was learned from the ledger
	err     error      // a lookup that failed
	young   bool       // an answer needed a ledger that covers the retention, and it does not yet
	foreign bool       // an automatic reply answers a Message-ID of another domain
}

func (f *findings) miss(ev Evidence) { f.missing = append(f.missing, ev) }

// strongest is the strongest Evidence missed, "" for none.
func (f *findings) strongest() Evidence {
	best := Evidence("")
	for _, e := range f.missing {
		if best == "" || slices.Index(Evidences, e) < slices.Index(Evidences, best) {
			best = e
		}
	}
	return best
}

// Judge judges one message under ctx, which should carry the deadline the
// caller allows all its lookups.
//
// Evidence is weighed strongest first: a valid BATV tag of ours on the
// envelope recipient; for a delivery report, the original's Message-ID,
// the queue ids of its Received lines and the (sender, failed recipient)
// pairs; for an automatic reply, the Message-IDs it answers; and a valid
// DKIM signature of ours on the quoted original. A positive finding ends
// the search with No. A ledger error makes the answer Unknown unless a
// positive finding comes; only when every reference was looked up and none
// was found is it Yes, naming the strongest: a forged BATV tag, the
// Message-ID or queue id, an envelope recipient that never sends, the
// answered Message-IDs, the pairs, or a missing BATV tag.
func (j Judge) Judge(ctx context.Context, in Input) Judgement {
	rep := in.Report
	if j.Ledger == nil && !j.judgesWithoutLedger() {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNoLedger}
	}
	if rep == nil {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNone}
	}
	ours := func(addr string) bool { return j.Ours == nil || j.Ours(addr) }
	var f findings

	// The envelope recipients, without their BATV tags.
	var rcpts []string
	tagged := false
	for _, r := range in.Recipients {
		r = ledger.NormalizeAddress(r)
		if j.BATV != nil && j.BATV.Signer != nil {
			plain, res := j.BATV.Signer.Verify(r)
			switch res {
			case batv.Valid:
				if ours(plain) {
					return Judgement{Verdict: No, Evidence: EvidenceBATV}
				}
			case batv.Invalid:
				if ours(plain) {
					f.miss(EvidenceBATV)
				}
			case batv.Expired:
				if ours(plain) {
					f.miss(EvidenceBATVExpired)
				}
			}
			if res != batv.Unsigned {
				tagged = true
			}
			r = ledger.NormalizeAddress(plain)
		}
		rcpts = append(rcpts, r)
	}

	// The original senders: the envelope recipients of the report first
	// (a bounce goes to the original's envelope sender), then what the
	// report shows of the original.
	var senders []string
	addSender := func(a string) {
		a = ledger.NormalizeAddress(a)
		if a == "" || !strings.Contains(a, "@") || slices.Contains(senders, a) {
			return
		}
		senders = append(senders, a)
	}
	for _, r := range rcpts {
		addSender(r)
	}
	if !in.AutoReply {
		addSender(rep.Original.Sender)
		addSender(rep.Original.From)
	}
	anyOurs := false
	for _, s := range senders {
		anyOurs = anyOurs || ours(s)
	}
	if !anyOurs && j.Ours != nil {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNotOurDomain}
	}
	if j.Ledger == nil && !j.judgesWithoutLedger() {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNoLedger}
	}

	if j.Ledger != nil {
		var found Evidence
		if in.AutoReply {
			found = j.answered(ctx, in, &f)
		} else {
			found = j.references(ctx, rep, rcpts, senders, ours, &f)
		}
		if found != "" {
			return Judgement{Verdict: No, Evidence: found}
		}
	}
	if len(j.DKIM) > 0 && len(in.Raw) > 0 && j.signedByUs(in.Raw) {
		return Judgement{Verdict: No, Evidence: EvidenceDKIM}
	}
	j.neverSends(ctx, rcpts, ours, &f)
	// An automatic responder may answer the From address rather than the
	// envelope sender (RFC 3834 section 4 asks for the latter, not all do):
	// a missing tag says nothing there.
	if !tagged && !in.AutoReply && j.batvMissing(rcpts, rep, ours) {
		f.miss(EvidenceBATVMissing)
	}

	switch {
	case f.err != nil:
		return Judgement{Verdict: Unknown, Evidence: EvidenceLedgerError, Err: f.err}
	case len(f.missing) == 0:
		if j.Ledger == nil {
			return Judgement{Verdict: Unknown, Evidence: EvidenceNoLedger}
		}
		return Judgement{Verdict: Unknown, Evidence: f.unknownEvidence()}
	}
	ev := f.strongest()
	return Judgement{Verdict: Yes, Evidence: ev, Learned: ev == EvidenceNeverSends && f.learned}
}

// judgesWithoutLedger reports whether some evidence needs no ledger: BATV
// tags, DKIM signatures, listed receive-only addresses.
func (j Judge) judgesWithoutLedger() bool {
	return j.BATV != nil || len(j.DKIM) > 0 || j.ReceiveOnly.Listed != nil
}

// unknownEvidence is the Evidence of an Unknown without a failed lookup:
// why nothing could be said.
func (f *findings) unknownEvidence() Evidence {
	if f.young {
		return EvidenceLedgerYoung
	}
	if f.foreign {
		return EvidenceNotOurDomain
	}
	return EvidenceNone
}

// references looks up what a delivery report shows of the original: its
// Message-ID, the queue ids of its Received lines, and the (sender, failed
// recipient) pairs. It returns the Evidence of a positive finding, "" when
// there was none.
func (j Judge) references(ctx context.Context, rep *dsn.Report, rcpts, senders []string, ours func(string) bool, f *findings) Evidence {
	if mid := ledger.NormalizeMessageID(rep.Original.MessageID); mid != "" {
		_, err := j.Ledger.ByMessageID(ctx, mid)
		switch {
		case err == nil:
			return EvidenceMessageID
		case errors.Is(err, ledger.ErrNotFound):
			f.miss(EvidenceMessageID)
		default:
			f.err = err
		}
	}
	for _, id := range queueIDs(rep.Original.Received) {
		_, err := j.Ledger.ByQueueID(ctx, id)
		switch {
		case err == nil:
			return EvidenceQueueID
		case errors.Is(err, ledger.ErrNotFound):
			f.miss(EvidenceQueueID)
		default:
			f.err = err
		}
	}
	failed := failedAddresses(rep.Recipients)
	n := 0
	for _, s := range senders {
		if !ours(s) {
			continue
		}
		for _, rc := range failed {
			if n == maxPairLookups {
				return ""
			}
			n++
			ok, err := j.Ledger.SentTo(ctx, s, rc)
			switch {
			case err != nil:
				f.err = err
			case ok:
				return EvidenceRecipientMatch
			default:
				f.miss(EvidenceRecipientMatch)
			}
		}
	}
	return ""
}

// failedAddresses returns the distinct addresses the report gives for its
// failed or delayed recipients (and those without an action), in report
// order: for each, the final address (Final-Recipient) and the address the
// original was sent to (Original-Recipient), which differ when the message
// was forwarded or went through an alias. The original sender wrote to the
// latter, so both are looked up, and so are the other names the report
// gives for the same recipient (Sendmail's X-Actual-Recipient, an
// expanded-from address): a pair found for any is proof that the message
// left here.
func failedAddresses(rcpts []dsn.Recipient) []string {
	var out []string
	add := func(a string) {
		a = ledger.NormalizeAddress(a)
		if !strings.Contains(a, "@") || slices.Contains(out, a) {
			return
		}
		out = append(out, a)
	}
	for _, rc := range rcpts {
		if rc.Action == smtpcode.ActionFailed || rc.Action == smtpcode.ActionDelayed || rc.Action == "" {
			add(rc.Address)
			add(rc.OriginalRecipient)
			for _, a := range rc.Aliases {
				add(a)
			}
		}
	}
	return out
}

func (j Judge) now() time.Time {
	if j.Now != nil {
		return j.Now()
	}
	return time.Now()
}

// covers reports whether the ledger holds all mail sent within the
// retention period: it began at least Retention ago. A failed lookup is
// noted in f and reported as false.
func (j Judge) covers(ctx context.Context, f *findings) bool {
	if j.Ledger == nil || j.Retention <= 0 {
		return false
	}
	since, err := j.Ledger.Since(ctx)
	if err != nil {
		f.err = err
		return false
	}
	return !since.After(j.now().Add(-j.Retention))
}

// neverSends notes EvidenceNeverSends when every envelope recipient of ours
// (and there is one) is an address that never sends: listed, or, with
// ReceiveOnly.Learn, one that sent nothing within the retention of a ledger
// that covers it.
func (j Judge) neverSends(ctx context.Context, rcpts []string, ours func(string) bool, f *findings) {
	ro := j.ReceiveOnly
	if ro.Listed == nil && !ro.Learn {
		return
	}
	n, learned := 0, false
	var covered *bool
	for _, r := range rcpts {
		if !strings.Contains(r, "@") || !ours(r) {
			continue
		}
		n++
		if ro.Listed != nil && ro.Listed(r) {
			continue
		}
		if !ro.Learn || j.Ledger == nil {
			return
		}
		_, err := j.Ledger.LastSent(ctx, r)
		switch {
		case err == nil:
			return // it sends
		case !errors.Is(err, ledger.ErrNotFound):
			f.err = err
			return
		}
		if covered == nil {
			c := j.covers(ctx, f)
			covered = &c
		}
		if !*covered {
			return
		}
		learned = true
	}
	if n > 0 {
		f.miss(EvidenceNeverSends)
		f.learned = learned
	}
}

// batvMissing reports whether the report comes to the plain address of a
// sender whose mail leaves signed, signing having run for longer than a tag
// lives, and names no recipient of an exempt destination (whose mail left
// unsigned).
func (j Judge) batvMissing(rcpts []string, rep *dsn.Report, ours func(string) bool) bool {
	b := j.BATV
	if b == nil || b.Signs == nil || b.MissingAfter.IsZero() || j.now().Before(b.MissingAfter) {
		return false
	}
	n := 0
	for _, r := range rcpts {
		if !strings.Contains(r, "@") || !ours(r) {
			continue
		}
		if !b.Signs(r) {
			return false
		}
		n++
	}
	if n == 0 {
		return false
	}
	if b.ExemptDestination != nil {
		for _, a := range failedAddresses(rep.Recipients) {
			if b.ExemptDestination(a) {
				return false
			}
		}
	}
	return true
}
