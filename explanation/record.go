package explanation

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Record is the reading of one recipient record of a report: one line of
// "explain --json", one element of the array POST /api/v1/explain answers.
// Other tools depend on these key names and meanings (issue "Bounce
// understanding"): add keys, never rename them.
type Record struct {
	File              string             `json:"file"`
	Message           int                `json:"message,omitempty"` // position in an mbox file, from 1
	Kind              string             `json:"kind"`
	Format            string             `json:"format"`
	Recipient         string             `json:"recipient"`
	OriginalRecipient string             `json:"original_recipient,omitempty"` // the address the sender wrote, when the report gives one other than Recipient
	ForwardedTo       string             `json:"forwarded_to,omitempty"`       // the address the recipient's side forwarded OriginalRecipient to, where delivery failed: Recipient, or for Sendmail the address its alias expanded to
	Action            smtpcode.Action    `json:"action"`
	Command           string             `json:"command,omitempty"`
	Status            string             `json:"status"`
	StatusSource      rules.StatusSource `json:"status_source"` // server, inferred, or "" without a status
	ReplyCode         string             `json:"reply_code"`
	Reason            rules.Reason       `json:"reason"`
	HardBounce        bool               `json:"hard_bounce"`
	Permanent         bool               `json:"permanent"`
	Owner             rules.Owner        `json:"owner"`
	Summary           string             `json:"summary"`
	Explanation       string             `json:"explanation"`
	Fix               string             `json:"fix"`
	RemoteMTA         string             `json:"remote_mta"`
	ReportingMTA      string             `json:"reporting_mta"`
	Diagnostic        string             `json:"diagnostic"`
	Reply             string             `json:"reply"` // the server's reply in Diagnostic, from its code on; "" when none is found
	OriginalMessageID string             `json:"original_message_id"`
	OriginalFrom      string             `json:"original_from"`
	OriginalTo        string             `json:"original_to"`
	OriginalSubject   string             `json:"original_subject"`
	Rule              string             `json:"rule"`          // the rule that decided, "" when none
	Matched           string             `json:"matched"`       // what decided in it: a phrase, a code...
	Facts             rules.Facts        `json:"facts"`         // what the server named: list, limit, host...
	Why               *Why               `json:"why,omitempty"` // with explain --why
}

// Why is the "why" of explain --json --why: every rule that matches, in the
// order they are tried, and where each fact came from.
type Why struct {
	Matches []WhyMatch `json:"matches"`
	Facts   []WhyFact  `json:"facts,omitempty"`
}

// WhyMatch is one rule that matches a record, and where it is written.
type WhyMatch struct {
	Rule    string       `json:"rule"`
	File    string       `json:"file"`
	Line    int          `json:"line"`
	Matched string       `json:"matched"`
	Reason  rules.Reason `json:"reason"`
	Decided bool         `json:"decided"` // the rule that decided
}

// WhyFact is one fact of a record and the rule or extractor that captured it.
type WhyFact struct {
	Fact  rules.Fact `json:"fact"`
	Value string     `json:"value"`
	From  string     `json:"from"`
	File  string     `json:"file"`
	Line  int        `json:"line"`
}

// NewRecord is the Record of one reading of report r; file names where the
// message came from ("-" for standard input, "" for an HTTP body).
func NewRecord(file string, r *dsn.Report, rd rules.Reading) Record {
	return Record{
		File:              file,
		Kind:              string(rd.Kind),
		Format:            r.Format,
		Recipient:         rd.Recipient.Address,
		OriginalRecipient: originalRecipient(rd),
		ForwardedTo:       rd.ForwardedTo,
		Action:            rd.Recipient.Action,
		Command:           rd.Recipient.Command,
		Status:            rd.Status,
		StatusSource:      rd.StatusSource,
		ReplyCode:         rd.ReplyCode,
		Reason:            rd.Reason,
		HardBounce:        rd.HardBounce,
		Permanent:         rd.Permanent,
		Owner:             rd.Owner,
		Summary:           rd.Summary,
		Explanation:       rd.Explanation,
		Fix:               rd.Fix,
		RemoteMTA:         rd.Recipient.RemoteMTA,
		ReportingMTA:      r.ReportingMTA,
		Diagnostic:        rd.Recipient.Diagnostic,
		Reply:             rd.Recipient.Reply,
		OriginalMessageID: r.Original.MessageID,
		OriginalFrom:      r.Original.From,
		OriginalTo:        r.Original.To,
		OriginalSubject:   r.Original.Subject,
		Rule:              rd.Rule,
		Matched:           rd.Matched,
		Facts:             rd.Facts,
	}
}

// originalRecipient is the address the sender wrote, as the report gives
// it (dsn.Recipient.OriginalRecipient), when it is another than the failed
// one: "" when it differs only by case.
func originalRecipient(rd rules.Reading) string {
	if rd.ForwardedFrom != "" {
		return rd.ForwardedFrom
	}
	if o := rd.Recipient.OriginalRecipient; !strings.EqualFold(o, rd.Recipient.Address) {
		return o
	}
	return ""
}

// Records is the Record of every reading of r, in order.
func Records(file string, r *dsn.Report, readings []rules.Reading) []Record {
	out := make([]Record, len(readings))
	for i, rd := range readings {
		out[i] = NewRecord(file, r, rd)
	}
	return out
}

// Failed reports whether the record is about a recipient that was not
// delivered (a bounce or a delay), that is one with an owner to act.
func (r Record) Failed() bool {
	switch dsn.Kind(r.Kind) {
	case dsn.KindBounce, dsn.KindDelay:
		return true
	}
	return false
}

// Judged is a Record with the backscatter verdict of its report: an element
// of the array POST /api/v1/explain answers. The verdict is the report's,
// the same in each of its records, and is left out for a message that is
// not a bounce or a delay report (the milter judges only those).
type Judged struct {
	Record
	Backscatter         backscatter.Verdict  `json:"backscatter,omitempty"`
	BackscatterEvidence backscatter.Evidence `json:"backscatter_evidence,omitempty"`
}

// SMTPResponse is what to show as the server's response: its reply as the
// parser found it in the diagnostic (dsn.Recipient.Reply), else the
// diagnostic as it stands. No reply code is put in front of text the
// server did not send: a wrapper of the reporting MTA ("SMTP error from
// remote mail server after RCPT TO") or a notice's translated words would
// then pass for the server's.
func SMTPResponse(reply, diagnostic string) string {
	if reply = strings.TrimSpace(reply); reply != "" {
		return reply
	}
	return strings.TrimSpace(diagnostic)
}

// StatusClass is how a status code reads to the user: what the server
// said of the message, which for an expiry is not what its code's class
// says.
type StatusClass string

// The classes of StatusClassOf.
const (
	StatusSuccess   StatusClass = "success"   // 2.x.x: the message went through
	StatusTemporary StatusClass = "temporary" // 4.x.x, still being tried
	StatusPermanent StatusClass = "permanent" // 5.x.x
	// StatusGaveUp is a 4.x.x of an expiry: the code is the last
	// temporary one, but the sending server has given up. "4.4.7
	// (permanent)" reads as a contradiction, "(temporary)" as if the
	// message were still being tried.
	StatusGaveUp StatusClass = "gaveup"
)

// StatusClassOf is the class of status, a code of a record that is
// permanent or not.
func StatusClassOf(status string, permanent bool) StatusClass {
	switch {
	case strings.HasPrefix(status, "2"):
		return StatusSuccess
	case permanent && strings.HasPrefix(status, "4"):
		return StatusGaveUp
	case permanent:
		return StatusPermanent
	}
	return StatusTemporary
}
