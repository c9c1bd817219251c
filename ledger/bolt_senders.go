package ledger

import (
	"bytes"
	"encoding/binary"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The sender index of the bbolt ledger: bucketSender maps each sender to the
// time of its latest sending (LastSent), kept by every write that records a
// sender (a record, or the pairs of RecordPairs) and swept like the pairs.
// bucketMeta holds Since.

// initSenders creates the sender index and the meta bucket when the file
// lacks them, inside the transaction that opens the ledger. A new file
// begins now. A file written by a version without the index gets it built
// from its (sender, recipient) pairs, which hold every sender that sent to
// anyone within the retention and the time of its latest sending; it holds
// all it was given from the time of its oldest record then (the pairs and
// records of the retention period were all kept), or now when it holds
// none.
func initSenders(tx *bolt.Tx, now time.Time) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if tx.Bucket(bucketSender) != nil && len(meta.Get(metaSince)) == 8 {
		return nil
	}
	senders, err := tx.CreateBucketIfNotExists(bucketSender)
	if err != nil {
		return err
	}
	since := now
	if k, _ := tx.Bucket(bucketTime).Cursor().First(); len(k) == 16 {
		since = time.Unix(0, int64(binary.BigEndian.Uint64(k)))
		// Build the index from the pairs, in one pass: their keys are
		// sorted by sender, so each sender's pairs are adjacent.
		var cur []byte
		var latest uint64
		flush := func() error {
			if cur == nil {
				return nil
			}
			return senders.Put(cur, u64(latest))
		}
		c := tx.Bucket(bucketPair).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			i := bytes.IndexByte(k, 0)
			if i <= 0 || len(v) != 8 {
				continue
			}
			if !bytes.Equal(k[:i], cur) {
				if err := flush(); err != nil {
					return err
				}
				cur, latest = bytes.Clone(k[:i]), 0
			}
			latest = max(latest, binary.BigEndian.Uint64(v))
		}
		if err := flush(); err != nil {
			return err
		}
	}
	return meta.Put(metaSince, u64(uint64(since.UnixNano())))
}

// noteSender records that sender sent at t, unless a later sending is
// recorded already.
func noteSender(tx *bolt.Tx, sender string, t time.Time) error {
	b := tx.Bucket(bucketSender)
	ts := uint64(t.UnixNano())
	if old := b.Get([]byte(sender)); len(old) == 8 && binary.BigEndian.Uint64(old) >= ts {
		return nil
	}
	return b.Put([]byte(sender), u64(ts))
}

// sweepSenders deletes senders whose latest sending is older than the
// retention window, reading at most pairScanChunk of them per call and going
// on where the last call stopped, as sweepPairs does. It returns the number
// deleted.
func (l *boltLedger) sweepSenders() int {
	l.pairMu.Lock()
	defer l.pairMu.Unlock()
	cut := uint64(l.cutoff().UnixNano())
	n, next := l.sweepBucket(bucketSender, l.senderNext, func(v []byte) bool {
		return len(v) != 8 || binary.BigEndian.Uint64(v) < cut
	})
	l.senderNext = next
	return n
}
