// Package ledger is the store of the mail that left the domain: it records
// each message that leaves (Message-ID, queue ids, sender, recipients) for
// a retention period, so that a bounce can be matched to mail we really
// sent, and it owns the forms those are compared in (NormalizeMessageID,
// NormalizeAddress, InDomains). Two stores implement the Ledger: bbolt on
// disk (the default, OpenBolt), with a write-ahead journal in front of it
// that makes a Put durable with one fdatasync of a preallocated file
// instead of a bbolt commit's two (see bolt_journal.go), and Redis shared
// by several servers (OpenRedis); Open picks one from a spec.
package ledger

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Record is one message that left the domain.
type Record struct {
	MessageID  string    // without angle brackets, as in the header
	QueueID    string    // Postfix queue id, may be empty; the first one recorded for the message
	Sender     string    // envelope sender (MAIL FROM), lower case
	Recipients []string  // envelope recipients (RCPT TO), lower case
	Time       time.Time // when it was accepted; the latest time if it was recorded several times
}

// ErrNotFound is returned by lookups that found nothing.
var ErrNotFound = errors.New("ledger: not found")

// Ledger stores Records for the retention period and answers the lookups the
// backscatter verdict needs. A Ledger is safe for concurrent use. Any error
// other than ErrNotFound means "cannot tell" and must never lead to a "yes".
//
// # One record per message
//
// A message can be recorded several times: Postfix gives one message
// several queue files (an after-queue content filter re-injects it, at
// times one copy per group of recipients; local(8) forwards it for an alias
// or a .forward), a user re-sends it with the same Message-ID, a list
// re-sends it, and the milter and "ndrmilter ledger import" record the same
// mail. So a Put does not replace what the ledger has on a message; it
// merges into it, atomically (one bbolt transaction; one compare-and-set
// per Redis key), whatever Puts run at the same time:
//
//   - A Record with a Message-ID is merged into the record of that
//     Message-ID. A Record without one is merged into the record its queue
//     id points to (it is the same queue file).
//   - Recipients are the union, in the order first recorded, up to
//     MaxRecipients per record; a recipient once recorded is never dropped.
//     Every (sender, recipient) pair is recorded for SentTo, even past
//     MaxRecipients and whatever the record's sender.
//   - Time becomes the latest of the times recorded, so that the record
//     lives for the retention period after the last sending: a bounce for
//     a re-sent message must find it as long as it finds a message sent
//     once at that time.
//   - MessageID, QueueID and Sender keep the first non-empty value
//     recorded. Every queue id recorded finds the record (ByQueueID), while
//     its own sending is within the retention period.
//   - A record kept under a queue id before the message's Message-ID was
//     known (the milter saw no Message-ID header; Postfix's cleanup added
//     one, which the log shows) is merged into the Message-ID's record when
//     a Put names both, before the queue id is pointed to it: a lookup never
//     finds a record lacking recipients it found before.
//   - A queue id names one message at a time: Postfix reuses queue ids, so
//     a Put naming a queue id already recorded for another Message-ID moves
//     the queue id to the new message; the old message is still found by
//     its Message-ID and its pairs.
//
// A Put of what the ledger already holds changes nothing.
type Ledger interface {
	// Put records r, merged with what the ledger holds on the same message
	// (see above). It returns once the result is durable (or has failed).
	Put(ctx context.Context, r Record) error
	// Merge is Put that also says what it changed in the ledger.
	Merge(ctx context.Context, r Record) (Change, error)
	// ByMessageID returns the record with that Message-ID.
	ByMessageID(ctx context.Context, messageID string) (Record, error)
	// ByQueueID returns the record of the message with that queue id.
	ByQueueID(ctx context.Context, queueID string) (Record, error)
	// SentTo reports whether sender sent to recipient within the retention window.
	SentTo(ctx context.Context, sender, recipient string) (bool, error)
	// LastSent returns the time of sender's latest sending within the
	// retention window (the latest Record.Time of a record or pair with
	// that sender), ErrNotFound when it sent nothing in it. It reads an
	// index of senders: one key per sender, not a scan of its records.
	LastSent(ctx context.Context, sender string) (time.Time, error)
	// Since returns the time from which the ledger holds all it was given:
	// when it was created, or, for a ledger created before it kept this
	// time, the time its sender index began (see each store). A ledger
	// whose Since is at least its retention period ago holds every
	// recording of that whole period: it "covers" the retention period,
	// and the absence of a message or of a sender's mail in it means
	// something.
	Since(ctx context.Context) (time.Time, error)
	// Stats summarises the ledger's content.
	Stats(ctx context.Context) (Stats, error)
	// Close flushes pending writes and releases resources.
	Close() error
}

// MaxRecipients bounds the recipients a record keeps (the milter remembers
// as many envelope recipients of one message). Past it, a merge adds no
// more recipients to the record, but still records their (sender,
// recipient) pairs.
const MaxRecipients = 1000

// Change is what a Merge did to the ledger.
type Change uint8

// Changes a Merge reports.
const (
	// ChangeNone: the ledger held all of the record already.
	ChangeNone Change = iota
	// ChangeAdded: the record is a message the ledger did not hold.
	ChangeAdded
	// ChangeMerged: the record of the same message gained something
	// (recipients, a queue id, a later time, a field it lacked).
	ChangeMerged
	// ChangeTooOld: the record is older than the retention period and was
	// not stored.
	ChangeTooOld
)

// String returns the change's name, as logs and test failures show it.
func (c Change) String() string {
	switch c {
	case ChangeNone:
		return "none"
	case ChangeAdded:
		return "added"
	case ChangeMerged:
		return "merged"
	case ChangeTooOld:
		return "too old"
	}
	return "Change(" + strconv.Itoa(int(c)) + ")"
}

// Stats summarises a ledger.
type Stats struct {
	Records int64     // records (messages) held; see each store's Stats for how it counts
	Oldest  time.Time // time of the oldest record
	Newest  time.Time // time of the newest record
	Backend string    // which store: "bbolt PATH", "redis (standalone)"...
	Bytes   int64     // size of the store on disk where the store knows it (bbolt: its file), else 0
}

// NormalizeMessageID returns the form of a Message-ID that ledgers store and
// look up: surrounding white space and angle brackets removed, lower case.
// Message-IDs are case-sensitive in principle (RFC 5322 section 3.6.4), but
// relays and bounce generators are known to change case, and two distinct
// Message-IDs differing only in case do not occur in practice.
func NormalizeMessageID(id string) string {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(id, "<")
	id = strings.TrimSuffix(id, ">")
	return strings.ToLower(strings.TrimSpace(id))
}

// NormalizeAddress returns the form of an envelope address that ledgers store
// and look up: white space and angle brackets removed, lower case.
func NormalizeAddress(addr string) string {
	addr = strings.TrimSpace(addr)
	addr = strings.TrimPrefix(addr, "<")
	addr = strings.TrimSuffix(addr, ">")
	return strings.ToLower(strings.TrimSpace(addr))
}

// Normalize returns r with its Message-ID and addresses in the form ledgers
// store (see NormalizeMessageID and NormalizeAddress), empty recipients
// dropped, and a zero Time replaced by now.
func (r Record) Normalize(now time.Time) Record {
	r.MessageID = NormalizeMessageID(r.MessageID)
	r.QueueID = strings.TrimSpace(r.QueueID)
	r.Sender = NormalizeAddress(r.Sender)
	rcpts := make([]string, 0, len(r.Recipients))
	for _, a := range r.Recipients {
		if a = NormalizeAddress(a); a != "" {
			rcpts = append(rcpts, a)
		}
	}
	r.Recipients = rcpts
	if r.Time.IsZero() {
		r.Time = now
	}
	return r
}
