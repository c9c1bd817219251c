package backscatter

import (
	"context"
	"errors"
	"slices"
	"strings"

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
}

// Judge judges delivery reports against a ledger. The zero Judge has no
// ledger: every report is Unknown with EvidenceNoLedger.
type Judge struct {
	// Ledger is the mail we sent; nil when there is none.
	Ledger Ledger
	// Ours reports whether an address is one of ours (in one of our
	// domains); nil means every address is.
	Ours func(addr string) bool
}

// maxPairLookups bounds the (sender, recipient) lookups of one report.
const maxPairLookups = 20

// Report judges rep, a bounce or delay report; envelopeRcpts are the
// envelope recipients of the report, that is the original's envelope
// sender(s). The lookups run under ctx, which should carry the deadline
// the caller allows them all.
//
// Evidence is weighed strongest first: Message-ID, queue id, (sender,
// recipient) pair. A positive finding ends the search with No; a ledger
// error makes the answer Unknown unless a positive finding comes first;
// only when every reference was looked up and none was found is it Yes.
func (j Judge) Report(ctx context.Context, rep *dsn.Report, envelopeRcpts []string) Judgement {
	if j.Ledger == nil {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNoLedger}
	}
	if rep == nil {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNone}
	}
	ours := func(addr string) bool { return j.Ours == nil || j.Ours(addr) }

	// The original senders: the envelope recipients of the report first
	// (a bounce goes to the original's envelope sender), then what the
	// report shows of the original.
	var senders []string
	addSender := func(a string) {
		a = ledger.NormalizeAddress(a)
		if a == "" || !strings.Contains(a, "@") {
			return
		}
		for _, s := range senders {
			if s == a {
				return
			}
		}
		senders = append(senders, a)
	}
	for _, r := range envelopeRcpts {
		addSender(r)
	}
	addSender(rep.Original.Sender)
	addSender(rep.Original.From)
	anyOurs := false
	for _, s := range senders {
		anyOurs = anyOurs || ours(s)
	}
	if !anyOurs && j.Ours != nil {
		return Judgement{Verdict: Unknown, Evidence: EvidenceNotOurDomain}
	}

	var checked Evidence // strongest reference looked up and not found
	var lerr error
	miss := func(ev Evidence) {
		if checked == "" {
			checked = ev
		}
	}

	if mid := ledger.NormalizeMessageID(rep.Original.MessageID); mid != "" {
		_, err := j.Ledger.ByMessageID(ctx, mid)
		switch {
		case err == nil:
			return Judgement{Verdict: No, Evidence: EvidenceMessageID}
		case errors.Is(err, ledger.ErrNotFound):
			miss(EvidenceMessageID)
		default:
			lerr = err
		}
	}
	for _, id := range queueIDs(rep.Original.Received) {
		_, err := j.Ledger.ByQueueID(ctx, id)
		switch {
		case err == nil:
			return Judgement{Verdict: No, Evidence: EvidenceQueueID}
		case errors.Is(err, ledger.ErrNotFound):
			miss(EvidenceQueueID)
		default:
			lerr = err
		}
	}
	failed := failedAddresses(rep.Recipients)
	n := 0
pairs:
	for _, s := range senders {
		if !ours(s) {
			continue
		}
		for _, rc := range failed {
			if n == maxPairLookups {
				break pairs
			}
			n++
			ok, err := j.Ledger.SentTo(ctx, s, rc)
			switch {
			case err != nil:
				lerr = err
			case ok:
				return Judgement{Verdict: No, Evidence: EvidenceRecipientMatch}
			default:
				miss(EvidenceRecipientMatch)
			}
		}
	}
	switch {
	case lerr != nil:
		return Judgement{Verdict: Unknown, Evidence: EvidenceLedgerError, Err: lerr}
	case checked == "":
		return Judgement{Verdict: Unknown, Evidence: EvidenceNone}
	}
	return Judgement{Verdict: Yes, Evidence: checked}
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
