package ledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Buckets of the bbolt ledger. Records live in bucketRecords under an 8-byte
// big-endian sequence number; the other buckets are indexes into it.
var (
	bucketRecords = []byte("records") // id -> JSON Record
	bucketTime    = []byte("time")    // time (8 bytes, unix ns) + id -> empty: expiry order
	bucketMsgID   = []byte("msgid")   // normalized Message-ID -> id
	bucketQueueID = []byte("queueid") // queue id -> id of the record of its message
	bucketPair    = []byte("pair")    // sender NUL recipient -> time (8 bytes, unix ns, latest)
	bucketSender  = []byte("sender")  // sender -> time of its latest sending (8 bytes, unix ns)
	bucketMeta    = []byte("meta")    // metaSince -> the time the ledger holds all it was given from (8 bytes, unix ns)
)

// metaSince is the key of Since in bucketMeta.
var metaSince = []byte("since")

// maxBatch bounds the number of records committed in one transaction.
const maxBatch = 1000

// sweepChunk bounds the records expired in one transaction, so that a sweep
// never holds the write lock for long.
const sweepChunk = 1000

// boltLedger is the embedded ledger: one bbolt file, and its write-ahead
// journal (see bolt_journal.go). Puts queue up, and one of them at a time,
// the committer, journals every Put queued in one write and one fdatasync
// (group commit), so that N concurrent writers cost one sync, not N; the
// applier writes the journalled records into bbolt in batches.
type boltLedger struct {
	db  *bolt.DB
	o   Options
	now func() time.Time

	mu     sync.RWMutex // guards closed and additions to queue
	closed bool

	// Puts waiting for the journal: see commitNext.
	qmu        sync.Mutex
	queue      []putReq     // in order
	queued     atomic.Int64 // len(queue), read without the lock
	committing bool         // a Put commits a group, or was handed the next one
	qidle      sync.Cond    // on qmu: committing went false
	batch      []putReq     // the committer's group (one committer at a time)

	stop     chan struct{}
	sweepD   chan struct{}
	applyD   chan struct{}
	applyEnd chan struct{} // closed to stop the applier

	// The journal; only the committer (and openBolt and Close, when none
	// runs) uses it.
	journal *journalFile
	// journalTail says why the journal read at open ended early (a torn
	// write, damage), nil when it did not.
	journalTail error
	replayed    int // records of the journal written into bbolt at open

	applyMu  sync.Mutex    // held by whoever writes journalled records into bbolt
	pendMu   sync.Mutex    // guards pending
	pending  []journalled  // journalled, durable, not yet in bbolt: in order
	pendingN atomic.Int64  // len(pending), read without the lock
	applied  atomic.Uint64 // sequence number of the last journalled record in bbolt
	// published is the sequence number of the last journalled record
	// whose Put may have returned: what a read must see (settle).
	published atomic.Uint64
	kick      chan struct{} // tells the applier there is something pending
	// journalling is true while a committer writes and syncs a group,
	// and journalled is when it last finished one (time since epoch): no
	// quiet moment for the applier (quietMoment).
	journalling atomic.Bool
	journalled  atomic.Int64
	// mergeWaits is set when a Merge's record is journalled: the applier
	// writes it into bbolt at the next quiet moment (quietMoment).
	mergeWaits atomic.Bool
	epoch      time.Time

	pairMu     sync.Mutex // guards pairNext and senderNext
	pairNext   []byte     // where the next sweepPairs starts; nil: at the first pair
	senderNext []byte     // where the next sweepSenders starts; nil: at the first sender

	// observeTx, when set (by tests, before any write), is told the
	// records and pairs of each transaction of MergeBatch and RecordPairs.
	observeTx func(records, pairs int)
}

type putReq struct {
	r     Record
	merge bool // a Merge: done gets the Change once the record is in bbolt
	done  chan putResult
}

type putResult struct {
	change Change
	err    error
	lead   bool // not a result: the Put is to commit the next group (commitNext)
}

// boltRecord is the stored form of a Record: the Record (in the JSON form
// records had before they were merged) and the other queue ids that point
// to it, so that the sweep deletes their index entries with it.
type boltRecord struct {
	Record
	// QueueIDs are the queue ids recorded after QueueID, oldest first.
	QueueIDs []string `json:",omitempty"`
}

// maxQueueIDs bounds the queue ids of one record. Past it the oldest queue
// id stops finding the record: it is the one least likely to be named by a
// bounce still to come.
const maxQueueIDs = 1000

// pairScanChunk bounds the (sender, recipient) pairs one sweep reads in its
// scan of the pair index (see sweepPairs).
const pairScanChunk = 10000

// OpenBolt opens (creating if needed) the bbolt ledger at path, and its
// journal at path+"-journal" (4 MiB, written once when it is created): a
// Put returns once its record is in the journal, and the records a crash
// left there are written into bbolt before OpenBolt returns (see
// bolt_journal.go). Records are kept for o.Retention (default 30 days); a
// background sweep removes older ones every o.SweepInterval (default: an
// hour, or Retention/24 if shorter).
func OpenBolt(path string, o Options) (Ledger, error) {
	return openBolt(path, o, time.Now)
}

// openBolt is OpenBolt with a clock (tests move it forward).
func openBolt(path string, o Options, now func() time.Time) (*boltLedger, error) {
	o = o.withDefaults()
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("ledger: creating the directory of %s: %w", path, err)
	}
	db, err := bolt.Open(path, 0o640, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("ledger: %s is locked by another process (is another ndrmilter running?)", path)
		}
		return nil, fmt.Errorf("ledger: opening %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRecords, bucketTime, bucketMsgID, bucketQueueID, bucketPair} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return initSenders(tx, now())
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger: initialising %s: %w", path, err)
	}
	l := &boltLedger{
		db:       db,
		o:        o,
		now:      now,
		stop:     make(chan struct{}),
		sweepD:   make(chan struct{}),
		applyD:   make(chan struct{}),
		applyEnd: make(chan struct{}),
		kick:     make(chan struct{}, 1),
		epoch:    time.Now(),
	}
	if err := l.openJournal(path + "-journal"); err != nil {
		db.Close()
		return nil, err
	}
	l.qidle.L = &l.qmu
	go l.applier()
	go l.sweeper()
	return l, nil
}

func (l *boltLedger) cutoff() time.Time { return l.now().Add(-l.o.Retention) }

// Put journals r with every Put pending (group commit) and returns once
// the journal is synced: r is durable, and every read of the ledger sees
// it. If ctx ends first, Put returns ctx's error and r may still be
// recorded. A record older than the retention window is not stored.
func (l *boltLedger) Put(ctx context.Context, r Record) error {
	_, err := l.put(ctx, r, false)
	return err
}

// Merge is Put that reports what writing r into bbolt changed: it returns
// once r is in bbolt.
func (l *boltLedger) Merge(ctx context.Context, r Record) (Change, error) {
	return l.put(ctx, r, true)
}

func (l *boltLedger) put(ctx context.Context, r Record, merge bool) (Change, error) {
	r = r.Normalize(l.now())
	if r.MessageID == "" && r.QueueID == "" && (r.Sender == "" || len(r.Recipients) == 0) {
		return ChangeNone, errors.New("ledger: record has no Message-ID, no queue id and no sender/recipient pair: nothing to look it up by")
	}
	if r.Time.Before(l.cutoff()) {
		return ChangeTooOld, nil
	}
	req := putReq{r: r, merge: merge, done: make(chan putResult, 1)}
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return ChangeNone, errors.New("ledger: closed")
	}
	lead := l.enqueue(req)
	l.mu.RUnlock()
	if lead {
		l.commitNext()
	}
	for {
		select {
		case res := <-req.done:
			if res.lead {
				l.commitNext()
				continue
			}
			return res.change, res.err
		case <-ctx.Done():
			// The record is queued: the group that holds it may still
			// fall to this Put to commit, which a goroutine then does.
			go l.await(req)
			return ChangeNone, ctx.Err()
		}
	}
}

// enqueue queues req for the journal and reports whether the caller is
// to commit the next group (no one else is committing). The caller holds
// l.mu for reading, so that Close sees every Put queued.
func (l *boltLedger) enqueue(req putReq) bool {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	l.queue = append(l.queue, req)
	l.queued.Store(int64(len(l.queue)))
	if l.committing {
		return false
	}
	l.committing = true
	return true
}

// await takes on the duty of a Put whose caller left (its context ended):
// committing the next group when it falls to it.
func (l *boltLedger) await(req putReq) {
	for res := range req.done {
		if !res.lead {
			return
		}
		l.commitNext()
	}
}

// commitNext commits the next group: the Puts queued (up to maxBatch), in
// one write and one fdatasync of the journal, and acknowledges them; then
// it hands the next group, queued meanwhile, to the first Put of it, or,
// with nothing queued, lets the next Put commit its own. So a lone Put
// writes and syncs its record itself, with no hand-off to another
// goroutine and back (make bench-record, callers=1), and concurrent Puts
// share a sync, as with a committer goroutine of its own.
func (l *boltLedger) commitNext() {
	l.qmu.Lock()
	n := min(len(l.queue), maxBatch)
	l.batch = append(l.batch[:0], l.queue[:n]...)
	rest := copy(l.queue, l.queue[n:])
	clear(l.queue[rest:])
	l.queue = l.queue[:rest]
	l.queued.Store(int64(rest))
	l.qmu.Unlock()

	l.journalling.Store(true)
	l.commitGroup(l.batch)
	l.journalled.Store(int64(time.Since(l.epoch)))
	l.journalling.Store(false)
	clear(l.batch) // the records are not kept past their commit
	if cap(l.batch) > 4*maxBatch/10 && n < maxBatch/10 {
		l.batch = nil // a burst's array is not kept
	}
	// The callers just acknowledged are runnable: let them run before
	// the next group is taken, so that those that Put again at once are
	// in it. Otherwise the Put handed the next group (the scheduler runs
	// a goroutine woken by a send next) syncs a group of a few while the
	// others queue for a whole sync more: with 10 callers, groups
	// alternated between a few records and the rest, and a Put waited
	// for about two syncs. Measured in one process with the committer
	// goroutine this replaced, turns of 300 Puts with and without, 8
	// runs: callers=10 a mean of 0.41-1.78 ms against 0.68-2.25 ms
	// without (14-44% less in each run); with 1 caller there is no one
	// else to let run.
	if n > 1 {
		runtime.Gosched()
	}

	l.qmu.Lock()
	if len(l.queue) == 0 {
		if cap(l.queue) > maxBatch {
			l.queue = nil
		}
		l.committing = false
		l.qidle.Broadcast()
		l.qmu.Unlock()
		return
	}
	next := l.queue[0].done
	l.qmu.Unlock()
	next <- putResult{lead: true}
}

func timeKey(t time.Time, id uint64) []byte {
	k := make([]byte, 16)
	binary.BigEndian.PutUint64(k, uint64(t.UnixNano()))
	binary.BigEndian.PutUint64(k[8:], id)
	return k
}

func u64(v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return b
}

func pairKey(sender, rcpt string) []byte {
	k := make([]byte, 0, len(sender)+1+len(rcpt))
	k = append(k, sender...)
	k = append(k, 0)
	return append(k, rcpt...)
}

// putTx merges r into the record of its message (see Ledger), inside the
// group commit's transaction: whatever else the batch or a concurrent Put
// writes, the read, the merge and the writes of the indexes are one atomic
// step.
func putTx(tx *bolt.Tx, r Record, cutoff time.Time) (Change, error) {
	recs, mids, qids := tx.Bucket(bucketRecords), tx.Bucket(bucketMsgID), tx.Bucket(bucketQueueID)
	// load returns the live record that an index entry points to; an
	// expired or unreadable record counts as none, and is replaced.
	load := func(id []byte) (boltRecord, bool) {
		var br boltRecord
		data := recs.Get(id)
		if data == nil || json.Unmarshal(data, &br) != nil || br.Time.Before(cutoff) {
			return boltRecord{}, false
		}
		return br, true
	}

	// The record of r's message: by Message-ID, else by queue id.
	var id []byte // its key in bucketRecords; nil: a new record
	var old boltRecord
	if r.MessageID != "" {
		if v := mids.Get([]byte(r.MessageID)); v != nil {
			if br, ok := load(v); ok {
				id, old = bytes.Clone(v), br
			}
		}
	}
	var absorb []byte // a record of the same message kept under the queue id alone
	var absorbed boltRecord
	if r.QueueID != "" {
		if v := qids.Get([]byte(r.QueueID)); v != nil && !bytes.Equal(v, id) {
			if br, ok := load(v); ok {
				switch {
				case id == nil && (r.MessageID == "" || br.MessageID == ""):
					id, old = bytes.Clone(v), br // the queue file's record is this message's
				case br.MessageID == "":
					absorb, absorbed = bytes.Clone(v), br
				}
				// Otherwise the queue id was another message's: it moves.
			}
		}
	}

	change := ChangeMerged
	if id == nil {
		seq, err := recs.NextSequence()
		if err != nil {
			return ChangeNone, err
		}
		id, change = u64(seq), ChangeAdded
	}
	cur := old
	changed := false
	var moved []string // queue ids to point to id
	if absorb != nil {
		cur.Record, changed = merge(cur.Record, absorbed.Record)
		for _, q := range append([]string{absorbed.QueueID}, absorbed.QueueIDs...) {
			if q != "" && bytes.Equal(qids.Get([]byte(q)), absorb) {
				moved = append(moved, q)
			}
		}
	}
	var grew bool
	cur.Record, grew = merge(cur.Record, r)
	changed = changed || grew
	if r.QueueID != "" {
		moved = append(moved, r.QueueID)
	}
	// A new record's id is in no index yet: only a merge looks there.
	for _, q := range moved {
		if addQueueID(qids, &cur, q, id) || change == ChangeAdded || !bytes.Equal(qids.Get([]byte(q)), id) {
			changed = true
		}
	}
	if change == ChangeMerged && !changed {
		change = ChangeNone
	}

	if change != ChangeNone {
		data, err := json.Marshal(cur)
		if err != nil {
			return ChangeNone, err
		}
		if err := recs.Put(id, data); err != nil {
			return ChangeNone, err
		}
		times := tx.Bucket(bucketTime)
		if change == ChangeMerged && !old.Time.Equal(cur.Time) {
			if err := times.Delete(timeKey(old.Time, binary.BigEndian.Uint64(id))); err != nil {
				return ChangeNone, err
			}
		}
		if err := times.Put(timeKey(cur.Time, binary.BigEndian.Uint64(id)), nil); err != nil {
			return ChangeNone, err
		}
		if cur.MessageID != "" && (change == ChangeAdded || !bytes.Equal(mids.Get([]byte(cur.MessageID)), id)) {
			if err := mids.Put([]byte(cur.MessageID), id); err != nil {
				return ChangeNone, err
			}
		}
		// Only the queue ids of this Put move: one recorded earlier may
		// since name another message.
		for _, q := range moved {
			if err := qids.Put([]byte(q), id); err != nil {
				return ChangeNone, err
			}
		}
	}
	if absorb != nil {
		if err := recs.Delete(absorb); err != nil {
			return ChangeNone, err
		}
		if err := tx.Bucket(bucketTime).Delete(timeKey(absorbed.Time, binary.BigEndian.Uint64(absorb))); err != nil {
			return ChangeNone, err
		}
	}

	if r.Sender != "" {
		if err := noteSender(tx, r.Sender, r.Time); err != nil {
			return ChangeNone, err
		}
		pairs := tx.Bucket(bucketPair)
		ts := uint64(r.Time.UnixNano())
		for _, rc := range r.Recipients {
			k := pairKey(r.Sender, rc)
			if old := pairs.Get(k); len(old) == 8 && binary.BigEndian.Uint64(old) >= ts {
				continue // a later send of the same pair is already there
			}
			if err := pairs.Put(k, u64(ts)); err != nil {
				return ChangeNone, err
			}
		}
	}
	return change, nil
}

// addQueueID notes that queue id q finds the record br (key id), and
// reports whether that is new. Past maxQueueIDs the oldest queue id is
// forgotten, and its index entry deleted if it still points to id.
func addQueueID(qids *bolt.Bucket, br *boltRecord, q string, id []byte) bool {
	if q == "" || q == br.QueueID || slices.Contains(br.QueueIDs, q) {
		return false
	}
	if br.QueueID == "" {
		br.QueueID = q
		return true
	}
	if len(br.QueueIDs) >= maxQueueIDs {
		oldest := br.QueueIDs[0]
		br.QueueIDs = slices.Delete(br.QueueIDs, 0, 1)
		if bytes.Equal(qids.Get([]byte(oldest)), id) {
			qids.Delete([]byte(oldest))
		}
	}
	br.QueueIDs = append(br.QueueIDs, q)
	return true
}

// byIndex looks key up in an index bucket and returns the record it points
// to, once the pending records that match affects are in bbolt (settleIf).
func (l *boltLedger) byIndex(ctx context.Context, bucket []byte, key string, affects func(*Record) bool) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	if key == "" {
		return Record{}, ErrNotFound
	}
	if err := l.settleIf(affects); err != nil {
		return Record{}, err
	}
	var r Record
	err := l.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bucket).Get([]byte(key))
		if id == nil {
			return ErrNotFound
		}
		data := tx.Bucket(bucketRecords).Get(id)
		if data == nil {
			return ErrNotFound
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("ledger: record %x is corrupt: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	if r.Time.Before(l.cutoff()) {
		return Record{}, ErrNotFound
	}
	return r, nil
}

// ByMessageID returns the record with that Message-ID (compared in the
// form NormalizeMessageID gives).
func (l *boltLedger) ByMessageID(ctx context.Context, messageID string) (Record, error) {
	m := NormalizeMessageID(messageID)
	// Only a record of that Message-ID, or one without a Message-ID (it
	// merges by queue id), can change the answer (putTx).
	return l.byIndex(ctx, bucketMsgID, m, func(p *Record) bool { return p.MessageID == m || p.MessageID == "" })
}

// ByQueueID returns the record of the message with that queue id.
func (l *boltLedger) ByQueueID(ctx context.Context, queueID string) (Record, error) {
	target, applied := l.published.Load(), l.applied.Load()
	// A record with that queue id moves it; one without a Message-ID
	// merges by queue id (putTx).
	r, err := l.byIndex(ctx, bucketQueueID, queueID, func(p *Record) bool { return p.QueueID == queueID || p.MessageID == "" })
	if err != nil || r.MessageID == "" || l.pendingN.Load() == 0 {
		return r, err
	}
	// A pending record of the message found merges into it. If a batch
	// went into bbolt meanwhile, what the read saw is not known: read
	// again once everything is in.
	if l.appliedOrPending(applied, target, func(p *Record) bool { return p.MessageID == r.MessageID }) {
		if err := l.settle(); err != nil {
			return Record{}, err
		}
		return l.byIndex(ctx, bucketQueueID, queueID, func(*Record) bool { return false })
	}
	return r, nil
}

// SentTo reports whether sender sent to recipient within the retention window.
func (l *boltLedger) SentTo(ctx context.Context, sender, recipient string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	sender, recipient = NormalizeAddress(sender), NormalizeAddress(recipient)
	if sender == "" || recipient == "" {
		return false, nil
	}
	// Pairs come from each Put's own sender and recipients (putTx): a
	// pending one is the answer, and without one bbolt has the rest.
	cutoff := l.cutoff()
	if l.pendingN.Load() > 0 && l.pendingSince(l.published.Load(), func(p *Record) bool {
		return p.Sender == sender && !p.Time.Before(cutoff) && slices.Contains(p.Recipients, recipient)
	}) {
		return true, nil
	}
	var ts uint64
	err := l.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketPair).Get(pairKey(sender, recipient)); len(v) == 8 {
			ts = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return ts != 0 && int64(ts) >= l.cutoff().UnixNano(), nil
}

// LastSent returns the time of sender's latest sending within the
// retention window, from the sender index.
func (l *boltLedger) LastSent(ctx context.Context, sender string) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	sender = NormalizeAddress(sender)
	if sender == "" {
		return time.Time{}, ErrNotFound
	}
	// The sender index comes from each Put's own sender and time (putTx):
	// only that sender's pending records change the answer.
	if err := l.settleIf(func(p *Record) bool { return p.Sender == sender }); err != nil {
		return time.Time{}, err
	}
	var ts uint64
	err := l.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketSender).Get([]byte(sender)); len(v) == 8 {
			ts = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	if err != nil {
		return time.Time{}, err
	}
	if ts == 0 || int64(ts) < l.cutoff().UnixNano() {
		return time.Time{}, ErrNotFound
	}
	return time.Unix(0, int64(ts)), nil
}

// Since returns the time the ledger file was created, or, for a file
// created by a version without the sender index, the time of its oldest
// record when the index was built from its pairs at the first open (see
// initSenders).
func (l *boltLedger) Since(ctx context.Context) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	if err := l.settle(); err != nil {
		return time.Time{}, err
	}
	var t time.Time
	err := l.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(metaSince)
		if len(v) != 8 {
			return errors.New("ledger: the time the ledger began is missing from its meta bucket")
		}
		t = time.Unix(0, int64(binary.BigEndian.Uint64(v)))
		return nil
	})
	return t, err
}

// Stats counts the records and reports the oldest and newest times.
func (l *boltLedger) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Backend: "bbolt " + l.db.Path()}
	if err := l.settle(); err != nil {
		return st, err
	}
	err := l.db.View(func(tx *bolt.Tx) error {
		st.Records = int64(tx.Bucket(bucketRecords).Stats().KeyN)
		st.Bytes = tx.Size()
		c := tx.Bucket(bucketTime).Cursor()
		if k, _ := c.First(); len(k) == 16 {
			st.Oldest = time.Unix(0, int64(binary.BigEndian.Uint64(k)))
		}
		if k, _ := c.Last(); len(k) == 16 {
			st.Newest = time.Unix(0, int64(binary.BigEndian.Uint64(k)))
		}
		return nil
	})
	return st, err
}

// sweeper expires old records at open and then periodically.
func (l *boltLedger) sweeper() {
	defer close(l.sweepD)
	every := l.o.SweepInterval
	if every <= 0 {
		every = min(time.Hour, l.o.Retention/24)
		every = max(every, time.Second)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		l.sweep()
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
	}
}

// sweep deletes every record older than the retention window, in chunks of
// sweepChunk records per transaction. It returns the number deleted.
func (l *boltLedger) sweep() int {
	total := 0
	l.settle() // on an error, the records it could not write are not swept
	for {
		n := 0
		cut := uint64(l.cutoff().UnixNano())
		err := l.db.Update(func(tx *bolt.Tx) error {
			recs, times := tx.Bucket(bucketRecords), tx.Bucket(bucketTime)
			mids, qids, pairs := tx.Bucket(bucketMsgID), tx.Bucket(bucketQueueID), tx.Bucket(bucketPair)
			c := times.Cursor()
			for k, _ := c.First(); k != nil && n < sweepChunk; k, _ = c.First() {
				if len(k) != 16 || binary.BigEndian.Uint64(k) >= cut {
					break
				}
				id := k[8:16]
				if data := recs.Get(id); data != nil {
					var r boltRecord
					if json.Unmarshal(data, &r) == nil {
						if v := mids.Get([]byte(r.MessageID)); r.MessageID != "" && string(v) == string(id) {
							if err := mids.Delete([]byte(r.MessageID)); err != nil {
								return err
							}
						}
						for _, q := range append([]string{r.QueueID}, r.QueueIDs...) {
							if v := qids.Get([]byte(q)); q != "" && string(v) == string(id) {
								if err := qids.Delete([]byte(q)); err != nil {
									return err
								}
							}
						}
						for _, rc := range r.Recipients {
							pk := pairKey(r.Sender, rc)
							if v := pairs.Get(pk); len(v) == 8 && binary.BigEndian.Uint64(v) < cut {
								if err := pairs.Delete(pk); err != nil {
									return err
								}
							}
						}
					}
					if err := recs.Delete(append([]byte(nil), id...)); err != nil {
						return err
					}
				}
				if err := c.Delete(); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		total += n
		if err != nil || n < sweepChunk {
			l.sweepPairs()
			l.sweepSenders()
			return total
		}
	}
}

// sweepPairs deletes expired (sender, recipient) pairs that the sweep of
// their record does not reach: pairs of a sender other than the record's
// (a message recorded by two senders), of recipients past MaxRecipients, of
// records without a Message-ID or queue id that were merged away. It reads
// at most pairScanChunk pairs per call, going on where the last call
// stopped, so that the whole index is reviewed over some sweeps without
// holding the write lock for long. It returns the number deleted.
func (l *boltLedger) sweepPairs() int {
	l.pairMu.Lock()
	defer l.pairMu.Unlock()
	cut := uint64(l.cutoff().UnixNano())
	n, next := l.sweepBucket(bucketPair, l.pairNext, func(v []byte) bool {
		return len(v) == 8 && binary.BigEndian.Uint64(v) < cut
	})
	l.pairNext = next
	return n
}

// sweepBucket deletes the keys of bucket whose value expired says is past
// retention, reading at most pairScanChunk of them from next (the key the
// last call stopped at; nil: the first). It returns how many it deleted
// and where the next call goes on (nil: from the first again). On an error
// it deletes nothing, and the next call tries the same keys again. The
// caller holds pairMu.
func (l *boltLedger) sweepBucket(bucket, next []byte, expired func(v []byte) bool) (int, []byte) {
	var gone [][]byte
	from := next
	err := l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		c := b.Cursor()
		k, v := c.First()
		if from != nil {
			k, v = c.Seek(from)
		}
		next = nil
		for i := 0; k != nil; k, v = c.Next() {
			if i++; i > pairScanChunk {
				next = bytes.Clone(k)
				break
			}
			if expired(v) {
				gone = append(gone, bytes.Clone(k))
			}
		}
		// Deleted after the scan: a bbolt cursor may skip a key that
		// follows one deleted under it.
		for _, k := range gone {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, from
	}
	return len(gone), next
}

// Close stops accepting records, writes those journalled into bbolt, and
// closes the files. Records it cannot write into bbolt stay in the
// journal, and are written at the next open.
func (l *boltLedger) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	// Every Put queued before closed was set is committed first.
	l.qmu.Lock()
	for l.committing {
		l.qidle.Wait()
	}
	l.qmu.Unlock()
	close(l.applyEnd)
	<-l.applyD
	close(l.stop)
	<-l.sweepD
	err := l.apply()
	if err != nil {
		err = fmt.Errorf("ledger: %d journalled records are not in the ledger file yet (they will be written at the next open): %w", l.pendingN.Load(), err)
	}
	jerr := l.journal.f.Close()
	return errors.Join(err, jerr, l.db.Close())
}
