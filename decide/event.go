package decide

import (
	"time"

	"go.uber.org/zap"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Event is what the log line and the metrics say of one explained report.
// Text taken from the message is cleaned and bounded.
type Event struct {
	QueueID    string   // the MTA's queue id
	Recipients []string // envelope recipients
	Kind       dsn.Kind // bounce or delay
	// Status, Reason, Owner, Rule and FailedRecipient are those of the
	// reading shown first (the first failed recipient, else the first
	// delayed one). Rule is the id of the rule that decided the reading, ""
	// when none did: an id of the loaded rules files, never text from the
	// message.
	Status          string
	Reason          rules.Reason
	Owner           rules.Owner
	Rule            string
	FailedRecipient string
	Judgement       backscatter.Judgement
	Action          Action // ActionNone unless the report is backscatter
	ParseErr        error  // what dsn.Parse said, nil when it read the whole message
	Truncated       bool   // the message was longer than the front end keeps for parsing
}

// Fields are the fields of the "bounce" log line; elapsed is the time since
// the message started (MAIL FROM); addr shows an address as the log may
// (nil: as it is), so that a site logs its users' addresses only when it
// chose to.
func (e *Event) Fields(elapsed time.Duration, addr func(string) string) []zap.Field {
	if addr == nil {
		addr = func(a string) string { return a }
	}
	rcpts := make([]string, len(e.Recipients))
	for i, r := range e.Recipients {
		rcpts[i] = addr(r)
	}
	fields := []zap.Field{
		zap.String("queue_id", e.QueueID),
		zap.Strings("recipients", rcpts),
		zap.String("kind", string(e.Kind)),
		zap.String("status", e.Status),
		zap.String("reason", string(e.Reason)),
		zap.String("owner", string(e.Owner)),
		zap.String("rule", e.Rule),
		zap.String("failed_recipient", addr(e.FailedRecipient)),
		zap.String("verdict", string(e.Judgement.Verdict)),
		zap.String("evidence", string(e.Judgement.Evidence)),
		zap.String("action", string(e.Action)),
		zap.Float64("ms", float64(elapsed.Microseconds())/1000),
	}
	if e.Judgement.Err != nil {
		fields = append(fields, zap.NamedError("ledger_error", e.Judgement.Err))
	}
	if e.ParseErr != nil {
		fields = append(fields, zap.NamedError("parse_error", e.ParseErr))
	}
	if e.Truncated {
		fields = append(fields, zap.Bool("truncated", true))
	}
	return fields
}

// RuleLabel is Rule as a metric label: "none" when no rule decided. Rule
// ids come from the loaded rules files (a fixed set, validated at load), so
// the label's values are bounded.
func (e *Event) RuleLabel() string {
	if e.Rule == "" {
		return "none"
	}
	return e.Rule
}

// ReasonLabel is Reason as a metric label: "undefined" when empty, "other"
// when it is outside the vocabulary, so that no text can make new time
// series.
func (e *Event) ReasonLabel() string {
	switch {
	case e.Reason == "":
		return string(rules.ReasonUndefined)
	case !e.Reason.Valid():
		return "other"
	}
	return string(e.Reason)
}
