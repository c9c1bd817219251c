package milter

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/frontend"
)

// stage is a milter protocol stage, a label of the callback latency metric.
type stage int

const (
	stConnect stage = iota
	stHelo
	stMail
	stRcpt
	stHeader
	stEOH
	stBody
	stEOM
	stAbort
	numStages
)

var stageNames = [numStages]string{"connect", "helo", "mail", "rcpt", "header", "eoh", "body", "eom", "abort"}

// stageObservers returns the callback latency observer of each stage.
func stageObservers(m *frontend.Metrics) (cb [numStages]prometheus.Observer) {
	for i := range cb {
		cb[i] = m.CallbackLatency.WithLabelValues(stageNames[i])
	}
	return cb
}
