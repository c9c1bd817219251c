package frontend

// The series every front end exports from its start, at 0: one per known
// label value (the directions, the kinds, reasons and owners of a report,
// the verdicts and their evidence, the backscatter actions, the ledger
// operations and their results, the stages). A labelled counter has no
// series until its first event, and an alert or a dashboard on it sees "no
// data" instead of 0 (Prometheus's instrumentation guide, "Avoid missing
// metrics"). The counting code uses these same values; a test checks that
// counting makes no series beyond them.

import (
	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// knownDirections are the values of the direction label of
// ndrmilter_messages_total.
// An automatic reply that is judged counts as "autoreply".
var knownDirections = []string{"outbound", "inbound", "bounce", "autoreply"}

// knownKinds are the kinds of report that are explained and counted in
// ndrmilter_bounces_total: those decide.Annotates.
var knownKinds = []dsn.Kind{dsn.KindBounce, dsn.KindDelay}

// knownVerdicts and knownEvidence are the labels of
// ndrmilter_backscatter_verdicts_total.
var knownVerdicts = []backscatter.Verdict{backscatter.Yes, backscatter.No, backscatter.Unknown}

var knownEvidence = backscatter.Evidences

// knownActions are the backscatter actions counted (decide.ActionNone is
// not: it is no action).
var knownActions = []decide.Action{decide.ActionTag, decide.ActionQuarantine, decide.ActionReject, decide.ActionDiscard}

// knownLedgerOps are the ledger operations and the results each can have
// (the Recorder's puts, the lookups of Lookups).
var knownLedgerOps = map[string][]string{
	"put":    {"ok", "error", "dropped"},
	"lookup": {"ok", "notfound", "error"},
}

// initKnownSeries creates the series of every known label value at 0. The
// reason of ndrmilter_bounces_total takes the whole vocabulary
// (rules.Reasons); "other", which only a reason outside it would give, is
// left out. Every combination of kind, reason and owner is made (504
// series), and of verdict and evidence, so that a selector on any one label
// finds series at 0.
func (m *Metrics) initKnownSeries() {
	for _, d := range knownDirections {
		m.Messages.WithLabelValues(d)
	}
	reasons, owners := rules.Reasons(), rules.Owners()
	for _, k := range knownKinds {
		for _, r := range reasons {
			for _, o := range owners {
				m.Bounces.WithLabelValues(string(k), string(r), string(o))
			}
		}
	}
	for _, v := range knownVerdicts {
		for _, e := range knownEvidence {
			m.Verdicts.WithLabelValues(string(v), string(e))
		}
	}
	for _, a := range knownActions {
		m.Actions.WithLabelValues(string(a))
	}
	for op, results := range knownLedgerOps {
		m.LedgerLatency.WithLabelValues(op)
		for _, r := range results {
			m.LedgerOps.WithLabelValues(op, r)
		}
	}
}

// InitStages creates at 0 the per-stage series of a front end: the
// callback latency of each of its protocol stages, and the fail-open count
// of each stage that can fail open. Each front end calls it once with its
// own stages (the milter's callbacks, the filter's SMTP commands).
func (m *Metrics) InitStages(callbackStages, failOpenStages []string) {
	for _, s := range callbackStages {
		m.CallbackLatency.WithLabelValues(s)
	}
	for _, s := range failOpenStages {
		m.FailOpen.WithLabelValues(s)
	}
}
