package frontend

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// LedgerSizeInterval is how often, at most, LedgerSize reads the ledger's
// Stats: counting the records of a bbolt ledger walks its pages, so it is
// done once a minute, not at every scrape.
const LedgerSizeInterval = time.Minute

// ledgerStatsTimeout bounds one read of the ledger's Stats.
const ledgerStatsTimeout = 5 * time.Second

// ledgerSizeDescs are the descriptions of LedgerSize's metrics, made on
// first use rather than at start: a command that serves no metrics
// ("ndrmilter code", explain) makes none (issue 14: start-up).
var ledgerSizeDescs = sync.OnceValue(func() (d struct{ records, bytes, statsTime *prometheus.Desc }) {
	d.records = prometheus.NewDesc("ndrmilter_ledger_records",
		"Records (sent messages) in the ledger, as ledger.Stats counts them; read at most once a minute.", nil, nil)
	d.bytes = prometheus.NewDesc("ndrmilter_ledger_size_bytes",
		"Size of the ledger's data on disk (the bbolt file); absent for a Redis ledger.", nil, nil)
	d.statsTime = prometheus.NewDesc("ndrmilter_ledger_stats_last_success_timestamp_seconds",
		"Unix time of the last successful read of the ledger's size; the two gauges above are as of then.", nil, nil)
	return d
})

// LedgerSize is a Prometheus collector of the size of a ledger:
// ndrmilter_ledger_records, ndrmilter_ledger_size_bytes (when the store
// knows its size on disk) and the time they were read. It reads the
// ledger's Stats when scraped, never on the mail path: the first scrape
// reads them (bounded at 5 s), later scrapes start a read in the background
// when the last one is older than LedgerSizeInterval, and show the values
// of the last read that succeeded. Until a read succeeds it exports
// nothing: a size it does not know is absent, not 0.
type LedgerSize struct {
	l     ledger.Ledger
	every time.Duration

	mu      sync.Mutex
	tried   time.Time    // start of the last read
	running bool         // a read is in progress
	ok      bool         // st holds the result of a successful read
	st      ledger.Stats // its result
	at      time.Time    // when it succeeded
}

// NewLedgerSize returns the collector of l's size, to register with the
// front end's registry. l nil: it exports nothing.
func NewLedgerSize(l ledger.Ledger) *LedgerSize {
	return &LedgerSize{l: l, every: LedgerSizeInterval}
}

// Describe implements prometheus.Collector.
func (c *LedgerSize) Describe(ch chan<- *prometheus.Desc) {
	d := ledgerSizeDescs()
	ch <- d.records
	ch <- d.bytes
	ch <- d.statsTime
}

// Collect implements prometheus.Collector.
func (c *LedgerSize) Collect(ch chan<- prometheus.Metric) {
	if c.l == nil {
		return
	}
	c.mu.Lock()
	first := c.tried.IsZero()
	due := !c.running && time.Since(c.tried) >= c.every
	if due {
		c.running, c.tried = true, time.Now()
	}
	c.mu.Unlock()
	if due && first {
		c.refresh()
	} else if due {
		go c.refresh()
	}

	c.mu.Lock()
	ok, st, at := c.ok, c.st, c.at
	c.mu.Unlock()
	if !ok {
		return
	}
	d := ledgerSizeDescs()
	ch <- prometheus.MustNewConstMetric(d.records, prometheus.GaugeValue, float64(st.Records))
	if st.Bytes > 0 {
		ch <- prometheus.MustNewConstMetric(d.bytes, prometheus.GaugeValue, float64(st.Bytes))
	}
	ch <- prometheus.MustNewConstMetric(d.statsTime, prometheus.GaugeValue, float64(at.UnixNano())/1e9)
}

// refresh reads the ledger's Stats and keeps them if the read succeeds.
func (c *LedgerSize) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), ledgerStatsTimeout)
	defer cancel()
	st, err := c.l.Stats(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
	if err != nil {
		return
	}
	c.ok, c.st, c.at = true, st, time.Now()
}
