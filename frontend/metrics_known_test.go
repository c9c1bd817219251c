package frontend

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Every labelled metric of a front end has series from the start, so that
// an alert on it sees 0, not "no data". It takes every collector NewMetrics
// registers, so that a labelled metric added later without its known values
// fails here.
func TestFreshMetricsHaveSeriesForEveryLabelledMetric(t *testing.T) {
	reg := &recordingRegisterer{Registerer: prometheus.NewRegistry()}
	m := NewMetrics(reg)
	m.InitStages([]string{"mail"}, []string{"data"})
	if len(reg.collectors) == 0 {
		t.Fatal("NewMetrics registered nothing")
	}
	for _, c := range reg.collectors {
		switch c.(type) {
		case *prometheus.CounterVec, *prometheus.GaugeVec, *prometheus.HistogramVec, *prometheus.SummaryVec:
		default:
			continue // a metric without labels is always there
		}
		if n := seriesCount(c); n == 0 {
			t.Errorf("%s has no series in a fresh front end: initialise its known label values (metrics_known.go)", descName(c))
		}
	}
}

// recordingRegisterer keeps the collectors registered through it.
type recordingRegisterer struct {
	prometheus.Registerer
	collectors []prometheus.Collector
}

func (r *recordingRegisterer) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return r.Registerer.Register(c)
}

func (r *recordingRegisterer) MustRegister(cs ...prometheus.Collector) {
	r.collectors = append(r.collectors, cs...)
	r.Registerer.MustRegister(cs...)
}

// descName is the metric name of a collector's first description.
func descName(c prometheus.Collector) string {
	ch := make(chan *prometheus.Desc, 8)
	go func() { c.Describe(ch); close(ch) }()
	name := ""
	for d := range ch {
		if name == "" {
			name = d.String()
		}
	}
	return name
}

// The bounce counter has a series at 0 for each kind, reason of the
// vocabulary and owner, and the verdict counter for each verdict and
// evidence.
func TestFreshMetricsCoverTheVocabularies(t *testing.T) {
	m := NewMetrics(nil)
	if got, want := seriesCount(m.Bounces), len(knownKinds)*len(rules.Reasons())*len(rules.Owners()); got != want {
		t.Errorf("ndrmilter_bounces_total has %d series, want %d (kinds x reasons x owners)", got, want)
	}
	// 14 evidence values: the ledger's 7, and batv, batv-expired, dkim,
	// never-sends, in-reply-to, batv-missing and ledger-young (issue 15).
	if got, want := seriesCount(m.Verdicts), 3*14; got != want {
		t.Errorf("ndrmilter_backscatter_verdicts_total has %d series, want %d (verdicts x evidence)", got, want)
	}
	if got := counterValue(t, m.Bounces.WithLabelValues("delay", "mailboxfull", "recipient-admin")); got != 0 {
		t.Errorf("a fresh bounce series is %v, want 0", got)
	}
}

// Counting makes no series beyond the initialised ones: the known label
// values are the ones the counting code uses.
func TestCountingStaysWithinTheKnownSeries(t *testing.T) {
	m := NewMetrics(nil)
	count := func() int {
		n := 0
		for _, c := range []prometheus.Collector{m.Bounces, m.Verdicts, m.Actions, m.Messages, m.LedgerOps, m.LedgerLatency} {
			n += seriesCount(c)
		}
		return n
	}
	before := count()

	m.CountOutbound()
	m.CountInbound(&decide.Outcome{})
	reasons := append(rules.Reasons(), "")
	for _, k := range knownKinds {
		for _, r := range reasons {
			for _, o := range rules.Owners() {
				for _, v := range knownVerdicts {
					for _, e := range knownEvidence {
						for _, a := range append(knownActions, decide.ActionNone) {
							m.CountInbound(&decide.Outcome{Event: &decide.Event{Kind: k, Reason: r, Owner: o,
								Judgement: backscatter.Judgement{Verdict: v, Evidence: e}, Action: a}})
						}
					}
				}
			}
		}
	}

	// Automatic replies, as decide writes their events.
	for _, v := range knownVerdicts {
		for _, e := range knownEvidence {
			for _, a := range []decide.Action{decide.ActionNone, decide.ActionTag, decide.ActionQuarantine, decide.ActionDiscard} {
				m.CountInbound(&decide.Outcome{Event: &decide.Event{Kind: dsn.KindAutoreply,
					Judgement: backscatter.Judgement{Verdict: v, Evidence: e}, Action: a}})
			}
		}
	}

	l, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lookups := m.Lookups(l)
	lookups.ByMessageID(ctx, "absent@example.org") // notfound
	q := NewRecorder(l, m, nil, 0)
	q.Record(ledger.Record{MessageID: "present@example.org", Sender: "a@example.org", Recipients: []string{"b@example.net"}, Time: time.Now()},
		"test", RecordPolicy{Wait: 5 * time.Second}) // put ok
	lookups.ByMessageID(ctx, "present@example.org") // ok
	l.Close()
	lookups.SentTo(ctx, "a@example.org", "b@example.net")                                                                            // error
	q.Record(ledger.Record{MessageID: "late@example.org", Time: time.Now()}, "test", RecordPolicy{Wait: 5 * time.Second, Retry: -1}) // put error
	q.Stop()

	if got := counterValue(t, m.LedgerOps.WithLabelValues("put", "error")); got != 1 {
		t.Errorf("put error counted %v times, want 1: the test did not reach the error path", got)
	}
	if got := counterValue(t, m.LedgerOps.WithLabelValues("lookup", "error")); got != 1 {
		t.Errorf("lookup error counted %v times, want 1: the test did not reach the error path", got)
	}
	if after := count(); after != before {
		t.Errorf("counting made %d series beyond the %d initialised ones", after-before, before)
	}
}

// seriesCount returns the number of series c exports now.
func seriesCount(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric)
	go func() { c.Collect(ch); close(ch) }()
	n := 0
	for range ch {
		n++
	}
	return n
}

// counterValue returns the value of a counter.
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var mv dto.Metric
	if err := c.Write(&mv); err != nil {
		t.Fatal(err)
	}
	return mv.GetCounter().GetValue()
}
