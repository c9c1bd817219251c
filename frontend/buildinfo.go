package frontend

import "github.com/prometheus/client_golang/prometheus"

// BuildInfo is what ndrmilter_build_info says of the running binary: the
// values of "ndrmilter version".
type BuildInfo struct {
	Version   string // the version, "0.0~git20261130160820.a174fb3"
	Commit    string // the commit, 12 hex digits, "-dirty" when built from a changed tree
	GoVersion string // the Go toolchain, "go1.26.8"
	Rules     string // the digest of the built-in rules
}

// NewBuildInfoGauge returns the gauge ndrmilter_build_info, always 1, with
// the build's facts as labels, so that a dashboard can show which version
// runs where and join them to other series (Prometheus's convention for
// *_build_info).
func NewBuildInfoGauge(b BuildInfo) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ndrmilter_build_info",
		Help: "Always 1; the labels say which build runs: version, commit, Go version, digest of the built-in rules.",
		ConstLabels: prometheus.Labels{
			"version": b.Version, "commit": b.Commit, "goversion": b.GoVersion, "rules": b.Rules,
		},
	})
	g.Set(1)
	return g
}
