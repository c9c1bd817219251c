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
	"time"

	"github.com/redis/go-redis/v9"
)

// Key design. Every key holds one value and is read or written alone, so the
// ledger works unchanged on Redis Cluster (no multi-key command spans two
// hash slots); a Put is one pipeline, which go-redis splits per node.
//
//	PREFIX m:MESSAGE-ID           -> record (JSON), TTL = retention from Record.Time
//	PREFIX q:QUEUE-ID             -> "m" + Message-ID, or "r" + record when it has none
//	PREFIX p:SENDER LF RECIPIENT  -> time of the last Put (Unix ms), same TTL
//	{PREFIX stats}:n:W:I          -> number of Puts in the I-th window of W seconds
//	{PREFIX stats}:times          -> sorted set: members "oldest" and "newest",
//	                                 scores the extreme record times (Unix ms)
//
// Message-IDs and addresses are normalised first (NormalizeMessageID,
// NormalizeAddress), as in every ledger. The stats keys share one hash tag, so Stats reads them with a single MGET
// on one node. Parts of a key longer than maxKeyPart bytes (a hostile
// Message-ID, say) are replaced by their SHA-256, which bounds key size.
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
func (l *redisLedger) statsTag() string { return "{" + l.prefix + "stats}" }
func (l *redisLedger) bucketKey(i int64) string {
	return l.statsTag() + ":n:" + strconv.FormatInt(int64(l.width/time.Second), 10) + ":" + strconv.FormatInt(i, 10)
}
func (l *redisLedger) timesKey() string { return l.statsTag() + ":times" }

func (l *redisLedger) bucket(t time.Time) int64 { return t.UnixNano() / int64(l.width) }

// Put records r with one pipelined round trip per Redis node, bounded by
// Options.WriteTimeout. A record older than the retention is not written.
// The last Put of a (sender, recipient) pair sets its time and expiry.
func (l *redisLedger) Put(ctx context.Context, r Record) error {
	now := time.Now()
	r = r.Normalize(now)
	if r.MessageID == "" && r.QueueID == "" && (r.Sender == "" || len(r.Recipients) == 0) {
		return errors.New("ledger: record has no Message-ID, no queue id and no sender/recipient pair: nothing to look it up by")
	}
	t := r.Time
	ttl := min(t.Add(l.o.Retention).Sub(now), l.o.Retention)
	if ttl < time.Millisecond {
		return nil // already past the retention window: nothing to keep
	}
	val, err := json.Marshal(redisRecord{
		MessageID: r.MessageID, QueueID: r.QueueID, Sender: r.Sender,
		Recipients: r.Recipients, Time: t.UnixNano(),
	})
	if err != nil {
		return fmt.Errorf("ledger: encoding record: %w", err)
	}
	ms := strconv.FormatInt(t.UnixMilli(), 10)

	ctx, cancel := context.WithTimeout(ctx, l.o.WriteTimeout)
	defer cancel()
	pipe := l.c.Pipeline()
	if r.MessageID != "" {
		pipe.Set(ctx, l.msgKey(r.MessageID), val, ttl)
	}
	if r.QueueID != "" {
		qv := "m" + r.MessageID
		if r.MessageID == "" {
			qv = "r" + string(val)
		}
		pipe.Set(ctx, l.queueKey(r.QueueID), qv, ttl)
	}
	seen := make(map[string]bool, len(r.Recipients))
	for _, rcpt := range r.Recipients {
		k := l.pairKey(r.Sender, rcpt)
		if r.Sender == "" || seen[k] {
			continue // a null sender pairs with nobody (as in every ledger)
		}
		seen[k] = true
		pipe.Set(ctx, k, ms, ttl)
	}
	b := l.bucket(now)
	bk := l.bucketKey(b)
	pipe.Incr(ctx, bk)
	pipe.PExpireAt(ctx, bk, time.Unix(0, (b+1)*int64(l.width)).Add(l.o.Retention))
	tk := l.timesKey()
	score := float64(t.UnixMilli())
	pipe.ZAddLT(ctx, tk, redis.Z{Score: score, Member: "oldest"})
	pipe.ZAddGT(ctx, tk, redis.Z{Score: score, Member: "newest"})
	pipe.PExpire(ctx, tk, l.o.Retention)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("ledger: redis: recording %q: %w", r.MessageID, err)
	}
	return nil
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

// Stats costs two reads on one node, independent of the number of records:
// an MGET of the about 260 per-window Put counters and a ZRANGE of the
// record-time extremes. Records is the number of Puts in the retention
// window, counted per bucket of retention/256 (a message recorded twice
// counts twice; the oldest bucket may be counted while part of it has
// expired). Oldest and Newest are the extreme record times seen, Oldest
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
