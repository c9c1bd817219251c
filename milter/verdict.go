package milter

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Verdict says whether a bounce is backscatter.
type Verdict string

// Backscatter verdicts.
const (
	VerdictYes     Verdict = "yes"     // the original never left here
	VerdictNo      Verdict = "no"      // we sent the original
	VerdictUnknown Verdict = "unknown" // cannot tell
)

// Evidence values of a Judgement, strongest first.
const (
	EvidenceMessageID      = "message-id"
	EvidenceQueueID        = "queue-id"
	EvidenceRecipientMatch = "recipient-match"
	EvidenceNone           = "none"
	EvidenceLedgerError    = "ledger-error"
	EvidenceNotOurDomain   = "not-our-domain"
	EvidenceNoLedger       = "no-ledger"
)

// Judgement is a backscatter verdict with the evidence it rests on.
type Judgement struct {
	Verdict  Verdict
	Evidence string
	// Err is the ledger error behind evidence=ledger-error.
	Err error
}

// String is the X-NDR-Backscatter header value.
func (j Judgement) String() string {
	return string(j.Verdict) + "; evidence=" + j.Evidence
}

// Limits on the lookups one bounce can cause.
const (
	maxQueueIDLookups = 5
	maxPairLookups    = 20
	maxReceived       = 20
)

// queueIDs returns the distinct queue ids named in the Received lines: the
// word after "id" (RFC 5321 section 4.4, the "id" clause), e.g.
// "... with ESMTPSA id 4dLm2x0Q1Rz9 for <b@c>; ...".
func queueIDs(received []string) []string {
	var ids []string
	for i, r := range received {
		if i == maxReceived {
			break
		}
		for n := 0; n < 2; n++ {
			id, rest := nextReceivedID(r)
			if id == "" {
				break
			}
			r = rest
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) >= maxQueueIDLookups {
			return ids[:maxQueueIDLookups]
		}
	}
	return ids
}

// nextReceivedID finds the next "id ID" clause in r and returns ID (without
// angle brackets, 5 to 64 characters of [A-Za-z0-9._-]) and the rest of r.
func nextReceivedID(r string) (string, string) {
	for i := 0; i+3 < len(r); i++ {
		if (r[i] != 'i' && r[i] != 'I') || (r[i+1] != 'd' && r[i+1] != 'D') {
			continue
		}
		if i > 0 && !strings.ContainsRune(" \t\r\n;(", rune(r[i-1])) {
			continue
		}
		j := i + 2
		if r[j] != ' ' && r[j] != '\t' && r[j] != '\n' && r[j] != '\r' {
			continue
		}
		for j < len(r) && (r[j] == ' ' || r[j] == '\t' || r[j] == '\n' || r[j] == '\r') {
			j++
		}
		if j < len(r) && r[j] == '<' {
			j++
		}
		k := j
		for k < len(r) && k-j <= 64 && isIDChar(r[k], k == j) {
			k++
		}
		if n := k - j; n >= 5 && n <= 64 {
			return r[j:k], r[k:]
		}
	}
	return "", ""
}

func isIDChar(c byte, first bool) bool {
	switch {
	case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		return true
	case c == '.' || c == '_' || c == '-':
		return !first
	}
	return false
}

// judge decides whether a bounce is backscatter. bounceRcpts are the
// envelope recipients of the bounce, i.e. the original envelope sender(s).
// Evidence is weighed strongest first: Message-ID, queue id, (sender,
// recipient) pair. A positive finding ends the search with "no"; a ledger
// error makes the answer "unknown" unless a positive finding comes first;
// only when every reference was looked up and none was found is it "yes".
func judge(ctx context.Context, cfg *Config, l ledger.Ledger, m *Metrics, rep *dsn.Report, bounceRcpts []string) Judgement {
	if l == nil {
		return Judgement{Verdict: VerdictUnknown, Evidence: EvidenceNoLedger}
	}
	// The original senders: the envelope recipients of the bounce first
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
	for _, r := range bounceRcpts {
		addSender(r)
	}
	addSender(rep.Original.Sender)
	addSender(rep.Original.From)
	ours := false
	for _, s := range senders {
		ours = ours || cfg.ourAddress(s)
	}
	if !ours && len(cfg.Domains) > 0 {
		return Judgement{Verdict: VerdictUnknown, Evidence: EvidenceNotOurDomain}
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.LookupTimeout)
	defer cancel()
	var checked string // strongest reference looked up and not found
	var lerr error
	miss := func(ev string) {
		if checked == "" {
			checked = ev
		}
	}

	if mid := ledger.NormalizeMessageID(rep.Original.MessageID); mid != "" {
		start := time.Now()
		_, err := l.ByMessageID(ctx, mid)
		m.observeLookup(start, err)
		switch {
		case err == nil:
			return Judgement{Verdict: VerdictNo, Evidence: EvidenceMessageID}
		case errors.Is(err, ledger.ErrNotFound):
			miss(EvidenceMessageID)
		default:
			lerr = err
		}
	}
	for _, id := range queueIDs(rep.Original.Received) {
		start := time.Now()
		_, err := l.ByQueueID(ctx, id)
		m.observeLookup(start, err)
		switch {
		case err == nil:
			return Judgement{Verdict: VerdictNo, Evidence: EvidenceQueueID}
		case errors.Is(err, ledger.ErrNotFound):
			miss(EvidenceQueueID)
		default:
			lerr = err
		}
	}
	var failed []string
	for _, rc := range rep.Recipients {
		if rc.Action == smtpcode.ActionFailed || rc.Action == smtpcode.ActionDelayed || rc.Action == "" {
			if a := ledger.NormalizeAddress(rc.Address); strings.Contains(a, "@") {
				failed = append(failed, a)
			}
		}
	}
	n := 0
pairs:
	for _, s := range senders {
		if !cfg.ourAddress(s) {
			continue
		}
		for _, rc := range failed {
			if n == maxPairLookups {
				break pairs
			}
			n++
			start := time.Now()
			ok, err := l.SentTo(ctx, s, rc)
			m.observeLookup(start, err)
			switch {
			case err != nil:
				lerr = err
			case ok:
				return Judgement{Verdict: VerdictNo, Evidence: EvidenceRecipientMatch}
			default:
				miss(EvidenceRecipientMatch)
			}
		}
	}
	switch {
	case lerr != nil:
		return Judgement{Verdict: VerdictUnknown, Evidence: EvidenceLedgerError, Err: lerr}
	case checked == "":
		return Judgement{Verdict: VerdictUnknown, Evidence: EvidenceNone}
	}
	return Judgement{Verdict: VerdictYes, Evidence: checked}
}
