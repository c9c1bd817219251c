// Package ledger records the messages that leave the domain, so that a bounce
// can be matched to mail we really sent. Implementations: bbolt on disk (the
// default) and Redis (shared by several servers).
package ledger

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Record is one message that left the domain.
type Record struct {
	MessageID  string    // without angle brackets, as in the header
	QueueID    string    // Postfix queue id, may be empty
	Sender     string    // envelope sender (MAIL FROM), lower case
	Recipients []string  // envelope recipients (RCPT TO), lower case
	Time       time.Time // when it was accepted
}

// ErrNotFound is returned by lookups that found nothing.
var ErrNotFound = errors.New("ledger: not found")

// Ledger stores Records for the retention period and answers the lookups the
// backscatter verdict needs. A Ledger is safe for concurrent use. Any error
// other than ErrNotFound means "cannot tell" and must never lead to a "yes".
type Ledger interface {
	// Put records r. It returns once r is durable (or has failed).
	Put(ctx context.Context, r Record) error
	// ByMessageID returns the record with that Message-ID.
	ByMessageID(ctx context.Context, messageID string) (Record, error)
	// ByQueueID returns the record with that queue id.
	ByQueueID(ctx context.Context, queueID string) (Record, error)
	// SentTo reports whether sender sent to recipient within the retention window.
	SentTo(ctx context.Context, sender, recipient string) (bool, error)
	// Stats summarises the ledger's content.
	Stats(ctx context.Context) (Stats, error)
	// Close flushes pending writes and releases resources.
	Close() error
}

// Stats summarises a ledger.
type Stats struct {
	Records int64
	Oldest  time.Time
	Newest  time.Time
	Backend string
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
