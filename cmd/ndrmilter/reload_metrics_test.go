package main

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestReloadGaugesAreReadFromOneSnapshot: while loads succeed and fail
// (SIGHUPs), a scrape never sees the 1 of a new success with the time of
// the success before: once a scrape has seen a failure after the success
// at time T, a later 1 comes with a later time. A registry gathers its
// collectors concurrently, so two plain gauges could be read out of order.
func TestReloadGaugesAreReadFromOneSnapshot(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newReloadMetrics(reg)
	base := time.Unix(1_700_000_000, 0)
	m.loaded(true, base)
	stop := make(chan struct{})
	go func() {
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			m.loaded(false, base.Add(time.Duration(i)*time.Second))
			m.loaded(true, base.Add(time.Duration(i)*time.Second))
		}
	}()
	defer close(stop)
	failedAfter := -1.0 // the time of the last success when a failure was seen
	for range 2000 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var success, ts float64
		for _, mf := range mfs {
			switch mf.GetName() {
			case "ndrmilter_config_last_reload_success":
				success = mf.GetMetric()[0].GetGauge().GetValue()
			case "ndrmilter_config_last_reload_success_timestamp_seconds":
				ts = mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		switch {
		case success == 0:
			failedAfter = ts
		case ts <= failedAfter:
			t.Fatalf("a scrape saw success 1 with the time %v of the success before the failure it had seen (%v)", ts, failedAfter)
		}
	}
}
