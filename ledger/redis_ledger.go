package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Key design. Every key holds one value and every command or script reads
// or writes one key, so the ledger works unchanged on Redis Cluster (no
// command spans two hash slots); the writes of a Put that do not depend on
// each other go in one pipeline, which go-redis splits per node.
//
//	PREFIX m:MESSAGE-ID           -> record (JSON), TTL = retention from Record.Time
//	PREFIX q:QUEUE-ID             -> "m" + Message-ID, or "r" + record when it has none;
//	                                 TTL = retention from the time of its queue file
//	PREFIX p:SENDER LF RECIPIENT  -> time of the latest sending (Unix ms), same TTL
//	PREFIX s:SENDER               -> time of the sender's latest sending (Unix ms),
//	                                 TTL = retention from that time (LastSent)
//	{PREFIX stats}:since          -> Since (Unix ms), no TTL: set by the first write
//	                                 or the first Since of a ledger that lacks it
//	{PREFIX stats}:n:W:I          -> number of records added in the I-th window of W seconds
//	{PREFIX stats}:times          -> sorted set: members "oldest" and "newest",
//	                                 scores the extreme record times (Unix ms)
//
// Message-IDs and addresses are normalised first (NormalizeMessageID,
// NormalizeAddress), as in every ledger. The stats keys share one hash
// tag, so Stats reads them with a single MGET on one node. Parts of a key longer than maxKeyPart bytes (a hostile
// Message-ID, say) are replaced by their SHA-256, which bounds key size.
//
// Merging (see Ledger) is optimistic, per key: casScript writes a value
// only if the key still holds what the writer last saw (at first: nothing,
// the common case of a new message), and otherwise returns what it holds
// now, for the writer to merge into in Go (the same merge as bbolt's) and
// try again. Two keys change in a fixed order: a record of the message kept
// under its queue id alone is merged into the Message-ID's record before
// the queue id is pointed to it, and the queue id moves only if it still
// holds what was merged.
const (
	maxKeyPart   = 256
	statsBuckets = 256
)

// redisLedger is the Ledger on Redis (standalone, Sentinel or Cluster).
type redisLedger struct {
	c      redis.UniversalClient
	prefix string
	mode   string
	o      Options
	width  time.Duration // width of one stats bucket

	warmCtx  context.Context // cancelled by Close
	stopWarm context.CancelFunc
	warmDone chan struct{}
}

func newRedisLedger(c redis.UniversalClient, prefix, mode string, o Options) *redisLedger {
	w := (o.Retention + statsBuckets - 1) / statsBuckets
	w = max(w.Truncate(time.Second), time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	return &redisLedger{c: c, prefix: prefix, mode: mode, o: o, width: w,
		warmCtx: ctx, stopWarm: cancel, warmDone: make(chan struct{})}
}

// warmUp connects in the background, once, so that the first lookup does
// not pay for the first connection, nor (Cluster) for loading the slot map
// and the command table: measured at 5-20 ms here, up to the whole 50 ms
// budget on a loaded machine. Nothing waits for it and its result is
// ignored: a Redis that is down is found by the calls themselves.
func (l *redisLedger) warmUp() {
	defer close(l.warmDone)
	ctx, cancel := context.WithTimeout(l.warmCtx, max(l.o.WriteTimeout, time.Second))
	defer cancel()
	if cc, ok := l.c.(*redis.ClusterClient); ok {
		_ = cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return m.Ping(ctx).Err()
		})
	} else {
		_ = l.c.Ping(ctx).Err()
	}
	_ = l.c.Exists(ctx, l.prefix+"warm-up").Err()
}

// redisRecord is the stored form of a Record.
type redisRecord struct {
	MessageID  string   `json:"m,omitempty"`
	QueueID    string   `json:"q,omitempty"`
	Sender     string   `json:"s"`
	Recipients []string `json:"r"`
	Time       int64    `json:"t"` // Unix nanoseconds
}

func keyPart(s string) string {
	if len(s) <= maxKeyPart {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

func (l *redisLedger) msgKey(id string) string   { return l.prefix + "m:" + keyPart(id) }
func (l *redisLedger) queueKey(id string) string { return l.prefix + "q:" + keyPart(id) }
func (l *redisLedger) pairKey(sender, rcpt string) string {
	return l.prefix + "p:" + keyPart(sender+"\n"+rcpt)
}
func (l *redisLedger) senderKey(sender string) string { return l.prefix + "s:" + keyPart(sender) }
func (l *redisLedger) statsTag() string               { return "{" + l.prefix + "stats}" }
func (l *redisLedger) sinceKey() string               { return l.statsTag() + ":since" }
func (l *redisLedger) bucketKey(i int64) string {
	return l.statsTag() + ":n:" + strconv.FormatInt(int64(l.width/time.Second), 10) + ":" + strconv.FormatInt(i, 10)
}
func (l *redisLedger) timesKey() string { return l.statsTag() + ":times" }

func (l *redisLedger) bucket(t time.Time) int64 { return t.UnixNano() / int64(l.width) }

// casScript sets KEYS[1] to ARGV[2] with a time to live of ARGV[3] ms if it
// holds ARGV[1] ("" for nothing), and returns {1}; otherwise it returns
// {0, what it holds}. Setting a key to the value it holds only lengthens
// its time to live, never shortens it.
//
// The scripts are made on first use (a script hashes its source when made):
// the commands that use no Redis do not pay for them at start (issue 14).
var casScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then cur = '' end
if cur ~= ARGV[1] then return {0, cur} end
local ttl = tonumber(ARGV[3])
if cur == ARGV[2] and redis.call('PTTL', KEYS[1]) >= ttl then return {1} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
return {1}
`)
})

// lengthenScript sets KEYS[1] to ARGV[1] with a time to live of ARGV[2] ms
// unless it lives longer already: a pair recorded again with an older time
// (a log imported after the milter recorded a later sending) keeps the
// later expiry.
var lengthenScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
`)
})

// maxCASAttempts bounds the compare-and-set attempts of one merge. An
// attempt fails only when another writer changed the key since it was read,
// so each failure is another writer's success; the write deadline bounds
// the whole.
const maxCASAttempts = 100

// errGone: the record a queue id points to has expired.
var errGone = errors.New("ledger: redis: record gone")

// ttl returns how long a record of time t is kept, from now; under a
// millisecond means it is past the retention period.
func (l *redisLedger) ttl(t, now time.Time) time.Duration {
	return min(t.Add(l.o.Retention).Sub(now), l.o.Retention)
}

// cas runs casScript: it reports whether key held expect and now holds
// val, and else what key holds.
func (l *redisLedger) cas(ctx context.Context, key, expect, val string, ttl time.Duration) (bool, string, error) {
	return casReply(casScript().Run(ctx, l.c, []string{key}, expect, val, ttl.Milliseconds()))
}

// casReply reads casScript's reply.
func casReply(cmd *redis.Cmd) (bool, string, error) {
	res, err := cmd.Slice()
	if err != nil {
		return false, "", err
	}
	if len(res) == 0 {
		return false, "", fmt.Errorf("ledger: redis: compare-and-set: expected a result, got none")
	}
	if ok, _ := res[0].(int64); ok == 1 {
		return true, "", nil
	}
	if len(res) < 2 {
		return false, "", fmt.Errorf("ledger: redis: compare-and-set: expected the current value, got %v", res)
	}
	cur, _ := res[1].(string)
	return false, cur, nil
}

func encodeRecord(r Record) string {
	val, _ := json.Marshal(redisRecord{
		MessageID: r.MessageID, QueueID: r.QueueID, Sender: r.Sender,
		Recipients: r.Recipients, Time: r.Time.UnixNano(),
	})
	return string(val)
}

// mergeAt merges into the record stored at key, which held cur when last
// read, the records before (ahead of it: they were recorded earlier) and
// recs (after it), and returns the change and what key holds now. An
// unreadable stored record is replaced. With mustExist, a key that holds
// nothing is not created: mergeAt returns errGone.
func (l *redisLedger) mergeAt(ctx context.Context, key, cur string, mustExist bool, now time.Time, before []Record, recs ...Record) (Change, string, error) {
	for range maxCASAttempts {
		if cur == "" && mustExist {
			return ChangeNone, "", errGone
		}
		var merged Record
		for _, r := range before {
			merged, _ = merge(merged, r)
		}
		if cur != "" {
			old, _ := decodeRecord(cur)
			merged, _ = merge(merged, old)
		}
		for _, r := range recs {
			merged, _ = merge(merged, r)
		}
		val := encodeRecord(merged)
		if val == cur {
			return ChangeNone, cur, nil
		}
		ok, held, err := l.cas(ctx, key, cur, val, l.ttl(merged.Time, now))
		if err != nil {
			return ChangeNone, "", err
		}
		if ok {
			if cur == "" {
				return ChangeAdded, val, nil
			}
			return ChangeMerged, val, nil
		}
		cur = held
	}
	return ChangeNone, "", fmt.Errorf("ledger: redis: key %s changed under %d attempts to merge into it: gave up", key, maxCASAttempts)
}

// Put records r (see Merge).
func (l *redisLedger) Put(ctx context.Context, r Record) error {
	_, err := l.Merge(ctx, r)
	return err
}

// Merge records r, merged with the record of its message (see Ledger),
// bounded by Options.WriteTimeout. The first round trip (one pipeline per
// Redis node) expects the common case, a message not recorded yet: it
// creates its keys if they hold nothing, and records the pairs and the
// stats. A message already recorded costs one more round trip per key to
// merge into, and one per conflict with a concurrent writer. A record older
// than the retention is not written. Each (sender, recipient) pair lives
// for the retention after its latest sending.
func (l *redisLedger) Merge(ctx context.Context, r Record) (Change, error) {
	now := time.Now()
	r = r.Normalize(now)
	if r.MessageID == "" && r.QueueID == "" && (r.Sender == "" || len(r.Recipients) == 0) {
		return ChangeNone, errors.New("ledger: record has no Message-ID, no queue id and no sender/recipient pair: nothing to look it up by")
	}
	t := r.Time
	ttl := l.ttl(t, now)
	if ttl < time.Millisecond {
		return ChangeTooOld, nil // already past the retention window: nothing to keep
	}
	ctx, cancel := context.WithTimeout(ctx, l.o.WriteTimeout)
	defer cancel()
	pipe := l.c.Pipeline()
	fr := l.queueMerge(ctx, pipe, r, ttl)
	// Counted as a new record now, taken back below if it was not one.
	bk := l.queueStats(ctx, pipe, now, 1, t, t)
	if _, err := pipe.Exec(ctx); err != nil {
		return ChangeNone, fmt.Errorf("ledger: redis: recording %q: %w", r.MessageID, err)
	}
	change, err := l.finishMerge(ctx, fr, now)
	if err != nil {
		return ChangeNone, err
	}
	if change != ChangeAdded {
		if err := l.c.Decr(ctx, bk).Err(); err != nil {
			return ChangeNone, fmt.Errorf("ledger: redis: recording %q: correcting the stats: %w", r.MessageID, err)
		}
	}
	return change, nil
}

// mergeByMessageID merges r into the record of its Message-ID, which held
// mcur (created holds if the first round trip wrote it), then points r's
// queue id, which held qcur, there (done holds if that is done). A record
// of the same message kept under the queue id alone (recorded before its
// Message-ID was known) is merged in first.
func (l *redisLedger) mergeByMessageID(ctx context.Context, r Record, now time.Time, mcur string, created bool, qcur string, done bool) (Change, error) {
	mkey := l.msgKey(r.MessageID)
	pointer := "m" + r.MessageID
	change := ChangeNone
	if created {
		change = ChangeAdded
	}
	for range maxCASAttempts {
		var before, recs []Record
		qttl := l.ttl(r.Time, now)
		known := false // the message is in the ledger under its queue id
		if y, ok := strings.CutPrefix(qcur, "r"); ok && !done {
			if yr, err := decodeRecord(y); err == nil && yr.MessageID == "" {
				// Recorded before the Message-ID's record if this Put
				// created that, else after it.
				if created {
					before = []Record{yr}
				} else {
					recs = []Record{yr}
				}
				qttl = max(qttl, l.ttl(yr.Time, now))
				known = true
			}
		}
		c, cur, err := l.mergeAt(ctx, mkey, mcur, false, now, before, append(recs, r)...)
		if err != nil {
			return ChangeNone, err
		}
		change, mcur = mergeChanges(change, c), cur
		if known && change == ChangeAdded {
			change = ChangeMerged
		}
		if done || r.QueueID == "" {
			return change, nil
		}
		ok, held, err := l.cas(ctx, l.queueKey(r.QueueID), qcur, pointer, qttl)
		if err != nil {
			return ChangeNone, err
		}
		if ok {
			if qcur != pointer && change == ChangeNone {
				change = ChangeMerged // the message gained a queue id
			}
			return change, nil
		}
		qcur = held
	}
	return ChangeNone, fmt.Errorf("queue id %s changed under %d attempts to point it to the Message-ID: gave up", r.QueueID, maxCASAttempts)
}

// mergeByQueueID merges r, which has no Message-ID, into the record of its
// queue id, which held qcur: the Message-ID's record it points to, or the
// record kept under it alone.
func (l *redisLedger) mergeByQueueID(ctx context.Context, r Record, now time.Time, qcur string) (Change, error) {
	qkey := l.queueKey(r.QueueID)
	for range maxCASAttempts {
		if mid, ok := strings.CutPrefix(qcur, "m"); ok {
			mkey := l.msgKey(mid)
			mcur, err := l.get(ctx, mkey)
			if err != nil && err != ErrNotFound {
				return ChangeNone, err
			}
			change, _, err := l.mergeAt(ctx, mkey, mcur, true, now, nil, r)
			if err == nil {
				// The queue id lives as long as its latest queue file.
				if _, _, err := l.cas(ctx, qkey, qcur, qcur, l.ttl(r.Time, now)); err != nil {
					return ChangeNone, err
				}
				return change, nil
			}
			if err != errGone {
				return ChangeNone, err
			}
			// The Message-ID's record expired: keep r under the queue id.
		}
		var old Record
		if y, ok := strings.CutPrefix(qcur, "r"); ok {
			old, _ = decodeRecord(y)
		}
		merged, changed := merge(old, r)
		if !changed && strings.HasPrefix(qcur, "r") {
			return ChangeNone, nil
		}
		ok, held, err := l.cas(ctx, qkey, qcur, "r"+encodeRecord(merged), l.ttl(merged.Time, now))
		if err != nil {
			return ChangeNone, err
		}
		if ok {
			if strings.HasPrefix(qcur, "r") {
				return ChangeMerged, nil
			}
			return ChangeAdded, nil
		}
		qcur = held
	}
	return ChangeNone, fmt.Errorf("key %s changed under %d attempts to merge into it: gave up", qkey, maxCASAttempts)
}

func (l *redisLedger) get(ctx context.Context, key string) (string, error) {
	v, err := l.c.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	return v, err
}

func decodeRecord(v string) (Record, error) {
	var rr redisRecord
	if err := json.Unmarshal([]byte(v), &rr); err != nil {
		return Record{}, fmt.Errorf("ledger: redis: stored record is not valid JSON: %w", err)
	}
	return Record{
		MessageID: rr.MessageID, QueueID: rr.QueueID, Sender: rr.Sender,
		Recipients: rr.Recipients, Time: time.Unix(0, rr.Time),
	}, nil
}

// ByMessageID returns the record with that Message-ID, bounded by
// Options.LookupTimeout.
func (l *redisLedger) ByMessageID(ctx context.Context, messageID string) (Record, error) {
	messageID = NormalizeMessageID(messageID)
	if messageID == "" {
		return Record{}, ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, l.o.LookupTimeout)
	defer cancel()
	v, err := l.get(ctx, l.msgKey(messageID))
	if err != nil {
		if err == ErrNotFound {
			return Record{}, err
		}
		return Record{}, fmt.Errorf("ledger: redis: looking up Message-ID: %w", err)
	}
	return decodeRecord(v)
}

// ByQueueID returns the record with that queue id: two reads (the queue id
// points to the Message-ID) under one Options.LookupTimeout.
func (l *redisLedger) ByQueueID(ctx context.Context, queueID string) (Record, error) {
	queueID = strings.TrimSpace(queueID)
	if queueID == "" {
		return Record{}, ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, l.o.LookupTimeout)
	defer cancel()
	v, err := l.get(ctx, l.queueKey(queueID))
	if err != nil {
		if err == ErrNotFound {
			return Record{}, err
		}
		return Record{}, fmt.Errorf("ledger: redis: looking up queue id: %w", err)
	}
	switch {
	case strings.HasPrefix(v, "r"):
		return decodeRecord(v[1:])
	case strings.HasPrefix(v, "m"):
		v, err = l.get(ctx, l.msgKey(v[1:]))
		if err != nil {
			if err == ErrNotFound {
				return Record{}, err
			}
			return Record{}, fmt.Errorf("ledger: redis: looking up Message-ID of queue id: %w", err)
		}
		return decodeRecord(v)
	}
	return Record{}, fmt.Errorf("ledger: redis: queue id entry: expected \"m\" or \"r\" prefix, got %q", v[:min(len(v), 16)])
}

// SentTo reports whether sender sent to recipient within the retention,
// bounded by Options.LookupTimeout.
func (l *redisLedger) SentTo(ctx context.Context, sender, recipient string) (bool, error) {
	sender, recipient = NormalizeAddress(sender), NormalizeAddress(recipient)
	if sender == "" || recipient == "" {
		return false, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, l.o.LookupTimeout)
	defer cancel()
	n, err := l.c.Exists(ctx, l.pairKey(sender, recipient)).Result()
	if err != nil {
		return false, fmt.Errorf("ledger: redis: looking up sender/recipient pair: %w", err)
	}
	return n > 0, nil
}

// LastSent returns the time of sender's latest sending within the
// retention, bounded by Options.LookupTimeout: one read of its key in the
// sender index.
func (l *redisLedger) LastSent(ctx context.Context, sender string) (time.Time, error) {
	sender = NormalizeAddress(sender)
	if sender == "" {
		return time.Time{}, ErrNotFound
	}
	ctx, cancel := context.WithTimeout(ctx, l.o.LookupTimeout)
	defer cancel()
	v, err := l.get(ctx, l.senderKey(sender))
	if err != nil {
		if err == ErrNotFound {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("ledger: redis: looking up sender: %w", err)
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("ledger: redis: sender index entry: expected Unix milliseconds, got %q", v[:min(len(v), 32)])
	}
	return time.UnixMilli(ms), nil
}

// Since returns the time the ledger began holding all it was given: the
// first write by a version with the sender index, or, when the ledger has
// none yet, now (which it then records: it holds all from now on). A
// ledger written by older versions alone thus begins when this version
// first writes to it or reads this, whatever it held before: its senders
// were not indexed.
func (l *redisLedger) Since(ctx context.Context) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, max(l.o.LookupTimeout, l.o.WriteTimeout))
	defer cancel()
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	pipe := l.c.Pipeline()
	pipe.SetNX(ctx, l.sinceKey(), now, 0)
	get := pipe.Get(ctx, l.sinceKey())
	if _, err := pipe.Exec(ctx); err != nil {
		return time.Time{}, fmt.Errorf("ledger: redis: reading when the ledger began: %w", err)
	}
	ms, err := strconv.ParseInt(get.Val(), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("ledger: redis: the time the ledger began: expected Unix milliseconds, got %q", get.Val())
	}
	return time.UnixMilli(ms), nil
}

// Stats costs two reads on one node, independent of the number of records:
// an MGET of the about 260 per-window counters and a ZRANGE of the
// record-time extremes. Records is the number of records added in the
// retention window, counted per bucket of retention/256 (a Put merged into
// the record of its message does not count; a message re-sent after its
// record expired counts again; the oldest bucket may be counted while part
// of it has expired). Oldest and Newest are the extreme record times seen, Oldest
// clamped to the retention window.
func (l *redisLedger) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Backend: "redis (" + l.mode + ")"}
	ctx, cancel := context.WithTimeout(ctx, max(l.o.LookupTimeout, l.o.WriteTimeout))
	defer cancel()
	now := time.Now()
	last := l.bucket(now)
	first := l.bucket(now.Add(-l.o.Retention))
	keys := make([]string, 0, last-first+1)
	for i := first; i <= last; i++ {
		keys = append(keys, l.bucketKey(i))
	}
	pipe := l.c.Pipeline()
	counts := pipe.MGet(ctx, keys...)
	times := pipe.ZRangeWithScores(ctx, l.timesKey(), 0, -1)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return st, fmt.Errorf("ledger: redis: reading stats: %w", err)
	}
	for _, v := range counts.Val() {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			st.Records += n
		}
	}
	if st.Records == 0 {
		return st, nil
	}
	for _, z := range times.Val() {
		t := time.UnixMilli(int64(z.Score))
		switch z.Member {
		case "oldest":
			st.Oldest = t
		case "newest":
			st.Newest = t
		}
	}
	if lim := now.Add(-l.o.Retention); st.Oldest.Before(lim) {
		st.Oldest = lim
	}
	return st, nil
}

// Close releases the connections.
func (l *redisLedger) Close() error {
	l.stopWarm()
	<-l.warmDone
	return l.c.Close()
}
