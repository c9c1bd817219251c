package frontend

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Recorder writes the records of outbound mail to the ledger in the
// background. Mail is never held up for the ledger beyond RecordPolicy.Wait:
// records beyond the pending bound are dropped (logged and counted), and a
// write that fails (a shared ledger that is down) is retried with backoff
// for up to RecordPolicy.Retry, so that the bounces of mail sent during an
// outage are not called backscatter later.
type Recorder struct {
	l   ledger.Ledger
	m   *Metrics
	log *zap.Logger

	writes  sync.WaitGroup // records being written
	sem     chan struct{}  // one slot per pending record
	stop    chan struct{}  // closed by Stop: pending retries give up
	stopped sync.Once
}

// RecordPolicy is how one record is written.
type RecordPolicy struct {
	// Wait is how long Record waits for the write before returning (0: it
	// does not wait).
	Wait time.Duration
	// WriteTimeout bounds one attempt (0: DefaultWriteTimeout).
	WriteTimeout time.Duration
	// Retry is how long a failed write is retried, with backoff (0:
	// DefaultRecordRetry; negative: not retried).
	Retry time.Duration
}

// NewRecorder returns a Recorder writing to l with at most maxPending
// records in flight (0: DefaultMaxPendingRecords). With a nil l, Record
// does nothing. log may be nil.
func NewRecorder(l ledger.Ledger, m *Metrics, log *zap.Logger, maxPending int) *Recorder {
	if maxPending <= 0 {
		maxPending = DefaultMaxPendingRecords
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Recorder{l: l, m: m, log: log, sem: make(chan struct{}, maxPending), stop: make(chan struct{})}
}

// Record writes r in the background, waiting at most p.Wait for it; why is
// why the message is outbound, for the log.
func (q *Recorder) Record(r ledger.Record, why string, p RecordPolicy) {
	if q.l == nil {
		return
	}
	select {
	case q.sem <- struct{}{}:
	default:
		q.m.LedgerOps.WithLabelValues("put", "dropped").Inc()
		q.log.Warn("outbound record dropped: too many writes pending", zap.String("queue_id", r.QueueID),
			zap.String("message_id", r.MessageID))
		return
	}
	if p.WriteTimeout <= 0 {
		p.WriteTimeout = DefaultWriteTimeout
	}
	if p.Retry == 0 {
		p.Retry = DefaultRecordRetry
	}
	done := make(chan struct{})
	q.writes.Add(1)
	go func() {
		defer q.writes.Done()
		defer func() { <-q.sem }()
		defer close(done)
		q.write(r, why, p)
	}()
	if p.Wait > 0 {
		t := time.NewTimer(p.Wait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	}
}

// Backoff between retries of a failed outbound record.
const (
	firstRetryDelay = 250 * time.Millisecond
	maxRetryDelay   = 30 * time.Second
)

// write puts r in the ledger, retrying failures until p.Retry has passed or
// the Recorder stops.
func (q *Recorder) write(r ledger.Record, why string, p RecordPolicy) {
	first := time.Now()
	delay := firstRetryDelay
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), p.WriteTimeout)
		start := time.Now()
		err := q.l.Put(ctx, r)
		cancel()
		d := time.Since(start)
		q.m.LedgerLatency.WithLabelValues("put").Observe(d.Seconds())
		if err == nil {
			q.m.LedgerOps.WithLabelValues("put", "ok").Inc()
			q.log.Info("outbound recorded", zap.String("queue_id", r.QueueID), zap.String("message_id", r.MessageID),
				zap.String("sender", r.Sender), zap.Int("recipients", len(r.Recipients)), zap.String("why", why),
				zap.Int("attempt", attempt), zap.Float64("ms", float64(d.Microseconds())/1000))
			return
		}
		q.m.LedgerOps.WithLabelValues("put", "error").Inc()
		if time.Since(first)+delay > p.Retry {
			q.log.Error("outbound record not written", zap.String("queue_id", r.QueueID),
				zap.String("message_id", r.MessageID), zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		if attempt == 1 {
			q.log.Warn("outbound record not written yet, retrying", zap.String("queue_id", r.QueueID),
				zap.String("message_id", r.MessageID), zap.Error(err))
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-q.stop:
			t.Stop()
			q.log.Error("outbound record not written: shutting down", zap.String("queue_id", r.QueueID),
				zap.String("message_id", r.MessageID), zap.Int("attempts", attempt), zap.Error(err))
			return
		}
		delay = min(2*delay, maxRetryDelay)
	}
}

// Stop makes records waiting for a retry give up; writes in flight go on.
// Records written after Stop get no retry.
func (q *Recorder) Stop() {
	q.stopped.Do(func() { close(q.stop) })
}

// Wait waits until no record is being written, or ctx ends.
func (q *Recorder) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { q.writes.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
