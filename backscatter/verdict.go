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
	EvidenceMessageID      Evidence = "message-id"      // the original's Message-ID
	EvidenceQueueID        Evidence = "queue-id"        // a queue id in the original's Received lines
	EvidenceRecipientMatch Evidence = "recipient-match" // the (original sender, failed recipient) pair
	EvidenceNone           Evidence = "none"            // the report references nothing to look up
	EvidenceLedgerError    Evidence = "ledger-error"    // a lookup failed
	EvidenceNotOurDomain   Evidence = "not-our-domain"  // the report is about none of our addresses
	EvidenceNoLedger       Evidence = "no-ledger"       // there is no ledger to look in
)

// Judgement is a Verdict with the Evidence it rests on.
type Judgement struct {
	Verdict  Verdict
	Evidence Evidence
	// Err is the ledger error behind EvidenceLedgerError, for the log.
	Err error
}

// String is the Judgement as the X-NDR-Backscatter header writes it:
// "yes; evidence=message-id".
func (j Judgement) String() string {
	return string(j.Verdict) + "; evidence=" + string(j.Evidence)
}
