package main

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// reloadMetrics tell whether the configuration serve runs with is the one
// in the file: after a rejected SIGHUP the old one stays in force, which
// only these gauges (and a log line) show. The names follow Prometheus's own
// prometheus_config_last_reload_successful and
// prometheus_config_last_reload_success_timestamp_seconds.
type reloadMetrics struct {
	success   prometheus.Gauge
	timestamp prometheus.Gauge
}

// newReloadMetrics registers the reload gauges with reg.
func newReloadMetrics(reg prometheus.Registerer) *reloadMetrics {
	m := &reloadMetrics{
		success: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ndrmilter_config_last_reload_success",
			Help: "1 if the last load of the configuration (at start or on SIGHUP) succeeded, 0 if it was rejected and the previous one is still in force.",
		}),
		timestamp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ndrmilter_config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful load of the configuration (at start or on SIGHUP).",
		}),
	}
	reg.MustRegister(m.success, m.timestamp)
	return m
}

// loaded records the outcome of a load of the configuration at time t.
func (m *reloadMetrics) loaded(ok bool, t time.Time) {
	if !ok {
		m.success.Set(0)
		return
	}
	// The time first: a scrape between the two sets sees the new time
	// with the old 0, never a 1 with the time of the load before.
	m.timestamp.Set(float64(t.UnixNano()) / 1e9)
	m.success.Set(1)
}
