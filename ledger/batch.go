package ledger

import (
	"context"
	"fmt"
	"time"
)

// Batched writes, for "ndrmilter ledger import": a log of a day holds tens
// of thousands of messages, and a message of a mailing list can have
// hundreds of thousands of recipients. Merge writes one record in one
// journal write and bbolt transaction (shared by the Merges of the moment)
// or one Redis round trip or more; MergeBatch writes many in few, with the
// same result.

// Bounds of one bbolt transaction of MergeBatch and RecordPairs. A
// transaction of records inserts their index keys in the order of the
// records: bbolt splits its pages only at commit, so the keys a transaction
// inserts into one page cost it time in their number squared; the pairs of
// RecordPairs are sorted, which makes them cost linear time.
//
// A transaction of records also ends once it has read maxTxNodes pages
// into memory to change them: in a large ledger each record's index keys
// land on pages of their own, and what a transaction holds until its
// commit (the pages, and their new copies) must not grow with the ledger.
// 1024 pages keep a transaction's memory near 10 MB (the nodes bbolt reads
// the pages into, and the buffers it writes them from); 2048 doubled it and
// saved no CPU measurably on the import of an 80,000-message log, and 512
// took about a third more CPU (more rewrites of the same index pages)
// (issue 14).
const (
	maxTxRecords = 2048  // records per transaction
	maxTxPairs   = 8192  // (sender, recipient) pairs of those records per transaction
	maxTxNodes   = 1024  // pages read to be changed, per transaction of records
	maxTxSorted  = 65536 // sorted pairs per transaction of RecordPairs
)

// Bounds of one Redis pipeline of MergeBatch and RecordPairs.
const (
	maxPipeRecords = 256  // records per pipeline
	maxPipePairs   = 4096 // pairs per pipeline
)

// batchLedger is a Ledger that writes many records at once.
type batchLedger interface {
	mergeBatch(ctx context.Context, recs []Record) ([]Change, error)
	recordPairs(ctx context.Context, sender string, recipients []string, t time.Time) error
}

// MergeBatch merges recs into l in their order, as a Merge of each in turn
// would (see Ledger), and returns the Change of each. It returns once all
// of it is durable. On an error it returns the Changes of the records
// written before it, in order: recs[len(changes):] were not written (or
// not all of their pairs).
//
// bbolt writes thousands of records per transaction; Redis pipelines
// hundreds of records per round trip. The record of each message is merged
// atomically as Merge merges it; the (sender, recipient) pairs of a record's
// recipients past the first MaxRecipients distinct ones (which its record
// cannot hold) are written as RecordPairs writes them, in transactions of
// their own, before the record. A Ledger of another kind gets one Merge
// per record.
func MergeBatch(ctx context.Context, l Ledger, recs []Record) ([]Change, error) {
	if b, ok := l.(batchLedger); ok {
		return b.mergeBatch(ctx, recs)
	}
	changes := make([]Change, 0, len(recs))
	for _, r := range recs {
		c, err := l.Merge(ctx, r)
		if err != nil {
			return changes, err
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// RecordPairs records that sender sent to each of recipients at t, for
// SentTo, without a record: the recipients past MaxRecipients of a message
// whose record holds its first MaxRecipients, so that a bounce for any of
// them is paired with the mail that left. Each pair lives for the
// retention after its latest sending: a pair already recorded with a later
// time keeps it, and pairs older than the retention are not recorded. It
// returns once they are durable. The ledger writes them in bounded
// transactions (bbolt) or pipelines (Redis), however many there are.
func RecordPairs(ctx context.Context, l Ledger, sender string, recipients []string, t time.Time) error {
	if b, ok := l.(batchLedger); ok {
		return b.recordPairs(ctx, sender, recipients, t)
	}
	return fmt.Errorf("ledger: %T cannot record sender/recipient pairs without a record", l)
}

// normalizeBatch returns recs in the form Record.Normalize gives, or an
// error naming the first that has nothing to look it up by.
func normalizeBatch(recs []Record, now time.Time) ([]Record, error) {
	out := make([]Record, len(recs))
	for i, r := range recs {
		r = r.Normalize(now)
		if r.MessageID == "" && r.QueueID == "" && (r.Sender == "" || len(r.Recipients) == 0) {
			return nil, fmt.Errorf("ledger: record %d of %d has no Message-ID, no queue id and no sender/recipient pair: nothing to look it up by", i+1, len(recs))
		}
		out[i] = r
	}
	return out, nil
}

// splitAtCap returns r with its first MaxRecipients distinct recipients,
// and the recipients after them: a merge of r can add no more than
// MaxRecipients to a record, so the others only need their pairs.
func splitAtCap(r Record) (Record, []string) {
	if len(r.Recipients) <= MaxRecipients {
		return r, nil
	}
	seen := make(map[string]struct{}, MaxRecipients)
	head := make([]string, 0, MaxRecipients)
	i := 0
	for ; i < len(r.Recipients) && len(head) < MaxRecipients; i++ {
		a := r.Recipients[i]
		if _, dup := seen[a]; !dup {
			seen[a] = struct{}{}
			head = append(head, a)
		}
	}
	var rest []string
	for _, a := range r.Recipients[i:] {
		if _, dup := seen[a]; !dup {
			rest = append(rest, a)
		}
	}
	r.Recipients = head
	return r, rest
}

// normalizePairs returns sender and recipients in the form ledgers store,
// without empty recipients.
func normalizePairs(sender string, recipients []string) (string, []string) {
	sender = NormalizeAddress(sender)
	out := make([]string, 0, len(recipients))
	for _, a := range recipients {
		if a = NormalizeAddress(a); a != "" {
			out = append(out, a)
		}
	}
	return sender, out
}
