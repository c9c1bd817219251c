package ledger

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The committer and the applier of the bbolt ledger's journal (see
// bolt_journal.go): the committer (commitNext) journals Puts, the applier writes
// journalled records into bbolt, and settle makes a read wait for them.

// journalled is a record in the journal, durable, not yet in bbolt.
type journalled struct {
	seq  uint64
	r    Record
	done chan putResult // a Merge's: told the Change once r is in bbolt; nil for a Put
}

// openJournal opens the journal at path, writes into bbolt the records it
// holds that bbolt lacks (records acknowledged before a crash), and
// starts the journal over.
func (l *boltLedger) openJournal(path string) error {
	j, data, err := openJournalFile(path)
	if err != nil {
		return err
	}
	var applied uint64
	err = l.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(metaJournalApplied); len(v) == 8 {
			applied = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	if err != nil {
		j.f.Close()
		return fmt.Errorf("ledger: reading where the journal was applied to: %w", err)
	}
	last := applied
	var undecodable int
	_, tailErr := readFrames(data, func(seq uint64, payload []byte) {
		last = max(last, seq)
		if seq <= applied {
			return
		}
		var r Record
		if err := json.Unmarshal(payload, &r); err != nil {
			undecodable++ // checked by its CRC, so written by a version that wrote another form
			return
		}
		l.pending = append(l.pending, journalled{seq: seq, r: r})
	})
	if tailErr != nil {
		l.journalTail = tailErr
		log.Printf("%v; %d records before it replayed", tailErr, len(l.pending))
	}
	if undecodable > 0 {
		log.Printf("ledger journal %s: %d records are not in the form of a Record, ignored", path, undecodable)
	}
	l.pendingN.Store(int64(len(l.pending)))
	l.replayed = len(l.pending)
	l.applied.Store(applied)
	j.seq = last
	l.journal = j
	// The records of the journal go into bbolt before the ledger serves:
	// reads and the sweep see them, and the journal starts over.
	if err := l.apply(); err != nil {
		j.f.Close()
		return fmt.Errorf("ledger: writing the %d records of the journal %s into the ledger file: %w", len(l.pending), path, err)
	}
	// Every frame of the file is in bbolt now, or is one that cannot be
	// (see undecodable): the next write starts the journal over.
	l.applied.Store(last)
	l.published.Store(last)
	return nil
}

// commitGroup journals the records of batch, in order, and acknowledges
// them. Records go to the journal in writes that fit in it; when the next
// does not fit, the records before it are written into bbolt first (the
// journal is full: the Put waits for bbolt's commit, as it did without a
// journal) and the journal starts over. A record too large for the journal
// goes to bbolt directly, after the records before it.
func (l *boltLedger) commitGroup(batch []putReq) {
	j := l.journal
	payloads := make([][]byte, 0, len(batch))
	group := batch[:0:0] // the requests of payloads
	size := 0
	flush := func() {
		if len(group) == 0 {
			return
		}
		l.journalWrite(group, payloads)
		payloads, group, size = payloads[:0], group[:0:0], 0
	}
	for i, req := range batch {
		p, err := json.Marshal(req.r)
		if err != nil {
			req.done <- putResult{change: ChangeNone, err: fmt.Errorf("ledger: encoding a record for the journal: %w", err)}
			continue
		}
		if len(p) > maxFramePayload {
			flush()
			c, err := l.applyDirect(req.r)
			req.done <- putResult{change: c, err: err}
			continue
		}
		if !j.fits(len(group)+1, size+len(p)) {
			flush()
			if err := l.makeRoom(); err != nil {
				for _, req := range batch[i:] {
					req.done <- putResult{change: ChangeNone, err: err}
				}
				return
			}
		}
		payloads = append(payloads, p)
		group = append(group, req)
		size += len(p)
	}
	flush()
}

// makeRoom starts the journal over once every record in it is in bbolt,
// writing them into bbolt first if the applier has not yet.
func (l *boltLedger) makeRoom() error {
	j := l.journal
	if l.applied.Load() != j.seq {
		if err := l.apply(); err != nil {
			return fmt.Errorf("ledger: the journal is full (%d bytes) and the ledger file does not take its records: %w", journalSize, err)
		}
	}
	j.end = 0
	return nil
}

// journalWrite writes the records of group (their payloads) to the journal
// and syncs it, hands them to the applier, and acknowledges the Puts.
func (l *boltLedger) journalWrite(group []putReq, payloads [][]byte) {
	j := l.journal
	if j.end > 0 && l.applied.Load() == j.seq {
		j.end = 0 // all in bbolt: a checkpoint
	}
	first := j.seq + 1
	if err := j.write(payloads); err != nil {
		for _, req := range group {
			req.done <- putResult{change: ChangeNone, err: err}
		}
		return
	}
	l.pendMu.Lock()
	// The applier is told when pending was empty: with records pending
	// it is already waiting for a quiet moment (quietMoment reads the
	// time of the last write), or writing them (applyAll empties
	// pending before it waits again). A kick for every group woke it at
	// every Put.
	// It is told too when pending reaches applyBacklog.
	wake := len(l.pending) == 0 || len(l.pending) < applyBacklog && len(l.pending)+len(group) >= applyBacklog
	merge := false
	for i, req := range group {
		e := journalled{seq: first + uint64(i), r: req.r}
		if req.merge {
			e.done = req.done
			merge = true
		}
		l.pending = append(l.pending, e)
	}
	l.pendingN.Store(int64(len(l.pending)))
	l.published.Store(j.seq)
	l.pendMu.Unlock()
	if merge {
		// A Merge returns once its record is in bbolt: the applier
		// goes at the next quiet moment, without waiting applyAge.
		l.mergeWaits.Store(true)
		wake = true
	}
	if wake {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	for _, req := range group {
		if !req.merge {
			req.done <- putResult{change: ChangeNone, err: nil}
		}
	}
}

// applyDirect writes r into bbolt in a transaction of its own, after the
// records journalled before it.
func (l *boltLedger) applyDirect(r Record) (Change, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()
	if err := l.applyLocked(); err != nil {
		return ChangeNone, err
	}
	var c Change
	cutoff := l.cutoff()
	err := l.db.Update(func(tx *bolt.Tx) error {
		var err error
		c, err = putTx(tx, r, cutoff)
		return err
	})
	if err != nil {
		return ChangeNone, fmt.Errorf("ledger: writing a record: %w", err)
	}
	return c, nil
}

// applier writes journalled records into bbolt at the first quiet moment
// after they come, and again after a delay while bbolt fails (a full
// disk).
func (l *boltLedger) applier() {
	defer close(l.applyD)
	const minRetry, maxRetry = 10 * time.Millisecond, 2 * time.Second
	retry := time.Duration(0)
	var again <-chan time.Time
	for {
		select {
		case <-l.applyEnd:
			return
		case <-l.kick:
			if !l.quietMoment() {
				return
			}
		case <-again:
		}
		// The Merges journalled so far are in pending: this applyAll
		// writes them.
		l.mergeWaits.Store(false)
		if err := l.applyAll(); err != nil {
			retry = min(max(2*retry, minRetry), maxRetry)
			again = time.After(retry)
		} else {
			retry, again = 0, nil
		}
	}
}

// Bounds of the applier's wait for a quiet moment (quietMoment). A bbolt
// commit (two fdatasyncs and its pages) run beside the journal's
// fdatasync slows it: on the project's disk, Put's mean latency was about
// a third lower with the applier waiting for 2 ms without a journal write
// than with it writing each group into bbolt as soon as it was journalled
// (make bench-record, A/B in alternation on a loaded machine, 4 runs of
// each: callers=10 1.2-1.5 ms against 1.5-3.1 ms; callers=1, as a ratio
// to one-tx, 0.19-0.32 against 0.33-0.47). A read that finds records not
// yet in bbolt writes them itself (settle), so it does not wait for this.
//
// A journal write in progress is no quiet moment, however long its sync
// takes: when the applier counted 2 ms from the last write's end only, a
// sync slower than that (a loaded disk) let it commit a few records into
// bbolt beside the syncs of the Puts that followed, slowing them past 2 ms
// in turn: in a stream of 3,000 Puts from 1 caller, 700-900 bbolt commits
// ran, beside 70-90% of the Puts, and Put's mean was 1.1-1.2 ms.
//
// While Puts stream in without a pause, the applier goes once maxBatch
// records are pending, in one transaction: a bbolt commit of 1,000 records
// costs the syncs beside it less per record than four of 256 (measured in
// one process, turns of 3,000 Puts with each bound in alternation, 2
// runs, a slow moment of the disk (its flush 1.1-1.5 ms): 1 caller
// 0.92-1.03 ms against 1.15-1.16 ms; 10 callers showed no clear
// difference, 1.67-1.69 ms against 1.43-2.21 ms). The price is a read's:
// a lookup that matches a pending record (settleIf) may commit up to
// 1,000 records first, where it committed up to 256, under such a stream.
//
// Nor does it go before the first record pending has waited applyAge:
// mail comes at a few messages a second to a few hundred, with pauses of
// more than applyQuiet between them, and a quiet moment alone made it
// commit a bbolt transaction (two fdatasyncs, and the pages of every
// index) for nearly every record, so that the journal saved the milter
// nothing of bbolt's cost (a profile of the milter under
// scripts/bench-postfix: bbolt's commits 10.5% of its CPU, beside the
// journal's 6.3%). Waiting gathers the records of that time into one
// transaction. A record's durability is the journal's either way; a read
// that needs a pending record writes it itself (settleIf).
const (
	applyQuiet   = 2 * time.Millisecond // a pause in journal writes that lets the applier go
	applyAge     = time.Second          // and the least time the first pending record waits
	applyBacklog = maxBatch             // pending records after which it goes anyway
)

// quietMoment waits until the first record pending (the applier was
// kicked when it came) has waited applyAge, or a Merge waits for its
// record to be in bbolt, and the journal has had no write for applyQuiet
// (none in progress, none queued); or until applyBacklog records are
// pending: while Puts stream in, the disk is left to their syncs, and
// their records then go into bbolt in few transactions. It reports false
// when the applier is to stop.
func (l *boltLedger) quietMoment() bool {
	first := time.Now()
	age := func() time.Duration {
		if l.mergeWaits.Load() {
			return 0
		}
		return applyAge
	}
	t := time.NewTimer(max(age(), applyQuiet))
	defer t.Stop()
	for l.pendingN.Load() < applyBacklog {
		select {
		case <-t.C:
			// The timer and a kick can be ready at once (the
			// applier ran late): the time since the last write
			// decides, not the order select takes them in.
			since := time.Since(l.epoch) - time.Duration(l.journalled.Load())
			waited := time.Since(first)
			if !l.journalling.Load() && l.queued.Load() == 0 && since >= applyQuiet && waited >= age() {
				return true
			}
			t.Reset(max(applyQuiet-since, age()-waited, applyQuiet/4))
		case <-l.kick:
			// A Merge waits, pending reached applyBacklog (the loop
			// ends), or pending was emptied (a read settled it) and
			// filled again.
			if !l.mergeWaits.Load() {
				first = time.Now()
			}
			t.Reset(max(age(), applyQuiet))
		case <-l.applyEnd:
			return false
		}
	}
	return true
}

// settle writes into bbolt the records whose Put returned before it was
// called and that are not in bbolt yet: a read that follows sees every Put
// that returned before it began. It writes no more than those (a read
// does not chase a stream of Puts), and with nothing to write it costs two
// atomic loads.
func (l *boltLedger) settle() error {
	target := l.published.Load()
	if l.applied.Load() >= target {
		return nil
	}
	l.applyMu.Lock()
	defer l.applyMu.Unlock()
	for l.applied.Load() < target {
		if n, err := l.applyBatch(); err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// settleIf is settle for a read whose answer only records that match can
// change: when no record whose Put returned and that bbolt lacks matches,
// bbolt's answer is already the whole answer and nothing is written. So a
// bounce's lookup does not pay for a bbolt commit because other messages
// were recorded a moment earlier (measured with bench-postfix: a lookup
// settling every pending record took 5 ms on average while outbound mail
// flowed).
//
// It is exact because applyBatch commits a batch into bbolt before it
// drops the batch from pending: a record not found pending here is in
// bbolt by then, for the read that follows.
func (l *boltLedger) settleIf(match func(*Record) bool) error {
	if l.pendingN.Load() == 0 {
		return nil
	}
	if l.pendingSince(l.published.Load(), match) {
		return l.settle()
	}
	return nil
}

// pendingSince reports whether a pending record numbered at most target
// matches.
func (l *boltLedger) pendingSince(target uint64, match func(*Record) bool) bool {
	l.pendMu.Lock()
	defer l.pendMu.Unlock()
	return l.pendingMatch(target, match)
}

// appliedOrPending reports whether a batch was written into bbolt since
// applied was read (what a read made since then saw is not known from
// pending alone), or else whether a pending record numbered at most target
// matches.
func (l *boltLedger) appliedOrPending(applied, target uint64, match func(*Record) bool) bool {
	l.pendMu.Lock()
	defer l.pendMu.Unlock()
	return l.applied.Load() != applied || l.pendingMatch(target, match)
}

// pendingMatch is pendingSince with pendMu held.
func (l *boltLedger) pendingMatch(target uint64, match func(*Record) bool) bool {
	for i := range l.pending {
		e := &l.pending[i]
		if e.seq > target {
			break // pending is in order: the rest came after the read began
		}
		if match(&e.r) {
			return true
		}
	}
	return false
}

// applyAll writes every pending record into bbolt, one batch at a time,
// letting a read (settle) or the committer in between batches.
func (l *boltLedger) applyAll() error {
	for {
		l.applyMu.Lock()
		n, err := l.applyBatch()
		l.applyMu.Unlock()
		if err != nil || n == 0 {
			return err
		}
	}
}

// apply writes every pending record into bbolt, in transactions of at
// most maxBatch records, each also recording the sequence number of its
// last record (metaJournalApplied), then tells each Merge its Change.
func (l *boltLedger) apply() error {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()
	return l.applyLocked()
}

func (l *boltLedger) applyLocked() error {
	for {
		n, err := l.applyBatch()
		if err != nil || n == 0 {
			return err
		}
	}
}

// applyBatch writes the first maxBatch pending records (or fewer) into
// bbolt in one transaction, and returns how many. The caller holds
// applyMu.
func (l *boltLedger) applyBatch() (int, error) {
	l.pendMu.Lock()
	batch := l.pending[:min(len(l.pending), maxBatch)]
	l.pendMu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	changes := make([]Change, len(batch))
	cutoff := l.cutoff()
	last := batch[len(batch)-1].seq
	err := l.db.Update(func(tx *bolt.Tx) error {
		// A record past the retention by now is written all the
		// same, as the Put that took it would have: the sweep
		// deletes it.
		for i, e := range batch {
			c, err := putTx(tx, e.r, cutoff)
			if err != nil {
				return err
			}
			changes[i] = c
		}
		return tx.Bucket(bucketMeta).Put(metaJournalApplied, u64(last))
	})
	if err != nil {
		err = fmt.Errorf("ledger: writing %d journalled records into the ledger file: %w", len(batch), err)
		// A Merge hears of it now; its record stays journalled, and
		// goes into bbolt once bbolt takes it.
		l.pendMu.Lock()
		for i := range batch {
			if d := l.pending[i].done; d != nil {
				d <- putResult{change: ChangeNone, err: err}
				l.pending[i].done = nil
			}
		}
		l.pendMu.Unlock()
		return 0, err
	}
	l.pendMu.Lock()
	l.pending = l.pending[len(batch):]
	if len(l.pending) == 0 {
		l.pending = nil // the array of a burst is not kept
	}
	l.pendingN.Store(int64(len(l.pending)))
	// Under pendMu with pending: a reader holding it sees the records
	// in pending or counted in applied, never neither (pendingSince).
	l.applied.Store(last)
	l.pendMu.Unlock()
	for i, e := range batch {
		if e.done != nil {
			e.done <- putResult{change: changes[i], err: nil}
		}
	}
	return len(batch), nil
}
