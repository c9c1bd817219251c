package frontend

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
)

// TestRuleDecisionsCountsTheDecidingRule: each explained report counts once
// under the id of the rule that decided it, "none" when no rule did, in the
// counter registered as ndrmilter_rule_decisions_total.
func TestRuleDecisionsCountsTheDecidingRule(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	report := func(rule string) *decide.Outcome {
		return &decide.Outcome{Event: &decide.Event{Kind: dsn.KindBounce, Rule: rule,
			Judgement: backscatter.Judgement{Verdict: backscatter.Unknown, Evidence: backscatter.EvidenceNone}}}
	}
	m.CountInbound(report("blocked-text"))
	m.CountInbound(report("blocked-text"))
	m.CountInbound(report(""))
	m.CountInbound(&decide.Outcome{}) // not a report: not counted

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "ndrmilter_rule_decisions_total" {
			continue
		}
		for _, mt := range f.GetMetric() {
			if len(mt.GetLabel()) != 1 || mt.GetLabel()[0].GetName() != "rule" {
				t.Fatalf("labels %v, want one, rule", mt.GetLabel())
			}
			got[mt.GetLabel()[0].GetValue()] = mt.GetCounter().GetValue()
		}
	}
	if len(got) != 2 || got["blocked-text"] != 2 || got["none"] != 1 {
		t.Errorf("ndrmilter_rule_decisions_total = %v, want blocked-text 2 and none 1", got)
	}
}
