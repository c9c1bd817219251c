package main

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// reloadMetrics tell whether the configuration serve runs with is the one
// in the file: after a rejected SIGHUP the old one stays in force, which
// only these gauges (and a log line) show. The names follow Prometheus's own
// prometheus_config_last_reload_successful and
// prometheus_config_last_reload_success_timestamp_seconds.
//
// It is one collector that reports both gauges from one snapshot: a
// registry gathers its collectors concurrently, so two separate gauges
// could be read in either order around a reload, and a scrape could see
// the new 1 with the time of the load before.
type reloadMetrics struct {
	successDesc, timestampDesc *prometheus.Desc

	mu          sync.Mutex
	success     bool
	successTime time.Time
}

// newReloadMetrics registers the reload gauges with reg.
func newReloadMetrics(reg prometheus.Registerer) *reloadMetrics {
	m := &reloadMetrics{
		successDesc: prometheus.NewDesc("ndrmilter_config_last_reload_success",
			"1 if the last load of the configuration (at start or on SIGHUP) succeeded, 0 if it was rejected and the previous one is still in force.", nil, nil),
		timestampDesc: prometheus.NewDesc("ndrmilter_config_last_reload_success_timestamp_seconds",
			"Unix time of the last successful load of the configuration (at start or on SIGHUP).", nil, nil),
	}
	reg.MustRegister(m)
	return m
}

// loaded records the outcome of a load of the configuration at time t.
func (m *reloadMetrics) loaded(ok bool, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.success = ok
	if ok {
		m.successTime = t
	}
}

// Describe implements prometheus.Collector.
func (m *reloadMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.successDesc
	ch <- m.timestampDesc
}

// Collect implements prometheus.Collector: both gauges from one snapshot.
func (m *reloadMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	success, t := m.success, m.successTime
	m.mu.Unlock()
	v, ts := 0.0, 0.0
	if success {
		v = 1
	}
	if !t.IsZero() {
		ts = float64(t.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(m.successDesc, prometheus.GaugeValue, v)
	ch <- prometheus.MustNewConstMetric(m.timestampDesc, prometheus.GaugeValue, ts)
}
