package backscatter

// Verdict says whether a report is backscatter.
type Verdict string

// Verdicts.
const (
	Yes     Verdict = "yes"     // the original never left here: backscatter
	No      Verdict = "no"      // we sent the original
	Unknown Verdict = "unknown" // cannot tell
)

// Evidence names what a Verdict rests on (see the package documentation).
type Evidence string

// Evidence, strongest first.
const (
	EvidenceBATV           Evidence = "batv"            // the BATV tag of the envelope recipient: ours and valid, or forged
	EvidenceBATVExpired    Evidence = "batv-expired"    // the BATV tag is ours but its day has passed
	EvidenceDKIM           Evidence = "dkim"            // the quoted original's header carries a valid DKIM signature of ours
	EvidenceMessageID      Evidence = "message-id"      // the original's Message-ID
	EvidenceQueueID        Evidence = "queue-id"        // a queue id in the original's Received lines
	EvidenceNeverSends     Evidence = "never-sends"     // the envelope recipient is an address that never sends mail
	EvidenceInReplyTo      Evidence = "in-reply-to"     // the Message-IDs an automatic reply answers
	EvidenceRecipientMatch Evidence = "recipient-match" // the (original sender, failed recipient) pair
	EvidenceBATVMissing    Evidence = "batv-missing"    // a report to an address whose mail leaves signed, without a tag
	EvidenceNone           Evidence = "none"            // the report references nothing to look up
	EvidenceLedgerError    Evidence = "ledger-error"    // a lookup failed
	EvidenceLedgerYoung    Evidence = "ledger-young"    // the ledger does not cover the retention period yet
	EvidenceNotOurDomain   Evidence = "not-our-domain"  // the report is about none of our addresses, or names Message-IDs of other domains
	EvidenceNoLedger       Evidence = "no-ledger"       // there is no ledger to look in
)

// Evidences is every Evidence, strongest first (for metrics and documentation).
var Evidences = []Evidence{
	EvidenceBATV, EvidenceBATVExpired, EvidenceDKIM, EvidenceMessageID, EvidenceQueueID, EvidenceNeverSends,
	EvidenceInReplyTo, EvidenceRecipientMatch, EvidenceBATVMissing, EvidenceNone, EvidenceLedgerError,
	EvidenceLedgerYoung, EvidenceNotOurDomain, EvidenceNoLedger,
}

// Judgement is a Verdict with the Evidence it rests on.
type Judgement struct {
	Verdict  Verdict
	Evidence Evidence
	// Err is the ledger error behind EvidenceLedgerError, for the log.
	Err error
	// Learned is set on EvidenceNeverSends when the address was learned
	// from the ledger (it sent nothing within the retention) rather than
	// listed by the site: weaker evidence (mail sent another way than
	// through the front end is not in the ledger), which is never enough
	// to refuse a message. It is not shown in the header.
	Learned bool
}

// String is the Judgement as the X-NDR-Backscatter header writes it:
// "yes; evidence=message-id".
func (j Judgement) String() string {
	return string(j.Verdict) + "; evidence=" + string(j.Evidence)
}
