package milter

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/internal/redistest"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// With the Redis ledger stopped, more outbound messages than the 4096
// writes that may be pending go through, each acknowledged once its record
// is in the spool; when Redis is back, every record is in it.
func TestRecordsOfARedisOutageAreAllWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("5000 messages through a private Redis")
	}
	rs := redistest.Start(t)
	l, err := ledger.OpenRedis(rs.URL(), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srv, addr := startServer(t, Config{SpoolDir: filepath.Join(t.TempDir(), "spool")}, l)
	rs.Stop()

	const conns, perConn = 25, 200 // 5000 > 4096
	c := newClient(addr)
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for n := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mx := dial(t, c, "127.0.0.1")
			defer mx.close()
			for i := range perConn {
				id := fmt.Sprintf("outage.%d.%d@example.org", n, i)
				r, err := mx.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"},
					raw: plain("alice@example.org", "bob@remote.example", id)})
				if err != nil || r.act.Code != gomilter.ActContinue {
					errs <- fmt.Errorf("message %s during the outage: %+v %v", id, r.act, err)
					return
				}
			}
		}()
	}
	t0 := time.Now()
	wg.Wait()
	t.Logf("%d messages during the outage in %v", conns*perConn, time.Since(t0))
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := counterValue(t, srv.Metrics().LedgerOps.WithLabelValues("put", "dropped")); got != 0 {
		t.Fatalf("%v records dropped during the outage", got)
	}
	if got := counterValue(t, srv.Metrics().RecordsSpooled.WithLabelValues("spooled")); got != conns*perConn {
		t.Fatalf("%v records spooled, want %d", got, conns*perConn)
	}

	t1 := time.Now()
	defer func() { t.Logf("all records in Redis %v after it came back", time.Since(t1)) }()
	rs.Restart()
	// The next message that reaches the ledger sets the replay going.
	mx := dial(t, c, "127.0.0.1")
	if _, err := mx.send(envelope{from: "alice@example.org", rcpts: []string{"bob@remote.example"},
		raw: plain("alice@example.org", "bob@remote.example", "after.outage@example.org")}); err != nil {
		t.Fatal(err)
	}
	mx.close()
	deadline := time.Now().Add(60 * time.Second)
	for n := range conns {
		for i := range perConn {
			id := fmt.Sprintf("outage.%d.%d@example.org", n, i)
			for {
				_, err := l.ByMessageID(context.Background(), id)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s not in Redis 60 s after it came back: %v", id, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
}
