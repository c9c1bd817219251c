package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
)

// functional are the options of the tests of what the ledger stores and
// finds (not of its deadlines): the default retention, and deadlines that a
// lookup does not miss on a loaded test machine (the production 50 ms is
// sometimes missed here at load 14 on 2 cores; the deadline tests use it).
var functional = Options{LookupTimeout: time.Second, WriteTimeout: 5 * time.Second}

// openTestRedis opens the ledger on url and closes it at the end of the test.
func openTestRedis(t *testing.T, url string, o Options) Ledger {
	t.Helper()
	l, err := Open(url, "", o)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// checkPutLookup records a few messages and checks every lookup; shared by
// the standalone and cluster tests.
func checkPutLookup(t *testing.T, l Ledger, n int) {
	t.Helper()
	ctx := context.Background()
	base := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	for i := range n {
		r := Record{
			MessageID:  fmt.Sprintf("msg%d.%d@mx.example.org", i, base.UnixNano()),
			QueueID:    fmt.Sprintf("4Q%dABC", i),
			Sender:     fmt.Sprintf("user%d@example.org", i),
			Recipients: []string{fmt.Sprintf("a%d@example.net", i), "b@example.com"},
			Time:       base.Add(time.Duration(i) * time.Second),
		}
		if err := l.Put(ctx, r); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
	}
	for i := range n {
		id := fmt.Sprintf("msg%d.%d@mx.example.org", i, base.UnixNano())
		got, err := l.ByMessageID(ctx, id)
		if err != nil {
			t.Fatalf("ByMessageID(%s): %v", id, err)
		}
		want := Record{
			MessageID: id, QueueID: fmt.Sprintf("4Q%dABC", i), Sender: fmt.Sprintf("user%d@example.org", i),
			Recipients: []string{fmt.Sprintf("a%d@example.net", i), "b@example.com"},
			Time:       base.Add(time.Duration(i) * time.Second),
		}
		if got.MessageID != want.MessageID || got.QueueID != want.QueueID || got.Sender != want.Sender ||
			!slices.Equal(got.Recipients, want.Recipients) || !got.Time.Equal(want.Time) {
			t.Fatalf("ByMessageID(%s) = %+v, want %+v", id, got, want)
		}
		byQ, err := l.ByQueueID(ctx, want.QueueID)
		if err != nil || byQ.MessageID != id {
			t.Fatalf("ByQueueID(%s) = %+v, %v; want Message-ID %s", want.QueueID, byQ, err, id)
		}
		ok, err := l.SentTo(ctx, want.Sender, want.Recipients[0])
		if err != nil || !ok {
			t.Fatalf("SentTo(%s, %s) = %v, %v; want true", want.Sender, want.Recipients[0], ok, err)
		}
		// Addresses compare without case.
		ok, err = l.SentTo(ctx, strings.ToUpper(want.Sender), "B@EXAMPLE.COM")
		if err != nil || !ok {
			t.Fatalf("SentTo in upper case = %v, %v; want true", ok, err)
		}
	}
	if _, err := l.ByMessageID(ctx, "never-sent@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ByMessageID(unknown) error = %v, want ErrNotFound", err)
	}
	if _, err := l.ByQueueID(ctx, "NOSUCHQ"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ByQueueID(unknown) error = %v, want ErrNotFound", err)
	}
	if ok, err := l.SentTo(ctx, "user0@example.org", "stranger@example.net"); err != nil || ok {
		t.Fatalf("SentTo(not a recipient) = %v, %v; want false, nil", ok, err)
	}
	if ok, err := l.SentTo(ctx, "forger@example.org", "b@example.com"); err != nil || ok {
		t.Fatalf("SentTo(not a sender) = %v, %v; want false, nil", ok, err)
	}
	st, err := l.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if st.Records != int64(n) || !strings.HasPrefix(st.Backend, "redis") {
		t.Fatalf("Stats = %+v, want %d records from redis", st, n)
	}
	if st.Newest.Before(base) || st.Oldest.After(time.Now()) || st.Oldest.After(st.Newest.Add(time.Minute)) {
		t.Fatalf("Stats Oldest/Newest = %v/%v, want around %v", st.Oldest, st.Newest, base)
	}
}

// TestRedisConformance runs the behaviour every ledger shares.
func TestRedisConformance(t *testing.T) {
	srv := redistest.Start(t)
	testLedger(t, openTestRedis(t, srv.URL(), functional))
}

func TestRedisPutLookup(t *testing.T) {
	srv := redistest.Start(t)
	l := openTestRedis(t, srv.URL(), functional)
	checkPutLookup(t, l, 20)

	ctx := context.Background()
	// A message without Message-ID is still found by queue id.
	r := Record{QueueID: "4QNOID", Sender: "s@example.org", Recipients: []string{"r@example.net"}, Time: time.Now()}
	if err := l.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := l.ByQueueID(ctx, "4QNOID")
	if err != nil || got.QueueID != "4QNOID" || got.Sender != "s@example.org" {
		t.Fatalf("ByQueueID(no Message-ID) = %+v, %v", got, err)
	}
	if err := l.Put(ctx, Record{Sender: "s@example.org"}); err == nil {
		t.Fatal("Put with neither Message-ID nor queue id: no error")
	}
	// A hostile, huge Message-ID is stored under a bounded key and found again.
	huge := strings.Repeat("x", 5000) + "@example.org"
	if err := l.Put(ctx, Record{MessageID: huge, Sender: "s@example.org", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if got, err := l.ByMessageID(ctx, huge); err != nil || got.MessageID != huge {
		t.Fatalf("ByMessageID(huge) = %v", err)
	}
	keys, err := srv.Cmd("--scan", "--pattern", "ndr:m:*")
	if err != nil {
		t.Fatal(err)
	}
	for k := range strings.SplitSeq(keys, "\n") {
		if len(k) > 300 {
			t.Fatalf("key of %d bytes stored: key size is not bounded", len(k))
		}
	}
	// Two ledgers with different prefixes on one server do not see each other.
	other := openTestRedis(t, srv.URL()+"?prefix=other:", functional)
	if _, err := other.ByQueueID(ctx, "4QNOID"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("prefix=other: sees the default prefix's record: %v", err)
	}
}

// TestRedisExpiry checks that records vanish after the retention, by Redis
// TTL, and that a record already older than the retention is not written.
func TestRedisExpiry(t *testing.T) {
	srv := redistest.Start(t)
	const retention = 2 * time.Second
	l := openTestRedis(t, srv.URL(), Options{Retention: retention, LookupTimeout: functional.LookupTimeout, WriteTimeout: functional.WriteTimeout})
	ctx := context.Background()
	r := Record{MessageID: "ttl@example.org", QueueID: "4QTTL", Sender: "s@example.org", Recipients: []string{"r@example.net"}, Time: time.Now()}
	if err := l.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	ttl, err := srv.Cmd("PTTL", "ndr:m:ttl@example.org")
	if err != nil {
		t.Fatal(err)
	}
	if ms, _ := strconv.Atoi(ttl); ms <= 0 || ms > int(retention/time.Millisecond) {
		t.Fatalf("PTTL of the record = %q, want 1..%d ms", ttl, retention/time.Millisecond)
	}
	if _, err := l.ByMessageID(ctx, "ttl@example.org"); err != nil {
		t.Fatalf("fresh record: %v", err)
	}
	old := Record{MessageID: "old@example.org", Sender: "s@example.org", Time: time.Now().Add(-2 * retention)}
	if err := l.Put(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ByMessageID(ctx, "old@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("record older than the retention: err = %v, want ErrNotFound", err)
	}

	time.Sleep(retention + 300*time.Millisecond)
	if _, err := l.ByMessageID(ctx, "ttl@example.org"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the retention: ByMessageID err = %v, want ErrNotFound", err)
	}
	if _, err := l.ByQueueID(ctx, "4QTTL"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the retention: ByQueueID err = %v, want ErrNotFound", err)
	}
	if ok, err := l.SentTo(ctx, "s@example.org", "r@example.net"); ok || err != nil {
		t.Fatalf("after the retention: SentTo = %v, %v; want false, nil", ok, err)
	}
	// Only the Put counter of the current stats window may remain.
	if keys, _ := srv.Cmd("--scan", "--pattern", "ndr:*"); keys != "" {
		t.Fatalf("after the retention Redis still holds record keys: %q", keys)
	}
}

// TestRedisMergeKeepsTheLongestLife: a merged record lives for the
// retention after its latest sending, each queue id for the retention
// after its own, and a pair recorded again with an older time (a log
// imported after the milter recorded a later sending) keeps its later
// expiry.
func TestRedisMergeKeepsTheLongestLife(t *testing.T) {
	srv := redistest.Start(t)
	const retention = 3 * time.Second
	l := openTestRedis(t, srv.URL(), Options{Retention: retention, LookupTimeout: functional.LookupTimeout, WriteTimeout: functional.WriteTimeout})
	ctx := context.Background()
	now := time.Now()
	old := now.Add(-retention + 500*time.Millisecond) // half a second left
	for _, r := range []Record{
		{MessageID: "life@example.org", QueueID: "4LIFE1", Sender: "s@example.org", Recipients: []string{"a@example.net"}, Time: old},
		{MessageID: "life@example.org", QueueID: "4LIFE2", Sender: "s@example.org", Recipients: []string{"b@example.net"}, Time: now},
		{MessageID: "pair@example.org", Sender: "s@example.org", Recipients: []string{"c@example.net"}, Time: now},
		{MessageID: "pair-again@example.org", Sender: "s@example.org", Recipients: []string{"c@example.net"}, Time: old},
	} {
		if err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	if r, err := l.ByMessageID(ctx, "life@example.org"); err != nil || !slices.Equal(r.Recipients, []string{"a@example.net", "b@example.net"}) {
		t.Fatalf("after the first sending's retention: ByMessageID = %+v, %v; want the record of both sendings", r, err)
	}
	if _, err := l.ByQueueID(ctx, "4LIFE2"); err != nil {
		t.Fatalf("queue id of the later sending: %v", err)
	}
	if _, err := l.ByQueueID(ctx, "4LIFE1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("queue id of the sending past retention: %v, want ErrNotFound", err)
	}
	if ok, err := l.SentTo(ctx, "s@example.org", "c@example.net"); err != nil || !ok {
		t.Fatalf("pair recorded again with an older time: SentTo = %v, %v; want true", ok, err)
	}
}

// TestRedisMergeKeysAreSingleSlot: the merge runs on a three-master
// Redis Cluster, with a Message-ID and its queue ids in different slots.
func TestRedisMergeKeysAreSingleSlot(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	l := openTestRedis(t, c.URL(), functional)
	ctx := context.Background()
	for i := range 20 {
		q := fmt.Sprintf("%08X", uint32(i+1)*2654435761)
		if err := l.Put(ctx, Record{QueueID: q, Sender: "s@example.org", Recipients: []string{"x@example.net"}}); err != nil {
			t.Fatal(err)
		}
		if err := l.Put(ctx, Record{MessageID: "slots@example.org", QueueID: q, Sender: "s@example.org", Recipients: []string{fmt.Sprintf("r%d@example.net", i)}}); err != nil {
			t.Fatal(err)
		}
		if r, err := l.ByQueueID(ctx, q); err != nil || r.MessageID != "slots@example.org" || len(r.Recipients) != i+2 {
			t.Fatalf("ByQueueID(%s) = %+v, %v; want slots@example.org with x and %d more recipients", q, r, err, i+1)
		}
	}
}

// Timing bounds of the deadline tests. A single call may overrun its
// deadline by the scheduling delay of a loaded machine (the 2 shared cores
// here reach load 14), up to callSlack; the median call must end within
// medianSlack of it. A call that waited for a socket timeout instead of its
// own deadline (seconds by go-redis default) fails both.
const (
	callSlack   = 100 * time.Millisecond
	medianSlack = 15 * time.Millisecond
)

// checkMedian fails the test if the median of ds is over limit+medianSlack.
func checkMedian(t *testing.T, what string, ds []time.Duration, limit time.Duration) {
	t.Helper()
	s := slices.Clone(ds)
	slices.Sort(s)
	if med := s[len(s)/2]; med > limit+medianSlack {
		t.Fatalf("%s: median %v over the deadline %v (all: %v)", what, med, limit, s)
	}
}

// timed runs f and returns how long it took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// TestRedisDownAndBack stops Redis mid-run: every call must fail within its
// deadline plus a small slack; started again on the same port, the same
// ledger (not reopened) works again.
func TestRedisDownAndBack(t *testing.T) {
	srv := redistest.Start(t)
	o := Options{LookupTimeout: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	const slack = callSlack
	l := openTestRedis(t, srv.URL(), o)
	ctx := context.Background()
	r := Record{MessageID: "up@example.org", QueueID: "4QUP", Sender: "s@example.org", Recipients: []string{"r@example.net"}}
	if err := l.Put(ctx, r); err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	var worst time.Duration
	var lookups []time.Duration
	for i := range 20 {
		var err error
		d := timed(func() { _, err = l.ByMessageID(ctx, "up@example.org") })
		if err == nil || errors.Is(err, ErrNotFound) {
			t.Fatalf("lookup %d with Redis down: err = %v, want a connection error", i, err)
		}
		if d > o.LookupTimeout+slack {
			t.Fatalf("lookup %d with Redis down took %v, deadline %v", i, d, o.LookupTimeout)
		}
		worst = max(worst, d)
		lookups = append(lookups, d)
		d = timed(func() { _, err = l.SentTo(ctx, "s@example.org", "r@example.net") })
		if err == nil || d > o.LookupTimeout+slack {
			t.Fatalf("SentTo %d with Redis down: %v after %v", i, err, d)
		}
		d = timed(func() { _, err = l.ByQueueID(ctx, "4QUP") })
		if err == nil || d > o.LookupTimeout+slack {
			t.Fatalf("ByQueueID %d with Redis down: %v after %v", i, err, d)
		}
		d = timed(func() { err = l.Put(ctx, r) })
		if err == nil || d > o.WriteTimeout+slack {
			t.Fatalf("Put %d with Redis down: %v after %v", i, err, d)
		}
	}
	checkMedian(t, "lookups with Redis down", lookups, o.LookupTimeout)
	t.Logf("slowest lookup with Redis down: %v", worst)

	// A ledger opened while Redis is down opens at once and fails per call.
	var l2 Ledger
	var err error
	if d := timed(func() { l2, err = OpenRedis(srv.URL(), o) }); err != nil || d > 20*time.Millisecond {
		t.Fatalf("OpenRedis with Redis down: %v after %v; want no error, no wait", err, d)
	}
	defer l2.Close()
	if _, err := l2.ByMessageID(ctx, "up@example.org"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("lookup on a ledger opened while down: %v", err)
	}

	srv.Restart() // same port, empty (no persistence)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := l.ByMessageID(ctx, "up@example.org")
		if errors.Is(err, ErrNotFound) {
			break // Redis answered: the record died with the old process
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after Redis came back, lookups still fail: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.Put(ctx, r); err != nil {
		t.Fatalf("Put after Redis came back: %v", err)
	}
	if got, err := l.ByMessageID(ctx, "up@example.org"); err != nil || got.QueueID != "4QUP" {
		t.Fatalf("lookup after Redis came back: %+v, %v", got, err)
	}
	if got, err := l2.ByMessageID(ctx, "up@example.org"); err != nil || got.QueueID != "4QUP" {
		t.Fatalf("ledger opened while Redis was down, after it came back: %+v, %v", got, err)
	}
}

// TestRedisSlow pauses every Redis client (CLIENT PAUSE): a hung Redis must
// not hold a lookup past its deadline.
func TestRedisSlow(t *testing.T) {
	srv := redistest.Start(t)
	o := Options{LookupTimeout: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	const slack = callSlack
	l := openTestRedis(t, srv.URL(), o)
	ctx := context.Background()
	r := Record{MessageID: "slow@example.org", Sender: "s@example.org", Recipients: []string{"r@example.net"}}
	if err := l.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	if out, err := srv.Cmd("CLIENT", "PAUSE", "2500", "ALL"); err != nil || out != "OK" {
		t.Fatalf("CLIENT PAUSE: %v %s", err, out)
	}
	var lookups, puts []time.Duration
	for i := range 9 {
		var err error
		d := timed(func() { _, err = l.ByMessageID(ctx, "slow@example.org") })
		if err == nil || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "timeout") {
			t.Fatalf("lookup %d on a paused Redis: err = %v, want a timeout", i, err)
		}
		if d < o.LookupTimeout || d > o.LookupTimeout+slack {
			t.Fatalf("lookup %d on a paused Redis took %v, want about the deadline %v", i, d, o.LookupTimeout)
		}
		lookups = append(lookups, d)
		if i%3 == 0 {
			d = timed(func() { err = l.Put(ctx, r) })
			if err == nil || d < o.WriteTimeout || d > o.WriteTimeout+slack {
				t.Fatalf("Put %d on a paused Redis: %v after %v, want a timeout at %v", i, err, d, o.WriteTimeout)
			}
			puts = append(puts, d)
		}
	}
	checkMedian(t, "lookups on a paused Redis", lookups, o.LookupTimeout)
	t.Logf("lookups on a paused Redis: %v; writes: %v", lookups, puts)
	// The URL's lookup_timeout overrides Options.LookupTimeout.
	long := openTestRedis(t, srv.URL()+"?lookup_timeout=300ms", o)
	var err error
	if d := timed(func() { _, err = long.ByMessageID(ctx, "slow@example.org") }); err == nil || d < 300*time.Millisecond || d > 300*time.Millisecond+slack {
		t.Fatalf("lookup with ?lookup_timeout=300ms on a paused Redis: %v after %v, want a timeout after about 300ms", err, d)
	}
	if _, err := srv.Cmd("CLIENT", "UNPAUSE"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ByMessageID(ctx, "slow@example.org"); err != nil {
		t.Fatalf("after CLIENT UNPAUSE: %v", err)
	}
}

// TestRedisCluster runs the same checks through a three-master Redis Cluster
// started here, and checks that the keys are spread over the masters.
func TestRedisCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	l := openTestRedis(t, c.URL(), functional)
	st, err := l.Stats(context.Background())
	if err != nil || st.Backend != "redis (cluster)" || st.Records != 0 {
		t.Fatalf("Stats on an empty cluster = %+v, %v", st, err)
	}
	checkPutLookup(t, l, 60)
	testLedger(t, openTestRedis(t, c.URL()+"?prefix=conformance:", functional))
	for _, s := range c.Nodes {
		keys, err := s.Cmd("--scan", "--pattern", "ndr:m:*")
		if err != nil {
			t.Fatal(err)
		}
		if keys == "" {
			t.Fatalf("master %s holds no record: the ledger does not spread over the cluster", s.Addr())
		}
	}
	// One seed and ?cluster=1 find the other masters.
	one := openTestRedis(t, "redis://"+c.Nodes[1].Addr()+"?cluster=1", functional)
	if _, err := one.ByQueueID(context.Background(), "4Q7ABC"); err != nil {
		t.Fatalf("through one seed: %v", err)
	}
}

// TestRedisSentinel reaches the master through a Redis Sentinel started
// here (?master_name=), with the same checks as on a standalone server.
func TestRedisSentinel(t *testing.T) {
	master := redistest.Start(t)
	sentinel := redistest.StartSentinel(t, master, "ndrmaster")
	l := openTestRedis(t, "redis://"+sentinel.Addr()+"/0?master_name=ndrmaster", functional)
	checkPutLookup(t, l, 10)
	if st, _ := l.Stats(context.Background()); st.Backend != "redis (sentinel)" {
		t.Fatalf("Backend = %q, want redis (sentinel)", st.Backend)
	}
	// The records are on the master itself.
	if n, err := master.Cmd("DBSIZE"); err != nil || n == "0" {
		t.Fatalf("master DBSIZE = %q, %v: records did not reach the master", n, err)
	}
}

// TestRedisClusterNodeDown stops one of three masters: a lookup never says
// "not found" for a record it cannot reach (that would turn into a false
// "yes"), every call ends within its deadline, and once the master is back
// the same ledger answers again.
func TestRedisClusterNodeDown(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	o := Options{LookupTimeout: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	const slack = callSlack
	l := openTestRedis(t, c.URL(), o)
	ctx := context.Background()
	const n = 30
	// Spread the ids: keys that differ in one digit can share a third of
	// the slot space (CRC16 is linear).
	id := func(i int) string { return fmt.Sprintf("%08x.node-down@example.org", uint32(i+1)*2654435761) }
	for i := range n {
		if err := l.Put(ctx, Record{MessageID: id(i), Sender: "s@example.org", Recipients: []string{"r@example.net"}}); err != nil {
			t.Fatal(err)
		}
	}
	c.Nodes[0].Stop()
	var found, failed int
	var lookups []time.Duration
	for i := range n {
		start := time.Now()
		_, err := l.ByMessageID(ctx, id(i))
		d := time.Since(start)
		lookups = append(lookups, d)
		switch {
		case err == nil:
			found++
		case errors.Is(err, ErrNotFound):
			t.Fatalf("record %d: ErrNotFound with a master down; want the record or an error", i)
		default:
			failed++
			if failed <= 3 {
				t.Logf("lookup %d with a master down: %v after %v", i, err, d)
			}
		}
		if d > o.LookupTimeout+slack {
			t.Fatalf("lookup %d with a master down took %v, deadline %v", i, d, o.LookupTimeout)
		}
	}
	checkMedian(t, "lookups with a master down", lookups, o.LookupTimeout)
	t.Logf("one master of three down: %d records found, %d lookups failed", found, failed)
	if failed == 0 {
		t.Fatal("no lookup failed with a master down: the records were not spread over the masters")
	}

	c.Nodes[0].Restart() // rejoins from its nodes.conf, empty
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < n; {
		_, err := l.ByMessageID(ctx, id(i))
		if err == nil || errors.Is(err, ErrNotFound) {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the master came back, lookup %d still fails: %v", i, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := l.Put(ctx, Record{MessageID: "after@example.org", Sender: "s@example.org", Recipients: []string{"r@example.net"}}); err != nil {
		t.Fatalf("Put after the master came back: %v", err)
	}
}

// TestRedisWarmUp: OpenRedis returns at once and connects in the background
// (so the first lookup does not pay for it); Close right after Open does
// not wait for a Redis that is down.
func TestRedisWarmUp(t *testing.T) {
	srv := redistest.Start(t)
	openTestRedis(t, srv.URL(), functional) // and no call
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := srv.Cmd("CLIENT", "LIST")
		if err == nil && strings.Contains(out, "name=ndrmilter") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection from the ledger 5 s after Open, without a call: CLIENT LIST = %q, %v", out, err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	srv.Stop()
	for range 3 {
		start := time.Now()
		down, err := OpenRedis(srv.URL(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := down.Close(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > callSlack {
			t.Fatalf("Open and Close with Redis down took %v", d)
		}
	}
}
