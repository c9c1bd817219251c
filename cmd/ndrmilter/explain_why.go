package main

import (
	"fmt"
	"io"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// traced reports whether the rules read a reading (a record of a delivery
// report), so that --why has rules to show; the readings of auto-replies,
// feedback reports and other messages are not the rules'.
func traced(report *dsn.Report, rd rules.Reading) bool {
	switch rd.Kind {
	case dsn.KindAutoreply, dsn.KindFeedback, dsn.KindReceipt, dsn.KindNone:
		return false
	}
	return len(report.Recipients) > 0
}

// writeWhyText prints, for one record, every rule that matches it in the
// order the engine tries them (local files first; the first one decided),
// with the file and line of each, and where each fact came from: what an
// admin needs to write a local rule that reads the record otherwise.
func writeWhyText(w io.Writer, engine *rules.Engine, report *dsn.Report, rd rules.Reading) {
	if !traced(report, rd) {
		fmt.Fprintf(w, "  Why: no rule reads this record: the message is not a delivery report (%s).\n", rd.Kind)
		return
	}
	tr := engine.Trace(rules.InputOf(report, rd.Recipient))
	fmt.Fprintf(w, "  Why it is read as %s:\n", rd.Reason)
	if len(tr.Matches) == 0 {
		fmt.Fprintf(w, "    No rule matches: the defaults of the reason %s apply.\n", rd.Reason)
	}
	for i, m := range tr.Matches {
		mark := "    "
		if i == 0 {
			mark = "  * "
		}
		fmt.Fprintf(w, "  %s%d. %s (%s) matched %q -> %s\n", mark, i+1, m.Rule, where(m.File, m.Line), m.Matched, m.Reason)
	}
	if len(tr.Matches) > 0 {
		fmt.Fprintf(w, "    The first rule, marked *, decides; the others come after it in precedence order.\n")
	}
	for _, f := range tr.Facts {
		fmt.Fprintf(w, "    Fact %s = %q, from %s (%s)\n", f.Fact, f.Value, f.From, where(f.File, f.Line))
	}
	fmt.Fprintf(w, "    To read it otherwise, write a rule with the conditions you want in a local rules file (--rules FILE,\n"+
		"    or rules: in the configuration): local rules are tried before the built-in ones.\n")
}

// newWhyRecord is the "why" of a JSON record; nil when no rule reads it.
func newWhyRecord(engine *rules.Engine, report *dsn.Report, rd rules.Reading) *whyRecord {
	if !traced(report, rd) {
		return nil
	}
	tr := engine.Trace(rules.InputOf(report, rd.Recipient))
	out := &whyRecord{Matches: []whyMatch{}}
	for i, m := range tr.Matches {
		out.Matches = append(out.Matches, whyMatch{Rule: m.Rule, File: m.File, Line: m.Line, Matched: m.Matched,
			Reason: m.Reason, Decided: i == 0})
	}
	for _, f := range tr.Facts {
		out.Facts = append(out.Facts, whyFact{Fact: f.Fact, Value: f.Value, From: f.From, File: f.File, Line: f.Line})
	}
	return out
}

// where names a rule's place: "FILE:LINE", or the file alone.
func where(file string, line int) string {
	if line == 0 {
		return file
	}
	return fmt.Sprintf("%s:%d", file, line)
}
