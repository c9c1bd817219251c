package ledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// firstRound is one record's part of the first round trip of a merge into
// Redis (see Merge): the compare-and-sets that create its keys if they
// hold nothing.
type firstRound struct {
	r          Record
	qval, mval string     // what the keys are set to if the message is new
	mcas, qcas *redis.Cmd // the compare-and-sets of the Message-ID's and the queue id's keys
}

// queueMerge queues in pipe the first round trip of merging r, which is in
// the form Record.Normalize gives and lives for ttl: it creates r's keys
// if they hold nothing, and records the pairs of all its recipients.
func (l *redisLedger) queueMerge(ctx context.Context, pipe redis.Pipeliner, r Record, ttl time.Duration) *firstRound {
	fr := &firstRound{r: r}
	first, _ := merge(Record{}, r) // the record if the message is new
	var mkey, qkey string
	switch {
	case r.MessageID != "":
		mkey, fr.mval = l.msgKey(r.MessageID), encodeRecord(first)
		if r.QueueID != "" {
			qkey, fr.qval = l.queueKey(r.QueueID), "m"+r.MessageID
		}
	case r.QueueID != "":
		qkey, fr.qval = l.queueKey(r.QueueID), "r"+encodeRecord(first)
	}
	if mkey != "" {
		fr.mcas = casScript().Eval(ctx, pipe, []string{mkey}, "", fr.mval, ttl.Milliseconds())
	}
	if qkey != "" {
		fr.qcas = casScript().Eval(ctx, pipe, []string{qkey}, "", fr.qval, ttl.Milliseconds())
	}
	l.queuePairs(ctx, pipe, r.Sender, r.Recipients, r.Time, ttl)
	return fr
}

// queuePairs queues in pipe the pairs of sender and recipients sent at t,
// each to live ttl unless it lives longer already.
func (l *redisLedger) queuePairs(ctx context.Context, pipe redis.Pipeliner, sender string, recipients []string, t time.Time, ttl time.Duration) {
	if sender == "" {
		return // a null sender pairs with nobody (as in every ledger)
	}
	ms := strconv.FormatInt(t.UnixMilli(), 10)
	lengthenScript().Eval(ctx, pipe, []string{l.senderKey(sender)}, ms, ttl.Milliseconds())
	seen := make(map[string]bool, len(recipients))
	for _, rcpt := range recipients {
		k := l.pairKey(sender, rcpt)
		if seen[k] {
			continue
		}
		seen[k] = true
		lengthenScript().Eval(ctx, pipe, []string{k}, ms, ttl.Milliseconds())
	}
}

// queueStats queues in pipe the count of n records added now, of times
// oldest to newest, and returns the key of the counter, for the caller to
// take back those that were not new.
func (l *redisLedger) queueStats(ctx context.Context, pipe redis.Pipeliner, now time.Time, n int64, oldest, newest time.Time) string {
	b := l.bucket(now)
	bk := l.bucketKey(b)
	pipe.IncrBy(ctx, bk, n)
	pipe.PExpireAt(ctx, bk, time.Unix(0, (b+1)*int64(l.width)).Add(l.o.Retention))
	tk := l.timesKey()
	pipe.ZAddLT(ctx, tk, redis.Z{Score: float64(oldest.UnixMilli()), Member: "oldest"})
	pipe.ZAddGT(ctx, tk, redis.Z{Score: float64(newest.UnixMilli()), Member: "newest"})
	pipe.PExpire(ctx, tk, l.o.Retention)
	pipe.SetNX(ctx, l.sinceKey(), strconv.FormatInt(now.UnixMilli(), 10), 0)
	return bk
}

// finishMerge reads the replies of fr's first round trip and, when the
// ledger held something under r's keys, merges into it: one more round trip
// per key to merge into, and one per conflict with a concurrent writer.
func (l *redisLedger) finishMerge(ctx context.Context, fr *firstRound, now time.Time) (Change, error) {
	r := fr.r
	change := ChangeAdded // a record of pairs alone is new each time, as in bbolt
	var err error
	switch {
	case fr.mcas != nil:
		mok, mcur, merr := casReply(fr.mcas)
		qok, qcur := true, fr.qval
		if fr.qcas != nil {
			var qerr error
			qok, qcur, qerr = casReply(fr.qcas)
			merr = errors.Join(merr, qerr)
		}
		if merr != nil {
			return ChangeNone, fmt.Errorf("ledger: redis: recording %q: %w", r.MessageID, merr)
		}
		if mok {
			mcur = fr.mval
		}
		if !mok || !qok {
			change, err = l.mergeByMessageID(ctx, r, now, mcur, mok, qcur, qok)
		}
	case fr.qcas != nil:
		qok, qcur, qerr := casReply(fr.qcas)
		switch {
		case qerr != nil:
			err = qerr
		case !qok:
			change, err = l.mergeByQueueID(ctx, r, now, qcur)
		}
	}
	if err != nil {
		return ChangeNone, fmt.Errorf("ledger: redis: recording %q (queue id %q): %w", r.MessageID, r.QueueID, err)
	}
	return change, nil
}

// mergeBatch writes recs (see MergeBatch): the first round trips of up to
// maxPipeRecords records (maxPipePairs pairs) in one pipeline, under one
// Options.WriteTimeout; then, in order, the merges into what the ledger
// held, each under its own.
func (l *redisLedger) mergeBatch(ctx context.Context, recs []Record) ([]Change, error) {
	now := time.Now()
	norm, err := normalizeBatch(recs, now)
	if err != nil {
		return nil, err
	}
	changes := make([]Change, 0, len(norm))
	for len(changes) < len(norm) {
		if err := ctx.Err(); err != nil {
			return changes, err
		}
		var plan []plannedRecord
		pairs := 0
		for _, r := range norm[len(changes):] {
			head, tail := splitAtCap(r)
			if len(plan) == maxPipeRecords || len(plan) > 0 && pairs+len(head.Recipients) > maxPipePairs {
				break
			}
			p := plannedRecord{head: head, tail: tail, tooOld: l.ttl(r.Time, now) < time.Millisecond}
			if !p.tooOld {
				pairs += len(head.Recipients)
			}
			plan = append(plan, p)
		}
		for _, p := range plan {
			if !p.tooOld && len(p.tail) > 0 && p.head.Sender != "" {
				if err := l.putPairs(ctx, p.head.Sender, p.tail, p.head.Time, now); err != nil {
					return changes, err
				}
			}
		}
		txChanges, err := l.mergePipeline(ctx, plan, now)
		changes = append(changes, txChanges...)
		if err != nil {
			return changes, err
		}
	}
	return changes, nil
}

// mergePipeline merges the records of plan: their first round trips in one
// pipeline, then what each needs more, in order. It returns the Changes of
// the records it wrote before an error.
func (l *redisLedger) mergePipeline(ctx context.Context, plan []plannedRecord, now time.Time) ([]Change, error) {
	pctx, cancel := context.WithTimeout(ctx, l.o.WriteTimeout)
	defer cancel()
	pipe := l.c.Pipeline()
	rounds := make([]*firstRound, len(plan))
	var n int64
	var oldest, newest time.Time
	for i, p := range plan {
		if p.tooOld {
			continue
		}
		rounds[i] = l.queueMerge(pctx, pipe, p.head, l.ttl(p.head.Time, now))
		if n == 0 || p.head.Time.Before(oldest) {
			oldest = p.head.Time
		}
		if n == 0 || p.head.Time.After(newest) {
			newest = p.head.Time
		}
		n++
	}
	var bk string
	if n > 0 {
		// Counted as new records now, taken back below for those that
		// were not.
		bk = l.queueStats(pctx, pipe, now, n, oldest, newest)
		if _, err := pipe.Exec(pctx); err != nil {
			return nil, fmt.Errorf("ledger: redis: recording %d records: %w", n, err)
		}
	}
	changes := make([]Change, 0, len(plan))
	var notNew int64
	var err error
	for i, fr := range rounds {
		if fr == nil {
			changes = append(changes, ChangeTooOld)
			continue
		}
		fctx, cancel := context.WithTimeout(ctx, l.o.WriteTimeout)
		c, ferr := l.finishMerge(fctx, fr, now)
		cancel()
		if ferr != nil {
			err = ferr
			// The records not merged were counted as new.
			for _, fr := range rounds[i:] {
				if fr != nil {
					notNew++
				}
			}
			break
		}
		if c != ChangeAdded {
			notNew++
		}
		changes = append(changes, c)
	}
	if notNew > 0 {
		sctx, cancel := context.WithTimeout(ctx, l.o.WriteTimeout)
		defer cancel()
		if serr := l.c.DecrBy(sctx, bk, notNew).Err(); serr != nil && err == nil {
			err = fmt.Errorf("ledger: redis: recording %d records: correcting the stats: %w", n, serr)
			changes = changes[:0] // as Merge, which fails when the stats fail
		}
	}
	return changes, err
}

// recordPairs writes (sender, recipient) pairs (see RecordPairs).
func (l *redisLedger) recordPairs(ctx context.Context, sender string, recipients []string, t time.Time) error {
	now := time.Now()
	sender, recipients = normalizePairs(sender, recipients)
	if sender == "" || len(recipients) == 0 {
		return nil
	}
	if t.IsZero() {
		t = now
	}
	return l.putPairs(ctx, sender, recipients, t, now)
}

// putPairs writes pairs in pipelines of at most maxPipePairs, each under
// Options.WriteTimeout.
func (l *redisLedger) putPairs(ctx context.Context, sender string, recipients []string, t, now time.Time) error {
	ttl := l.ttl(t, now)
	if ttl < time.Millisecond {
		return nil
	}
	for len(recipients) > 0 {
		n := min(len(recipients), maxPipePairs)
		pctx, cancel := context.WithTimeout(ctx, l.o.WriteTimeout)
		pipe := l.c.Pipeline()
		l.queuePairs(pctx, pipe, sender, recipients[:n], t, ttl)
		_, err := pipe.Exec(pctx)
		cancel()
		if err != nil {
			return fmt.Errorf("ledger: redis: recording %d sender/recipient pairs: %w", n, err)
		}
		recipients = recipients[n:]
	}
	return nil
}
