package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// Engine classifies recipient records with a loaded rule set. An Engine is
// immutable after Load and safe for concurrent use.
type Engine struct {
	// PLACEHOLDER: the rules helper replaces this with the real rule set.
}

// Load returns an Engine with the rules of the given files, in order, followed
// by the built-in rules. First match wins, so local rules override built-in ones.
func Load(files ...string) (*Engine, error) {
	return &Engine{}, nil
}

// Classify reads one recipient record.
func (e *Engine) Classify(in Input) Verdict {
	v := Verdict{Status: in.Status, ReplyCode: in.ReplyCode, Reason: "undefined", Owner: OwnerUnknown}
	v.Permanent = strings.HasPrefix(in.Status, "5") || strings.HasPrefix(in.ReplyCode, "5")
	return v
}

// Lookup explains a bare enhanced code ("5.7.509") or a pasted reply line
// ("550 5.7.26 Unauthenticated email ...").
func (e *Engine) Lookup(codeOrReply string) Verdict {
	return e.Classify(Input{Diagnostic: codeOrReply})
}

// Reading is the reading of one recipient record of a report.
type Reading struct {
	Kind      dsn.Kind
	Recipient dsn.Recipient
	Verdict
}

// Explain reads every recipient record of r. A report that is not a delivery
// report yields one Reading with its Kind and an empty recipient.
func (e *Engine) Explain(r *dsn.Report) []Reading {
	if len(r.Recipients) == 0 {
		return []Reading{{Kind: r.Kind}}
	}
	out := make([]Reading, 0, len(r.Recipients))
	for _, rc := range r.Recipients {
		v := e.Classify(Input{Action: rc.Action, Status: rc.Status, ReplyCode: rc.ReplyCode,
			Diagnostic: rc.Diagnostic, RemoteMTA: rc.RemoteMTA, ReportingMTA: r.ReportingMTA, Command: rc.Command})
		out = append(out, Reading{Kind: r.Kind, Recipient: rc, Verdict: v})
	}
	return out
}
