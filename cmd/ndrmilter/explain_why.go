package main

import (
	"fmt"
	"io"
	"strconv"

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
func writeWhyText(w io.Writer, lw words, engine *rules.Engine, report *dsn.Report, rd rules.Reading) {
	if !traced(report, rd) {
		fmt.Fprintf(w, "  %s\n", lw.text("cli.why.not_report", "kind", string(rd.Kind)))
		return
	}
	tr := engine.Trace(rules.InputOf(report, rd.Recipient))
	fmt.Fprintf(w, "  %s\n", lw.text("cli.why.heading", "reason", string(rd.Reason)))
	if len(tr.Matches) == 0 {
		fmt.Fprintf(w, "    %s\n", lw.text("cli.why.no_rule", "reason", string(rd.Reason)))
	}
	for i, m := range tr.Matches {
		mark := "    "
		if i == 0 {
			mark = "  * "
		}
		fmt.Fprintf(w, "  %s%s\n", mark, lw.text("cli.why.match", "n", strconv.Itoa(i+1), "rule", m.Rule,
			"where", where(m.File, m.Line), "phrase", strconv.Quote(m.Matched), "reason", string(m.Reason)))
	}
	if len(tr.Matches) > 0 {
		fmt.Fprintf(w, "    %s\n", lw.text("cli.why.first"))
	}
	for _, f := range tr.Facts {
		fmt.Fprintf(w, "    %s\n", lw.text("cli.why.fact", "fact", string(f.Fact), "value", strconv.Quote(f.Value),
			"from", f.From, "where", where(f.File, f.Line)))
	}
	for _, line := range wrapLines(lw.text("cli.why.otherwise"), 100) {
		fmt.Fprintf(w, "    %s\n", line)
	}
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
