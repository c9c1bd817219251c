package ledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// plannedRecord is a record of a mergeBatch transaction: its first
// MaxRecipients distinct recipients, and the ones after.
type plannedRecord struct {
	head   Record
	tail   []string
	tooOld bool
}

// mergeBatch writes recs (see MergeBatch) in transactions of at most
// maxTxRecords records, maxTxPairs pairs and maxTxNodes pages changed, each
// committed (fsync) before the next starts.
func (l *boltLedger) mergeBatch(ctx context.Context, recs []Record) ([]Change, error) {
	norm, err := normalizeBatch(recs, l.now())
	if err != nil {
		return nil, err
	}
	// Close waits for the batch; Merges run beside it (bbolt runs one
	// write transaction at a time).
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, errors.New("ledger: closed")
	}
	// Records whose Put returned go first, in their order.
	if err := l.settle(); err != nil {
		return nil, err
	}
	changes := make([]Change, 0, len(norm))
	plan := make([]plannedRecord, 0, min(len(norm), maxTxRecords))
	tailsDone := 0 // norm[:tailsDone] have their pairs past the cap written
	for len(changes) < len(norm) {
		if err := ctx.Err(); err != nil {
			return changes, err
		}
		cutoff := l.cutoff()
		plan = plan[:0]
		pairs := 0
		for _, r := range norm[len(changes):] {
			head, tail := splitAtCap(r)
			if len(plan) == maxTxRecords || len(plan) > 0 && pairs+len(head.Recipients) > maxTxPairs {
				break
			}
			p := plannedRecord{head: head, tail: tail, tooOld: r.Time.Before(cutoff)}
			if !p.tooOld {
				pairs += len(head.Recipients)
			}
			plan = append(plan, p)
		}
		// The pairs the records cannot hold go first: a record is never
		// found without them.
		for i, p := range plan {
			if len(changes)+i < tailsDone {
				continue // written before a transaction that ended early
			}
			if !p.tooOld && len(p.tail) > 0 && p.head.Sender != "" {
				if err := l.putPairs(ctx, p.head.Sender, p.tail, p.head.Time); err != nil {
					return changes, err
				}
			}
		}
		tailsDone = max(tailsDone, len(changes)+len(plan))
		txChanges := make([]Change, len(plan))
		err := l.db.Update(func(tx *bolt.Tx) error {
			// Records are keyed by a sequence and the time index by time:
			// a batch appends to both, so their pages can be filled.
			tx.Bucket(bucketRecords).FillPercent = 1.0
			tx.Bucket(bucketTime).FillPercent = 1.0
			for i, p := range plan {
				if p.tooOld {
					txChanges[i] = ChangeTooOld
					continue
				}
				c, err := putTx(tx, p.head, cutoff)
				if err != nil {
					return err
				}
				txChanges[i] = c
				if st := tx.Stats(); st.GetNodeCount() >= maxTxNodes && i+1 < len(plan) {
					plan, txChanges = plan[:i+1], txChanges[:i+1]
					break
				}
			}
			return nil
		})
		if err != nil {
			return changes, fmt.Errorf("ledger: writing %d records: %w", len(plan), err)
		}
		l.releaseMapped()
		if l.observeTx != nil {
			pairs = 0 // of the records written, if the transaction ended early
			for _, p := range plan {
				if !p.tooOld {
					pairs += len(p.head.Recipients)
				}
			}
			l.observeTx(len(plan), pairs)
		}
		changes = append(changes, txChanges...)
	}
	return changes, nil
}

// recordPairs writes (sender, recipient) pairs (see RecordPairs).
func (l *boltLedger) recordPairs(ctx context.Context, sender string, recipients []string, t time.Time) error {
	sender, recipients = normalizePairs(sender, recipients)
	if sender == "" || len(recipients) == 0 {
		return nil // a null sender pairs with nobody
	}
	if t.IsZero() {
		t = l.now()
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return errors.New("ledger: closed")
	}
	if err := l.settle(); err != nil {
		return err
	}
	return l.putPairs(ctx, sender, recipients, t)
}

// putPairs writes pairs in transactions of at most maxTxSorted, their keys
// in order: each page then takes its keys at its end, in linear time.
func (l *boltLedger) putPairs(ctx context.Context, sender string, recipients []string, t time.Time) error {
	if t.Before(l.cutoff()) {
		return nil
	}
	ts := uint64(t.UnixNano())
	val := u64(ts)
	keys := make([][]byte, 0, min(len(recipients), maxTxSorted))
	for len(recipients) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(recipients), maxTxSorted)
		keys = keys[:0]
		for _, a := range recipients[:n] {
			keys = append(keys, pairKey(sender, a))
		}
		recipients = recipients[n:]
		slices.SortFunc(keys, bytes.Compare)
		keys = slices.CompactFunc(keys, bytes.Equal)
		err := l.db.Update(func(tx *bolt.Tx) error {
			if err := noteSender(tx, sender, t); err != nil {
				return err
			}
			pairs := tx.Bucket(bucketPair)
			for _, k := range keys {
				if old := pairs.Get(k); len(old) == 8 && binary.BigEndian.Uint64(old) >= ts {
					continue // a later send of the same pair is already there
				}
				if err := pairs.Put(k, val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("ledger: writing %d sender/recipient pairs: %w", len(keys), err)
		}
		l.releaseMapped()
		if l.observeTx != nil {
			l.observeTx(0, len(keys))
		}
	}
	return nil
}
