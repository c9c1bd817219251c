package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// familyNames gathers g and returns the names of its metric families, sorted.
func familyNames(t *testing.T, g prometheus.Gatherer) []string {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	slices.Sort(names)
	return names
}

// /metrics serves the Go runtime's and the process's metrics that the
// collectors package's collectors give (which serve and filter once
// registered in their own registry), from client_golang's default
// registry, and the registry's own metrics beside them.
func TestMetricsGathererServesTheRuntimeAndProcessMetricsOfTheCollectors(t *testing.T) {
	ref := prometheus.NewRegistry()
	ref.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	want := familyNames(t, ref)
	if !slices.Contains(want, "go_goroutines") || !slices.Contains(want, "process_cpu_seconds_total") {
		t.Fatalf("the collectors give %v: expected go_goroutines and process_cpu_seconds_total among them", want)
	}
	var got []string
	for _, n := range familyNames(t, metricsGatherer(newRegistry())) {
		if strings.HasPrefix(n, "go_") || strings.HasPrefix(n, "process_") {
			got = append(got, n)
		} else if n != "ndrmilter_build_info" {
			t.Errorf("a fresh registry serves %s: expected only ndrmilter_build_info besides go_* and process_*", n)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("/metrics serves the runtime and process metrics\n%v\nthe collectors give\n%v", got, want)
	}
	if !slices.Contains(familyNames(t, metricsGatherer(newRegistry())), "ndrmilter_build_info") {
		t.Error("/metrics does not serve the registry's ndrmilter_build_info")
	}
}
