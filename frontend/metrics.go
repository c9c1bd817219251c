package frontend

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Metrics are the Prometheus metrics of a front end.
type Metrics struct {
	Bounces         *prometheus.CounterVec   // kind, reason, owner
	Verdicts        *prometheus.CounterVec   // verdict, evidence
	Actions         *prometheus.CounterVec   // action
	Messages        *prometheus.CounterVec   // direction: outbound, inbound, bounce
	LedgerOps       *prometheus.CounterVec   // op (put, lookup), result (ok, notfound, error, dropped)
	LedgerLatency   *prometheus.HistogramVec // op
	CallbackLatency *prometheus.HistogramVec // stage (the protocol's: milter callback, SMTP command)
	Sessions        prometheus.Gauge
	FailOpen        *prometheus.CounterVec // stage

	// RuleDecisions counts the reports read, by the rule that decided the
	// reading shown first (issue 8, "Say why"): rule ids only, from the
	// loaded rules files, "none" when no rule decided.
	RuleDecisions *prometheus.CounterVec // rule

	*guardMetrics // limits, removed fields, spool (guard_metrics.go)

	// Series counted for most messages, looked up once rather than by
	// label for each.
	outbound, inbound, bounce, autoreply prometheus.Counter // Messages, by direction
	lookupLatency                        prometheus.Observer
	lookupOK, lookupNotFound, lookupErr  prometheus.Counter // LedgerOps of lookups, by result
}

// LatencyBuckets are the buckets of the latency histograms, in seconds.
var LatencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}

// NewMetrics creates the metrics and registers them with reg (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Bounces: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_bounces_total",
			Help: "Inbound delivery reports read, by kind, reason and owner."}, []string{"kind", "reason", "owner"}),
		Verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_backscatter_verdicts_total",
			Help: "Backscatter verdicts, by verdict and evidence."}, []string{"verdict", "evidence"}),
		Actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_backscatter_actions_total",
			Help: "Actions taken on backscatter."}, []string{"action"}),
		Messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_messages_total",
			Help: "Messages seen, by direction (outbound, inbound, bounce)."}, []string{"direction"}),
		LedgerOps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_ledger_operations_total",
			Help: "Ledger writes and lookups, by result."}, []string{"op", "result"}),
		LedgerLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ndrmilter_ledger_latency_seconds",
			Help: "Ledger operation latency.", Buckets: LatencyBuckets}, []string{"op"}),
		CallbackLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ndrmilter_callback_latency_seconds",
			Help: "Time spent per protocol stage (milter callback or SMTP command).", Buckets: LatencyBuckets}, []string{"stage"}),
		Sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "ndrmilter_sessions_in_flight",
			Help: "Front-end connections open (milter or SMTP)."}),
		FailOpen: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_fail_open_total",
			Help: "Messages let through unchanged because of an internal error or panic, by stage."}, []string{"stage"}),
	}
	m.guardMetrics = newGuardMetrics(reg)
	if reg != nil {
		reg.MustRegister(m.Bounces, m.Verdicts, m.Actions, m.Messages, m.LedgerOps, m.LedgerLatency,
			m.CallbackLatency, m.Sessions, m.FailOpen)
	}
	m.newRuleMetrics(reg)
	m.initKnownSeries() // metrics_known.go
	m.outbound, m.inbound = m.Messages.WithLabelValues("outbound"), m.Messages.WithLabelValues("inbound")
	m.bounce, m.autoreply = m.Messages.WithLabelValues("bounce"), m.Messages.WithLabelValues("autoreply")
	m.lookupLatency = m.LedgerLatency.WithLabelValues("lookup")
	m.lookupOK, m.lookupNotFound = m.LedgerOps.WithLabelValues("lookup", "ok"), m.LedgerOps.WithLabelValues("lookup", "notfound")
	m.lookupErr = m.LedgerOps.WithLabelValues("lookup", "error")
	return m
}

// newRuleMetrics creates and registers the counter of rule decisions (a
// block of its own: the label is a rule id).
func (m *Metrics) newRuleMetrics(reg prometheus.Registerer) {
	m.RuleDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_rule_decisions_total",
		Help: "Delivery reports read, by the rule that decided the reading shown first (none: no rule did)."}, []string{"rule"})
	if reg != nil {
		reg.MustRegister(m.RuleDecisions)
	}
	m.RuleDecisions.WithLabelValues("none")
}

// InitRules creates the rule decision series of every rule of eng at 0, so
// that an alert on one rule sees 0 rather than "no data". The front ends
// call it with each engine they load; series of rules a reload removed stay.
func (m *Metrics) InitRules(eng *rules.Engine) {
	if eng == nil {
		return
	}
	for _, id := range eng.RuleIDs() {
		m.RuleDecisions.WithLabelValues(id)
	}
}

// countRule counts the rule that decided an explained report.
func (m *Metrics) countRule(e *decide.Event) {
	m.RuleDecisions.WithLabelValues(e.RuleLabel()).Inc()
}

// CountOutbound counts an outbound message.
func (m *Metrics) CountOutbound() { m.outbound.Inc() }

// CountInbound counts an inbound message by what was decided for it.
func (m *Metrics) CountInbound(out *decide.Outcome) {
	e := out.Event
	if e == nil {
		m.inbound.Inc()
		return
	}
	if e.Kind == dsn.KindAutoreply {
		// An automatic reply: judged, not explained.
		m.autoreply.Inc()
		m.Verdicts.WithLabelValues(string(e.Judgement.Verdict), string(e.Judgement.Evidence)).Inc()
		if e.Action != decide.ActionNone {
			m.Actions.WithLabelValues(string(e.Action)).Inc()
		}
		return
	}
	m.bounce.Inc()
	m.Verdicts.WithLabelValues(string(e.Judgement.Verdict), string(e.Judgement.Evidence)).Inc()
	m.Bounces.WithLabelValues(string(e.Kind), e.ReasonLabel(), string(e.Owner)).Inc()
	m.countRule(e)
	if e.Action != decide.ActionNone {
		m.Actions.WithLabelValues(string(e.Action)).Inc()
	}
}

func (m *Metrics) observeLookup(start time.Time, err error) {
	m.lookupLatency.Observe(time.Since(start).Seconds())
	switch {
	case err == nil:
		m.lookupOK.Inc()
	case errors.Is(err, ledger.ErrNotFound):
		m.lookupNotFound.Inc()
	default:
		m.lookupErr.Inc()
	}
}

// Lookups returns l as a backscatter judgement reads it, every lookup timed
// and counted; nil when l is nil (no ledger).
func (m *Metrics) Lookups(l ledger.Ledger) backscatter.Ledger {
	if l == nil {
		return nil
	}
	return observedLedger{l: l, m: m}
}

// observedLedger is the ledger as a backscatter judgement reads it, every
// lookup timed and counted.
type observedLedger struct {
	l ledger.Ledger
	m *Metrics
}

func (o observedLedger) ByMessageID(ctx context.Context, messageID string) (ledger.Record, error) {
	start := time.Now()
	r, err := o.l.ByMessageID(ctx, messageID)
	o.m.observeLookup(start, err)
	return r, err
}

func (o observedLedger) ByQueueID(ctx context.Context, queueID string) (ledger.Record, error) {
	start := time.Now()
	r, err := o.l.ByQueueID(ctx, queueID)
	o.m.observeLookup(start, err)
	return r, err
}

func (o observedLedger) SentTo(ctx context.Context, sender, recipient string) (bool, error) {
	start := time.Now()
	ok, err := o.l.SentTo(ctx, sender, recipient)
	o.m.observeLookup(start, err)
	return ok, err
}

func (o observedLedger) LastSent(ctx context.Context, sender string) (time.Time, error) {
	start := time.Now()
	t, err := o.l.LastSent(ctx, sender)
	o.m.observeLookup(start, err)
	return t, err
}

func (o observedLedger) Since(ctx context.Context) (time.Time, error) {
	start := time.Now()
	t, err := o.l.Since(ctx)
	o.m.observeLookup(start, err)
	return t, err
}
