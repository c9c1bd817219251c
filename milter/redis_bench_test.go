package milter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// BenchmarkBouncesByLedger is the milter's bounce throughput on each ledger
// (issue 5, acceptance 4): the same bounces, half for recorded messages and
// half for never-sent ones, over 32 concurrent milter connections, through
// one Server on the bbolt ledger and one on a Redis ledger (a private
// redis-server on loopback), alternated in rounds so that load from
// elsewhere on the machine falls on both alike. It reports each one's
// messages per second and p99 latency, the ratio Redis/bbolt, and how many
// verdicts came out "unknown" (a lookup that missed its deadline).
//
//	go test -run '^$' -bench BenchmarkBouncesByLedger -benchtime 4000x ./milter
func BenchmarkBouncesByLedger(b *testing.B) {
	const conns = 32
	bolt := openLedger(b, b.TempDir())
	defer bolt.Close()
	rsrv := redistest.Start(b)
	red, err := ledger.OpenRedis(rsrv.URL(), ledger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer red.Close()

	bounces := make([][]byte, 1024)
	for i := range bounces {
		bounces[i] = report(fmt.Sprintf("lbench.%d@example.org", i), "alice@example.org", "bob@remote.example", "5.1.1",
			"550 5.1.1 <bob@remote.example>: Recipient address rejected: User unknown in virtual mailbox table")
	}
	type target struct {
		name    string
		l       ledger.Ledger
		addr    string
		elapsed time.Duration
		lat     []time.Duration
		unknown atomic.Int64
	}
	targets := []*target{{name: "bolt", l: bolt}, {name: "redis", l: red}}
	for _, tg := range targets {
		// The first half of the bounces are for recorded messages.
		for i := range len(bounces) / 2 {
			if err := tg.l.Put(context.Background(), ledger.Record{MessageID: fmt.Sprintf("lbench.%d@example.org", i),
				QueueID: fmt.Sprintf("4LB%d", i), Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}}); err != nil {
				b.Fatalf("%s: Put: %v", tg.name, err)
			}
		}
		_, tg.addr = startServer(b, Config{}, tg.l)
	}

	run := func(tg *target, n int) {
		c := newClient(tg.addr)
		var next atomic.Int64
		lat := make([][]time.Duration, conns)
		var wg sync.WaitGroup
		start := time.Now()
		for w := range conns {
			wg.Go(func() {
				m := dial(b, c, fmt.Sprintf("203.0.113.%d", w+1))
				defer m.close()
				for {
					i := next.Add(1) - 1
					if i >= int64(n) {
						return
					}
					t0 := time.Now()
					r, err := m.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: bounces[i%int64(len(bounces))]})
					lat[w] = append(lat[w], time.Since(t0))
					if err != nil || r.act == nil {
						b.Errorf("%s: send: %v", tg.name, err)
						return
					}
					v := addedHeader(r.mods, "X-NDR-Backscatter")
					switch {
					case strings.HasPrefix(v, "unknown"):
						tg.unknown.Add(1)
					case !strings.HasPrefix(v, "yes") && !strings.HasPrefix(v, "no"):
						b.Errorf("%s: X-NDR-Backscatter %q", tg.name, v)
						return
					}
				}
			})
		}
		wg.Wait()
		tg.elapsed += time.Since(start)
		for _, l := range lat {
			tg.lat = append(tg.lat, l...)
		}
	}

	const rounds = 4
	b.ResetTimer()
	for r := range rounds {
		n := b.N / rounds
		if r == rounds-1 {
			n = b.N - n*(rounds-1)
		}
		for _, tg := range targets {
			run(tg, n)
		}
	}
	b.StopTimer()
	rate := map[string]float64{}
	for _, tg := range targets {
		rate[tg.name] = float64(b.N) / tg.elapsed.Seconds()
		slices.Sort(tg.lat)
		p99 := tg.lat[min(len(tg.lat)-1, len(tg.lat)*99/100)]
		b.ReportMetric(rate[tg.name], tg.name+"_msgs/s")
		b.ReportMetric(float64(p99.Microseconds())/1000, tg.name+"_p99_ms")
		b.ReportMetric(float64(tg.unknown.Load()), tg.name+"_unknown")
	}
	b.ReportMetric(rate["redis"]/rate["bolt"], "redis/bolt")
}

// addedHeader returns the value of the first header named name that mods
// add or insert, or "".
func addedHeader(mods []gomilter.ModifyAction, name string) string {
	for _, m := range mods {
		if (m.Code == gomilter.ActAddHeader || m.Code == gomilter.ActInsertHeader) && strings.EqualFold(m.HeaderName, name) {
			return strings.TrimSpace(m.HeaderValue)
		}
	}
	return ""
}
