// Package ledger records the messages that leave the domain, so that a bounce
// can be matched to mail we really sent. Implementations: bbolt on disk (the
// default) and Redis (shared by several servers).
package ledger

import (
	"context"
	"errors"
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
