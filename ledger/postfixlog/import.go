package postfixlog

// The import of Postfix logs into a ledger: the one that both "ndrmilter
// ledger import" (files) and the running service's POST
// /api/v1/ledger/import (a request body) run, so that the two write the
// same records, cap the same recipients and count the same way.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Summary is what an import did. Its JSON form is the output of "ndrmilter
// ledger import --json" and the answer of POST /api/v1/ledger/import.
type Summary struct {
	// New counts the messages that left and that the ledger did not hold.
	New int `json:"new"`
	// Updated counts the messages whose record gained something: a
	// recipient, a queue id, a later time (see ledger.Ledger).
	Updated int `json:"updated"`
	// Known counts the messages the ledger held all of already.
	Known int `json:"already_known"`
	// TooOld counts the messages older than the retention period: not
	// written.
	TooOld int `json:"older_than_retention"`
	// Errors counts the records the ledger failed to write, and its failed
	// writes of recipients past the cap (each is reported to
	// ImportOptions.OnError). The records an import stopped by its context
	// had not written yet are not counted, here or elsewhere.
	Errors int `json:"errors"`
	// Skipped counts the messages that did not leave: local delivery,
	// Postfix's own bounces, mail from other domains (LogJoiner.Skipped).
	Skipped int `json:"skipped_not_leaving"`
	// Incomplete counts the messages given up with their lines incomplete
	// and no sign of leaving (LogJoiner.Dropped).
	Incomplete int `json:"incomplete"`
	// Lines counts the lines read, Malformed those that are not log lines
	// or are Postfix lines with broken fields (skipped).
	Lines     int `json:"lines"`
	Malformed int `json:"malformed_lines"`
	// DryRun is set when nothing was written: New counts what would have
	// been imported.
	DryRun bool `json:"dry_run"`
	// CappedMessages counts the messages with more recipients than a record
	// keeps (ledger.MaxRecipients); CappedRecipients the recipients past
	// that cap, kept as (sender, recipient) pairs only
	// (ledger.RecordPairs).
	CappedMessages   int `json:"capped_messages"`
	CappedRecipients int `json:"capped_recipients"`
}

// ImportOptions are the settings of an import. The zero value imports every
// domain's mail, of any age.
type ImportOptions struct {
	// Domains, when set, keep only mail whose envelope sender is in one of
	// them or a subdomain (LogJoiner.Domains).
	Domains []string
	// Cutoff: messages sent before it are counted in Summary.TooOld and
	// not written (now minus the ledger's retention). Zero: none.
	Cutoff time.Time
	// DryRun reads and counts, and writes nothing.
	DryRun bool
	// Now and Location place the time stamps of RFC 3164 lines, which have
	// neither year nor zone (ParseLogLine). Zero: time.Now() when the
	// Importer is made, and time.Local.
	Now      time.Time
	Location *time.Location
	// OnError, if set, receives each failed write, which Summary.Errors
	// counts, on the import's writer goroutine.
	OnError func(error)
}

// ErrLedgerFailing is returned by Importer.AddLog once more than
// maxImportErrors records of the import could not be written: the ledger
// is failing, and reading more logs into it would only count more errors.
var ErrLedgerFailing = fmt.Errorf("postfixlog: more than %d records could not be written: the ledger is failing", maxImportErrors)

// maxImportErrors is the number of records not written past which an import
// reads no more logs.
const maxImportErrors = 100

// Batches of an import. The first is small and each is twice the last, up
// to importBatchMax: bbolt splits its pages only at commit, so the keys one
// transaction puts on one page cost it time in their number squared, and
// growing batches keep them few per page while the ledger is young (and a
// small import finishes at once).
//
// importBatchMax bounds what waits for the ledger: a batch being filled,
// one queued and one being written, each of at most importBatchMax
// records (with the ledger's own bound on a transaction, maxTxNodes pages,
// this is most of an import's memory).
const (
	importBatchFirst = 512
	importBatchMax   = 1024
	importPairsMax   = 65536 // pairs past the cap per batch
)

// ImportMemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
// that "ndrmilter ledger import" sets for its process unless GOMEMLIMIT is
// set. An import holds a bounded amount (about 15-20 MB live on a normal
// log: the batches above, one ledger transaction, the blocks ReadLog
// parses, the messages LogJoiner holds), but Go's collector lets the heap
// grow to twice what is live before it collects: the limit makes it
// collect before that instead. It is soft: a log whose pending messages
// hold more (LogJoiner's bounds allow far more) makes the collector run
// more often, never fail.
const ImportMemoryLimit = 32 << 20

// Importer reads Postfix logs into a ledger: LogJoiner joins their lines
// into Records, which are written in batches (ledger.MergeBatch: thousands
// per bbolt transaction, hundreds per Redis round trip) on one goroutine
// while the logs are read and parsed on others (ReadLog). The recipients
// of a message past ledger.MaxRecipients are written as pairs
// (ledger.RecordPairs), as the milter keeps them. The ledger merges each
// record into the one of its message, so an import is idempotent and
// completes what the milter or an earlier import recorded.
//
// An Importer is used from one goroutine: AddLog for each log, oldest
// first, then Finish, which must be called.
type Importer struct {
	ctx  context.Context
	led  ledger.Ledger // nil for a dry run
	opts ImportOptions
	j    LogJoiner
	read LogStats // of the logs added

	cur  *importBatch // being filled (by put and pastCap, on the caller's goroutine)
	size int          // records of the next batch
	work chan *importBatch
	done chan struct{}

	finished bool
	final    Summary

	mu  sync.Mutex
	sum Summary // the writer's counts
}

// importBatch is what one ledger.MergeBatch writes, with the pairs past the
// cap that came with it.
type importBatch struct {
	recs   []ledger.Record
	pairs  []importPairs
	npairs int
}

// importPairs are recipients past the cap of one message.
type importPairs struct {
	sender     string
	recipients []string
	t          time.Time
}

// NewImporter returns an Importer into l; a nil l is a dry run. ctx bounds
// the import: once it is done, AddLog stops and nothing more is written.
func NewImporter(ctx context.Context, l ledger.Ledger, opts ImportOptions) *Importer {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.DryRun {
		l = nil
	}
	imp := &Importer{ctx: ctx, led: l, opts: opts, size: importBatchFirst,
		work: make(chan *importBatch, 1), done: make(chan struct{}), cur: &importBatch{}}
	imp.j.Domains = opts.Domains
	imp.j.PastCap = imp.pastCap
	go func() {
		defer close(imp.done)
		for b := range imp.work {
			imp.write(b)
		}
	}()
	return imp
}

// Import reads one log, plain or gzip-compressed, into l (nil: a dry run)
// and returns what it did: an Importer's AddLog, then Finish. The error is
// the one that stopped the reading (the log's, the context's); the summary
// counts what was done before it, and records that could not be written are
// counted in Summary.Errors, not returned.
func Import(ctx context.Context, l ledger.Ledger, log io.Reader, opts ImportOptions) (Summary, error) {
	imp := NewImporter(ctx, l, opts)
	_, err := imp.AddLog(log)
	return imp.Finish(), err
}

// AddLog reads one log, plain or gzip-compressed (ReadLog), into the
// import, and returns the counts of its lines. A message whose lines go on
// in the next log (a rotation) is joined across them. It stops at a read
// error or when the import's context is done (at the next read of log: a
// read that blocks is the caller's to end, with a deadline), and reads
// nothing once the ledger is failing (ErrLedgerFailing).
func (imp *Importer) AddLog(log io.Reader) (LogStats, error) {
	if imp.finished {
		return LogStats{}, errors.New("postfixlog: a log added to an import after its Finish")
	}
	if err := imp.stopped(); err != nil {
		return LogStats{}, err
	}
	st, err := ReadLog(ctxReader{imp.ctx, log}, &imp.j, imp.opts.Now, imp.opts.Location, imp.put)
	imp.read.add(st)
	return st, err
}

// ctxReader reads r until ctx is done: a log of lines that give no record
// (another program's) does not run on after the import was stopped.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// stopped is why no more logs are read, or nil.
func (imp *Importer) stopped() error {
	if err := imp.ctx.Err(); err != nil {
		return err
	}
	imp.mu.Lock()
	defer imp.mu.Unlock()
	if imp.sum.Errors > maxImportErrors {
		return ErrLedgerFailing
	}
	return nil
}

// Finish writes the messages still pending when the logs end (deferred
// ones, or whose last lines are in no log read: they left, or tried to),
// waits for the writes and returns the summary. It may be called again and
// returns the same summary.
func (imp *Importer) Finish() Summary {
	if imp.finished {
		return imp.final
	}
	imp.finished = true
	for _, r := range imp.j.Flush() {
		if imp.put(r) != nil {
			break
		}
	}
	if imp.ctx.Err() == nil {
		imp.send()
	}
	close(imp.work)
	<-imp.done
	imp.mu.Lock()
	sum := imp.sum
	imp.mu.Unlock()
	sum.Lines, sum.Malformed = imp.read.Lines, imp.read.Malformed
	sum.Skipped, sum.Incomplete = imp.j.Skipped, imp.j.Dropped
	sum.CappedMessages, sum.CappedRecipients = imp.j.CappedMessages, imp.j.Capped
	sum.DryRun = imp.led == nil
	imp.final = sum
	return sum
}

// put queues r; it fails only when the import's context is done.
func (imp *Importer) put(r ledger.Record) error {
	if err := imp.ctx.Err(); err != nil {
		return err
	}
	if r.Time.Before(imp.opts.Cutoff) {
		imp.count(func(s *Summary) { s.TooOld++ })
		return nil
	}
	imp.cur.recs = append(imp.cur.recs, r)
	if len(imp.cur.recs) >= imp.size {
		return imp.send()
	}
	return nil
}

// pastCap queues the pairs of recipients past the cap of a message
// (LogJoiner.PastCap).
func (imp *Importer) pastCap(sender string, recipients []string, t time.Time) {
	if imp.ctx.Err() != nil || t.Before(imp.opts.Cutoff) {
		return
	}
	// One message's recipients come a thousand at a time: one write.
	if n := len(imp.cur.pairs); n > 0 && imp.cur.pairs[n-1].sender == sender && imp.cur.pairs[n-1].t.Equal(t) {
		imp.cur.pairs[n-1].recipients = append(imp.cur.pairs[n-1].recipients, recipients...)
	} else {
		imp.cur.pairs = append(imp.cur.pairs, importPairs{sender, recipients, t})
	}
	imp.cur.npairs += len(recipients)
	if imp.cur.npairs >= importPairsMax {
		imp.send()
	}
}

// send hands the batch being filled to the writer.
func (imp *Importer) send() error {
	b := imp.cur
	if len(b.recs) == 0 && len(b.pairs) == 0 {
		return nil
	}
	imp.cur = &importBatch{recs: make([]ledger.Record, 0, min(2*imp.size, importBatchMax))}
	imp.size = min(2*imp.size, importBatchMax)
	select {
	case imp.work <- b:
		return nil
	case <-imp.ctx.Done():
		return imp.ctx.Err()
	}
}

func (imp *Importer) count(f func(*Summary)) {
	imp.mu.Lock()
	f(&imp.sum)
	imp.mu.Unlock()
}

// fail counts n failed writes and reports err.
func (imp *Importer) fail(n int, err error) {
	imp.count(func(s *Summary) { s.Errors += n })
	if imp.opts.OnError != nil {
		imp.opts.OnError(err)
	}
}

// write writes one batch and counts what it changed. What an import
// stopped by its context has not written is not counted: not as an error
// either, since the ledger did not fail.
func (imp *Importer) write(b *importBatch) {
	if imp.led == nil {
		imp.count(func(s *Summary) { s.New += len(b.recs) })
		return
	}
	for _, p := range b.pairs {
		if err := ledger.RecordPairs(imp.ctx, imp.led, p.sender, p.recipients, p.t); err != nil {
			if imp.ctx.Err() != nil {
				return
			}
			imp.fail(1, fmt.Errorf("%d recipients past the cap of a message from %s: %w", len(p.recipients), p.sender, err))
		}
	}
	if len(b.recs) == 0 {
		return
	}
	changes, err := ledger.MergeBatch(imp.ctx, imp.led, b.recs)
	imp.count(func(s *Summary) {
		for _, c := range changes {
			switch c {
			case ledger.ChangeAdded:
				s.New++
			case ledger.ChangeMerged:
				s.Updated++
			case ledger.ChangeTooOld:
				s.TooOld++
			default:
				s.Known++
			}
		}
	})
	if err != nil && imp.ctx.Err() == nil {
		// MergeBatch wrote the records before the first it returns no
		// change for, and none after.
		n := len(b.recs) - len(changes)
		r := b.recs[min(len(changes), len(b.recs)-1)]
		imp.fail(n, fmt.Errorf("%d records from %s (queue id %s) on: %w", n, r.MessageID, r.QueueID, err))
	}
}
