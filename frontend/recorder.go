package frontend

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Recorder writes the records of outbound mail to the ledger. A front end
// acknowledges a message to its MTA only once its record is durable: in the
// ledger, or, when the ledger has not taken it within RecordPolicy.Wait
// (down, slow, or too many writes pending), in the local spool (UseSpool),
// fsynced, from which it is written once the ledger answers again, also
// after a restart. Mail is never refused or held longer than that for the
// ledger: without a spool (a data directory that cannot be written), a
// record the ledger does not take is retried in memory, with backoff, for
// up to RecordPolicy.Retry, and records beyond the pending bound are
// dropped; each loss is logged and counted. So the bounces of mail sent
// during an outage are not called backscatter later.
type Recorder struct {
	l   ledger.Ledger
	m   *Metrics
	log *zap.Logger
	p   Privacy

	sp      *spool         // nil: no spool
	spErr   error          // why there is no spool, for Health
	writes  sync.WaitGroup // records being written
	sem     chan struct{}  // one slot per pending record
	stop    chan struct{}  // closed by Stop: pending retries and the replay give up
	stopped sync.Once
	kick    chan struct{} // wakes the replay
	replayD chan struct{} // closed when the replay goroutine ends
}

// RecordPolicy is how one record is written.
type RecordPolicy struct {
	// Wait is how long Record waits for the ledger before it spools the
	// record (0: it does not wait: the record is written in the
	// background, and a kill in that moment loses it).
	Wait time.Duration
	// WriteTimeout bounds one attempt (0: DefaultWriteTimeout).
	WriteTimeout time.Duration
	// Retry is how long a failed write is retried in memory, with backoff,
	// when there is no spool (0: DefaultRecordRetry; negative: not
	// retried).
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
	return &Recorder{l: l, m: m, log: log, sem: make(chan struct{}, maxPending), stop: make(chan struct{}),
		kick: make(chan struct{}, 1)}
}

// SetPrivacy sets how the Recorder's log lines show addresses and
// Message-IDs.
func (q *Recorder) SetPrivacy(p Privacy) { q.p = p }

// UseSpool opens the spool in dir (created if needed), of at most max
// bytes (0: DefaultSpoolMax), and starts writing what it holds (records
// of an earlier run) to the ledger. Call it before the first Record. When
// the spool cannot be opened (a read-only data directory), the Recorder
// works without it, Health says so, and the error is returned.
func (q *Recorder) UseSpool(dir string, max int64) error {
	if q.l == nil {
		return nil
	}
	sp, err := openSpool(dir, max)
	if err != nil {
		q.spErr = err
		return err
	}
	q.sp = sp
	q.m.setSpool(sp)
	q.replayD = make(chan struct{})
	go q.replayLoop()
	if sp.pending() {
		q.log.Info("outbound records left in the spool by an earlier run: writing them to the ledger",
			zap.String("spool", dir), zap.Int64("bytes", sp.size()))
		q.wake()
	}
	return nil
}

// Health reports what keeps records from being durable: no spool, or the
// last write to it failed (a full disk). nil when all is well.
func (q *Recorder) Health() error {
	if q.l == nil {
		return nil
	}
	if q.spErr != nil {
		return q.spErr
	}
	if q.sp != nil {
		return q.sp.health()
	}
	return nil
}

// Record writes r, a record of an outbound message, waiting at most p.Wait
// for the ledger before it spools it; why is why the message is outbound,
// for the log. It returns once the record is durable (in the ledger or the
// spool), or when it cannot be made so without holding the mail longer.
func (q *Recorder) Record(r ledger.Record, why string, p RecordPolicy) {
	if q.l == nil {
		return
	}
	if p.WriteTimeout <= 0 {
		p.WriteTimeout = DefaultWriteTimeout
	}
	if p.Retry == 0 {
		p.Retry = DefaultRecordRetry
	}
	w := &pendingRecord{r: r, why: why, p: p, done: make(chan struct{})}
	select {
	case q.sem <- struct{}{}:
	default:
		// Too many writes pending: the ledger is slow or down.
		if q.trySpool(w, errors.New("too many writes pending")) {
			return
		}
		q.m.LedgerOps.WithLabelValues("put", "dropped").Inc()
		q.log.Error("outbound record lost: too many writes pending, and no spool took it", append(q.ids(r),
			zap.String("why", why))...)
		return
	}
	q.writes.Add(1)
	if p.Wait > 0 {
		// The first attempt runs on the caller's goroutine, bounded by
		// Wait: the caller waits for it anyway, and a goroutine of its
		// own, a timer, and the hand-offs to it and back cost the milter
		// a few per cent of its CPU for every outbound message (a
		// profile under scripts/bench-postfix). A ledger that has not
		// answered by then may still take the record (the embedded one
		// commits every Put queued); it is spooled all the same, and a
		// record put twice is merged, not doubled.
		err := q.put(r, min(p.Wait, p.WriteTimeout))
		if err == nil {
			q.recorded(w, 1)
		}
		if err == nil || q.trySpool(w, err) {
			<-q.sem
			q.writes.Done()
			return
		}
		// Neither in the ledger nor in the spool: retried in memory,
		// and the mail does not wait for the retries.
		go func() {
			defer q.writes.Done()
			defer func() { <-q.sem }()
			q.retry(w, err)
		}()
		return
	}
	go func() {
		defer q.writes.Done()
		defer func() { <-q.sem }()
		q.write(w)
	}()
}

// pendingRecord is a record being written.
type pendingRecord struct {
	r    ledger.Record
	why  string
	p    RecordPolicy
	done chan struct{} // closed once durable, or when the mail need not wait any more
	once sync.Once

	mu      sync.Mutex
	spooled bool // in the spool
}

func (w *pendingRecord) finish() { w.once.Do(func() { close(w.done) }) }

// isSpooled reports whether the record is in the spool.
func (w *pendingRecord) isSpooled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.spooled
}

// trySpool writes the record to the spool, once, and reports whether it is
// there. A spool that cannot take it (full, or its disk) is logged and
// counted; the record is then retried in memory, as without a spool.
func (q *Recorder) trySpool(w *pendingRecord, why error) bool {
	if q.sp == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spooled {
		return true
	}
	if err := q.sp.add(w.r); err != nil {
		q.m.RecordsSpooled.WithLabelValues(spoolFailed).Inc()
		q.log.Error("outbound record not spooled: kept in memory only", append(q.ids(w.r),
			zap.NamedError("ledger_error", why), zap.Error(err))...)
		return false
	}
	w.spooled = true
	q.m.RecordsSpooled.WithLabelValues(spoolSpooled).Inc()
	q.log.Warn("outbound record spooled: the ledger did not take it in time", append(q.ids(w.r), zap.Error(why))...)
	return true
}

// ids are the log fields that name a record.
func (q *Recorder) ids(r ledger.Record) []zap.Field {
	return []zap.Field{zap.String("queue_id", r.QueueID), zap.String("message_id", q.p.MessageID(r.MessageID))}
}

// Backoff between retries of a failed outbound record in memory.
const (
	firstRetryDelay = 250 * time.Millisecond
	maxRetryDelay   = 30 * time.Second
)

// Pace of the replay of the spool: it looks for spooled records this often
// when idle, and retries a failed replay with backoff up to
// maxReplayDelay, so that the spool is written within seconds of the
// ledger coming back, even when no new mail shows it is back. A write of
// new mail that succeeds starts a replay at once.
const (
	replayPoll     = time.Second
	maxReplayDelay = 5 * time.Second
)

// write puts a record in the ledger. When the ledger fails, the record goes
// to the spool; without a spool it is retried until its policy's Retry has
// passed or the Recorder stops.
func (q *Recorder) write(w *pendingRecord) {
	defer w.finish()
	err := q.put(w.r, w.p.WriteTimeout)
	if err == nil {
		q.recorded(w, 1)
		return
	}
	if q.trySpool(w, err) || w.isSpooled() {
		return // the replay writes it
	}
	q.retry(w, err)
}

// recorded logs a record the ledger took at attempt, and starts a replay
// of the spool if it holds records: the ledger answers again.
func (q *Recorder) recorded(w *pendingRecord, attempt int) {
	r := w.r
	q.log.Info("outbound recorded", append(q.ids(r), zap.String("sender", q.p.Address(r.Sender)),
		zap.Int("recipients", len(r.Recipients)), zap.String("why", w.why), zap.Int("attempt", attempt))...)
	if q.sp != nil && q.sp.pending() {
		q.wake()
	}
}

// retry writes a record that is not in the spool, whose first attempt
// failed with err, until its policy's Retry has passed or the Recorder
// stops. The mail does not wait for the retries.
func (q *Recorder) retry(w *pendingRecord, err error) {
	w.finish()
	r, p := w.r, w.p
	first := time.Now()
	delay := firstRetryDelay
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			if err = q.put(r, p.WriteTimeout); err == nil {
				q.recorded(w, attempt)
				return
			}
			if w.isSpooled() {
				return // the replay writes it
			}
		}
		if time.Since(first)+delay > p.Retry {
			q.m.LedgerOps.WithLabelValues("put", "dropped").Inc()
			q.log.Error("outbound record lost: not written", append(q.ids(r), zap.Int("attempts", attempt), zap.Error(err))...)
			return
		}
		if attempt == 1 {
			q.log.Warn("outbound record not written yet, retrying", append(q.ids(r), zap.Error(err))...)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-q.stop:
			t.Stop()
			q.m.LedgerOps.WithLabelValues("put", "dropped").Inc()
			q.log.Error("outbound record lost: not written, shutting down", append(q.ids(r), zap.Int("attempts", attempt), zap.Error(err))...)
			return
		}
		delay = min(2*delay, maxRetryDelay)
	}
}

// put is one attempt at writing r, timed and counted.
func (q *Recorder) put(r ledger.Record, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	start := time.Now()
	err := q.l.Put(ctx, r)
	cancel()
	q.m.LedgerLatency.WithLabelValues("put").Observe(time.Since(start).Seconds())
	if err != nil {
		q.m.LedgerOps.WithLabelValues("put", "error").Inc()
		return err
	}
	q.m.LedgerOps.WithLabelValues("put", "ok").Inc()
	return nil
}

// wake asks the replay to run now: the ledger answers.
func (q *Recorder) wake() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// replayLoop writes the spool to the ledger whenever it holds records,
// retrying with backoff while the ledger fails, until Stop.
func (q *Recorder) replayLoop() {
	defer close(q.replayD)
	var delay time.Duration // of the backoff; 0 when the last replay did not fail
	t := time.NewTimer(replayPoll)
	defer t.Stop()
	for {
		select {
		case <-q.stop:
			return
		case <-q.kick:
			delay = 0
		case <-t.C:
		}
		if q.sp.pending() {
			n, skipped, err := q.sp.replay(func(r ledger.Record) error {
				select {
				case <-q.stop:
					return errors.New("shutting down")
				default:
				}
				return q.put(r, DefaultWriteTimeout)
			})
			if n > 0 {
				q.m.RecordsSpooled.WithLabelValues(spoolReplayed).Add(float64(n))
			}
			if skipped > 0 {
				q.log.Error("damaged lines skipped in the record spool (cut by a crash?)", zap.Int("lines", skipped))
			}
			switch {
			case err != nil:
				delay = min(max(2*delay, replayPoll), maxReplayDelay)
				q.log.Warn("the ledger does not take the spooled records yet: retrying", zap.Int("written", n),
					zap.Int64("spool_bytes", q.sp.size()), zap.Duration("retry_in", delay), zap.Error(err))
			case n > 0:
				delay = 0
				q.log.Info("spooled outbound records written to the ledger", zap.Int("records", n))
			}
		}
		next := replayPoll
		if delay > 0 {
			next = delay
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(next)
	}
}

// Stop makes records waiting for a retry give up, and the replay of the
// spool stop (what is left stays for the next run); writes in flight go on.
// Records written after Stop get no retry.
func (q *Recorder) Stop() {
	q.stopped.Do(func() { close(q.stop) })
}

// Wait waits until no record is being written and the replay has stopped
// (after Stop), or ctx ends; then it closes the spool.
func (q *Recorder) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		q.writes.Wait()
		if q.replayD != nil {
			select {
			case <-q.stop:
				<-q.replayD
			default:
			}
		}
		close(done)
	}()
	select {
	case <-done:
		if q.sp != nil {
			select {
			case <-q.stop:
				q.sp.close()
			default:
			}
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
