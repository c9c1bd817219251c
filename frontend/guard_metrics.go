package frontend

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// guardMetrics are the metrics of what protects a front end and the mail
// through it: the limits on connections and memory, the X-NDR-* fields
// removed, the messages refused for a while, and the spool of outbound
// records. They are part of Metrics.
type guardMetrics struct {
	ConnectionsRefused *prometheus.CounterVec // reason: max_connections, not_allowed
	AcceptErrors       prometheus.Counter
	BudgetExceeded     *prometheus.CounterVec // limit: buffer, parse_wait
	Tempfails          *prometheus.CounterVec // reason
	NDRFieldsRemoved   prometheus.Counter
	RecordsSpooled     *prometheus.CounterVec // result: spooled, replayed, failed

	budget atomic.Pointer[Budget]
	spool  atomic.Pointer[spool]
}

// Reasons a front end refuses a connection, as the label of
// ndrmilter_connections_refused_total.
const (
	RefusedMaxConnections = "max_connections" // max_connections are open
	RefusedNotAllowed     = "not_allowed"     // the client is outside listen_allow
)

// Reasons a front end answers a message with a temporary failure, as the
// label of ndrmilter_tempfail_total.
const (
	TempfailNDRFields   = "ndr_fields"   // more X-NDR-* fields than can be removed
	TempfailHeaderLimit = "header_limit" // a header section over MaxHeaderBytes
)

func newGuardMetrics(reg prometheus.Registerer) *guardMetrics {
	g := &guardMetrics{
		ConnectionsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_connections_refused_total",
			Help: "Connections closed at once, by reason (max_connections, not_allowed)."}, []string{"reason"}),
		AcceptErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "ndrmilter_accept_errors_total",
			Help: "Temporary errors accepting a connection (such as too many open files), retried with backoff."}),
		BudgetExceeded: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_budget_exceeded_total",
			Help: "Messages passed unread (their X-NDR-* fields still removed) because a memory limit was reached, by limit (buffer, parse_wait)."}, []string{"limit"}),
		Tempfails: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_tempfail_total",
			Help: "Messages answered with a temporary failure, by reason (ndr_fields, header_limit)."}, []string{"reason"}),
		NDRFieldsRemoved: prometheus.NewCounter(prometheus.CounterOpts{Name: "ndrmilter_ndr_fields_removed_total",
			Help: "X-NDR-* header fields removed from mail because ndrmilter did not write them."}),
		RecordsSpooled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ndrmilter_record_spool_total",
			Help: "Outbound records written to the local spool while the ledger did not take them, written from it to the ledger, or not taken by it (full, or its disk failed: kept in memory), by result (spooled, replayed, failed)."}, []string{"result"}),
	}
	// Every label value from the start, so that a rate is defined before
	// the first event.
	for _, r := range []string{RefusedMaxConnections, RefusedNotAllowed} {
		g.ConnectionsRefused.WithLabelValues(r)
	}
	for _, l := range []string{LimitBuffer, LimitParseWait} {
		g.BudgetExceeded.WithLabelValues(l)
	}
	for _, r := range []string{TempfailNDRFields, TempfailHeaderLimit} {
		g.Tempfails.WithLabelValues(r)
	}
	for _, r := range []string{spoolSpooled, spoolReplayed, spoolFailed} {
		g.RecordsSpooled.WithLabelValues(r)
	}
	if reg != nil {
		reg.MustRegister(g.ConnectionsRefused, g.AcceptErrors, g.BudgetExceeded, g.Tempfails, g.NDRFieldsRemoved, g.RecordsSpooled)
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ndrmilter_buffered_bytes",
			Help: "Message bytes held in memory now, against buffer_budget."}, func() float64 {
			if b := g.budget.Load(); b != nil {
				return float64(b.Used())
			}
			return 0
		}))
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ndrmilter_record_spool_bytes",
			Help: "Size of the local spool of outbound records the ledger has not taken yet."}, func() float64 {
			if s := g.spool.Load(); s != nil {
				return float64(s.size())
			}
			return 0
		}))
	}
	return g
}

func (m *Metrics) setBudget(b *Budget) { m.budget.Store(b) }

func (m *Metrics) setSpool(s *spool) { m.spool.Store(s) }
