package main

// The Grafana dashboard (deploy/grafana/ndrmilter.json) and the README's
// Metrics section name exactly the metrics that serve and filter export.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

var (
	promString     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers   = regexp.MustCompile(`\{[^}]*\}`)
	promRange      = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping   = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promVariable   = regexp.MustCompile(`\$\{?\w+\}?`)
	promIdentifier = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promFunction   = regexp.MustCompile(`^\s*\(`)
	promLabelVals  = regexp.MustCompile(`label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*,[^)]*\)`)
)

// promKeywords are the identifiers of PromQL that are not metric names
// and not followed by "(": operators, modifiers and literals.
var promKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true, "without": true,
	"on": true, "ignoring": true, "group_left": true, "group_right": true, "inf": true, "nan": true, "Inf": true, "NaN": true,
}

// promMetricNames returns the metric names an expression selects, read
// roughly: strings, label matchers, ranges, groupings and dashboard
// variables are removed, then every identifier that is neither a function
// or aggregation (followed by "(") nor a keyword is a metric name. A
// Grafana label_values(METRIC, LABEL) query names METRIC.
func promMetricNames(expr string) []string {
	var names []string
	expr = promLabelVals.ReplaceAllStringFunc(expr, func(s string) string {
		names = append(names, promLabelVals.FindStringSubmatch(s)[1])
		return ""
	})
	expr = promString.ReplaceAllString(expr, " ")
	expr = promMatchers.ReplaceAllString(expr, " ")
	expr = promRange.ReplaceAllString(expr, " ")
	expr = promGrouping.ReplaceAllString(expr, " ")
	expr = promVariable.ReplaceAllString(expr, " ")
	for _, loc := range promIdentifier.FindAllStringIndex(expr, -1) {
		id := expr[loc[0]:loc[1]]
		if loc[0] > 0 && (expr[loc[0]-1] >= '0' && expr[loc[0]-1] <= '9' || expr[loc[0]-1] == '.') {
			continue // the exponent or tail of a number: 1e3
		}
		if promKeywords[id] || promFunction.MatchString(expr[loc[1]:]) {
			continue
		}
		names = append(names, id)
	}
	return names
}

func TestPromMetricNamesReadsExpressionsRoughly(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (reason) (rate(ndrmilter_bounces_total{instance=~"$instance",reason!="x{y}"}[$__rate_interval]))`: {"ndrmilter_bounces_total"},
		`histogram_quantile(0.99, sum by (op, le) (rate(ndrmilter_ledger_latency_seconds_bucket[5m])))`:           {"ndrmilter_ledger_latency_seconds_bucket"},
		`time() - max(ndrmilter_config_last_reload_success_timestamp_seconds)`:                                    {"ndrmilter_config_last_reload_success_timestamp_seconds"},
		`process_open_fds{job="x"} / on (instance) group_left process_max_fds > bool 1e3`:                         {"process_open_fds", "process_max_fds"},
		`sort_desc(sum without (owner) (increase(a_total[1h] offset 1d)) > 0) or vector(0)`:                       {"a_total"},
		`label_values(ndrmilter_build_info, instance)`:                                                            {"ndrmilter_build_info"},
		`rate(typo_totl[5m])`: {"typo_totl"},
	} {
		if got := promMetricNames(expr); !reflect.DeepEqual(got, want) {
			t.Errorf("promMetricNames(%s) = %q, want %q", expr, got, want)
		}
	}
}

// dashboardQueries returns every PromQL expression of a Grafana dashboard:
// the panels' targets (rows' panels included) and the templating queries.
func dashboardQueries(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels     []json.RawMessage `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	queries := map[string]string{} // expression -> where
	type panel struct {
		Title   string            `json:"title"`
		Panels  []json.RawMessage `json:"panels"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	}
	var walk func([]json.RawMessage)
	walk = func(raw []json.RawMessage) {
		for _, r := range raw {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				t.Fatalf("%s: a panel: %v", path, err)
			}
			for _, tg := range p.Targets {
				if tg.Expr == "" {
					t.Errorf("%s: panel %q has a target without an expression", path, p.Title)
				}
				queries[tg.Expr] = "panel " + p.Title
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q string
		if json.Unmarshal(v.Query, &q) != nil {
			var obj struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(v.Query, &obj); err != nil {
				t.Fatalf("%s: variable %s: query %s", path, v.Name, v.Query)
			}
			q = obj.Query
		}
		queries[q] = "variable " + v.Name
	}
	return queries
}

// exportedNames returns the names a query may use for the families of
// mfs: each family's name, and for a histogram or summary its _bucket,
// _sum and _count series.
func exportedNames(mfs map[string]*dto.MetricFamily) map[string]string {
	names := map[string]string{} // series name -> family
	for name, mf := range mfs {
		names[name] = name
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			names[name+"_bucket"], names[name+"_sum"], names[name+"_count"] = name, name, name
		case dto.MetricType_SUMMARY:
			names[name+"_sum"], names[name+"_count"] = name, name
		}
	}
	return names
}

// freshFamilies is the union of the metric families of a fresh serve and a
// fresh filter.
func freshFamilies(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	all := freshMetrics(t, "serve")
	for name, mf := range freshMetrics(t, "filter") {
		if _, ok := all[name]; !ok {
			all[name] = mf
		}
	}
	return all
}

// Every expression of the Grafana dashboard names metrics that a fresh
// serve or filter exports (so that none is misspelt or gone), and every
// ndrmilter_* metric they export is on the dashboard.
func TestDashboardNamesExactlyTheExportedMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve and filter in child processes")
	}
	path := filepath.Join("..", "..", "deploy", "grafana", "ndrmilter.json")
	queries := dashboardQueries(t, path)
	if len(queries) < 10 {
		t.Fatalf("%s: %d queries, want a dashboard", path, len(queries))
	}
	exported := exportedNames(freshFamilies(t))
	used := map[string]bool{}
	for expr, where := range queries {
		names := promMetricNames(expr)
		if len(names) == 0 {
			t.Errorf("%s (%s): no metric in %q", path, where, expr)
		}
		for _, n := range names {
			fam, ok := exported[n]
			if !ok {
				t.Errorf("%s (%s): %s is not a metric that serve or filter exports: %s", path, where, n, expr)
				continue
			}
			used[fam] = true
		}
	}
	var missing []string
	for name, fam := range exported {
		if name == fam && strings.HasPrefix(name, "ndrmilter_") && !used[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("%s shows nothing of %s: add a panel for it", path, name)
	}
}

// The README's metrics list names each ndrmilter_* metric that serve or
// filter exports, and every ndrmilter_* name in its Metrics section (the
// list, the alert examples) is one they export.
func TestReadmeListsExactlyTheExportedMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ndrmilter serve and filter in child processes")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## Metrics\n")
	if start < 0 {
		t.Fatal("README.md has no \"## Metrics\" section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(ndrmilter_[a-z_]+)`").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}
	mfs := freshFamilies(t)
	for name := range mfs {
		if strings.HasPrefix(name, "ndrmilter_") && !listed[name] {
			t.Errorf("README.md's metrics list lacks %s", name)
		}
	}
	exported := exportedNames(mfs)
	for _, name := range regexp.MustCompile(`ndrmilter_[a-z_]+`).FindAllString(section, -1) {
		if _, ok := exported[name]; !ok {
			t.Errorf("README.md's Metrics section names %s, which neither serve nor filter exports", name)
		}
	}
}
