package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ndrmilter/ndrmilter/rules"
)

// freshMetrics starts "ndrmilter serve" or "ndrmilter filter" (command) in
// a child process on a new data directory, scrapes its /metrics before any
// mail, stops it, and returns the metric families by name.
func freshMetrics(t *testing.T, command string) map[string]*dto.MetricFamily {
	t.Helper()
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	maddr := fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	var args []string
	var env, run, serving string
	switch command {
	case "serve":
		args = []string{"--listen", "inet:" + addr, "--data", filepath.Join(dir, "data"), "--domain", "example.org", "--metrics-listen", maddr}
		env, run, serving = serveChildEnv, "^TestServeChild$", `"msg":"ndrmilter serving"`
	case "filter":
		// The next hop is only dialled per session: an unused port will do.
		args = []string{"--listen", addr, "--next", fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t)), "--data", filepath.Join(dir, "data"),
			"--domain", "example.org", "--metrics-listen", maddr}
		env, run, serving = filterChildEnv, "^TestFilterChild$", `"msg":"ndrmilter filter serving"`
	default:
		t.Fatalf("freshMetrics: unknown command %q", command)
	}
	cmd := exec.Command(os.Args[0], "-test.run="+run, "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+strings.Join(args, "\x1f"))
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	// Its own word that it serves: a port picked free may have been taken
	// since by a test running in parallel.
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(out.String(), serving); time.Sleep(20 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("ndrmilter %s exited at start:\n%s", command, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("ndrmilter %s did not start:\n%s", command, out.String())
		}
	}
	resp, err := http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("/metrics of ndrmilter %s: %v\n%s", command, err, body)
	}
	return mfs
}

// sampleValue returns the value of the series of family name whose labels
// are exactly labels, and whether there is one.
func sampleValue(mfs map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.Metric {
		if len(m.Label) != len(labels) {
			continue
		}
		for _, lp := range m.Label {
			if v, ok := labels[lp.GetName()]; !ok || v != lp.GetValue() {
				continue next
			}
		}
		switch mf.GetType() {
		case dto.MetricType_COUNTER:
			return m.GetCounter().GetValue(), true
		case dto.MetricType_GAUGE:
			return m.GetGauge().GetValue(), true
		case dto.MetricType_HISTOGRAM:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// wantZero checks that family name has a series at 0 for each label set.
func wantZero(t *testing.T, mfs map[string]*dto.MetricFamily, name string, sets []map[string]string) {
	t.Helper()
	missing := 0
	for _, labels := range sets {
		v, ok := sampleValue(mfs, name, labels)
		if !ok || v != 0 {
			if missing++; missing <= 5 {
				t.Errorf("a fresh process: %s%v = %v (present: %v), want a series at 0", name, labels, v, ok)
			}
		}
	}
	if missing > 5 {
		t.Errorf("... and %d more series of %s", missing-5, name)
	}
}

// product returns every combination of the values of each label.
func product(labels ...[]string) []map[string]string {
	// labels alternates a name (a one-element slice) and its values.
	out := []map[string]string{{}}
	for i := 0; i+1 < len(labels); i += 2 {
		name := labels[i][0]
		var next []map[string]string
		for _, set := range out {
			for _, v := range labels[i+1] {
				m := map[string]string{name: v}
				for k, x := range set {
					m[k] = x
				}
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

func names(list ...string) []string { return list }

func stringsOf[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = string(x)
	}
	return out
}

// checkCommonFreshSeries checks the series serve and filter share.
func checkCommonFreshSeries(t *testing.T, mfs map[string]*dto.MetricFamily) {
	t.Helper()
	wantZero(t, mfs, "ndrmilter_bounces_total", product(
		names("kind"), names("bounce", "delay"),
		names("reason"), stringsOf(rules.Reasons()),
		names("owner"), stringsOf(rules.Owners())))
	wantZero(t, mfs, "ndrmilter_backscatter_verdicts_total", product(
		names("verdict"), names("yes", "no", "unknown"),
		names("evidence"), names("message-id", "queue-id", "recipient-match", "none", "ledger-error", "not-our-domain", "no-ledger")))
	wantZero(t, mfs, "ndrmilter_messages_total", product(names("direction"), names("outbound", "inbound", "bounce")))
	wantZero(t, mfs, "ndrmilter_ledger_operations_total", append(
		product(names("op"), names("put"), names("result"), names("ok", "error", "dropped")),
		product(names("op"), names("lookup"), names("result"), names("ok", "notfound", "error"))...))
	wantZero(t, mfs, "ndrmilter_ledger_latency_seconds", product(names("op"), names("put", "lookup")))

	b := buildInfo()
	if v, ok := sampleValue(mfs, "ndrmilter_build_info", map[string]string{"version": b.Version, "commit": b.Commit,
		"goversion": b.GoVersion, "rules": b.Rules}); !ok || v != 1 {
		t.Errorf("ndrmilter_build_info%+v: %v (present: %v), want 1 with the labels of \"ndrmilter version\"; got %v", b, v, ok, mfs["ndrmilter_build_info"])
	}
	if v, ok := sampleValue(mfs, "ndrmilter_ledger_records", nil); !ok || v != 0 {
		t.Errorf("ndrmilter_ledger_records of a new ledger: %v (present: %v), want 0", v, ok)
	}
	if v, ok := sampleValue(mfs, "ndrmilter_ledger_size_bytes", nil); !ok || v <= 0 {
		t.Errorf("ndrmilter_ledger_size_bytes of a new bbolt ledger: %v (present: %v), want its size", v, ok)
	}
	if v, ok := sampleValue(mfs, "ndrmilter_ledger_stats_last_success_timestamp_seconds", nil); !ok || v < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("ndrmilter_ledger_stats_last_success_timestamp_seconds: %v (present: %v), want about now", v, ok)
	}
}

// A fresh "ndrmilter serve" exports, before any mail, a series at 0 for
// every known label value of its counters (so that alerts see 0, not "no
// data"), its build and the size of its ledger.
func TestFreshServeExportsEveryKnownSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve in a child process")
	}
	mfs := freshMetrics(t, "serve")
	checkCommonFreshSeries(t, mfs)
	milterStages := names("connect", "helo", "mail", "rcpt", "header", "eoh", "body", "eom", "abort")
	wantZero(t, mfs, "ndrmilter_fail_open_total", product(names("stage"), milterStages))
	wantZero(t, mfs, "ndrmilter_callback_latency_seconds", product(names("stage"), milterStages))
	if v, ok := sampleValue(mfs, "ndrmilter_config_last_reload_success", nil); !ok || v != 1 {
		t.Errorf("ndrmilter_config_last_reload_success: %v (present: %v), want 1", v, ok)
	}
}

// A fresh "ndrmilter filter" exports the same, with the stages of SMTP.
func TestFreshFilterExportsEveryKnownSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter filter in a child process")
	}
	mfs := freshMetrics(t, "filter")
	checkCommonFreshSeries(t, mfs)
	wantZero(t, mfs, "ndrmilter_fail_open_total", product(names("stage"), names("header", "data")))
	wantZero(t, mfs, "ndrmilter_callback_latency_seconds", product(names("stage"), names("mail", "rcpt", "data")))
	wantZero(t, mfs, "ndrmilter_filter_next_hop_failures_total", product(names("stage"), names("connect", "mail", "rcpt", "data", "rset")))
}
