// Package dsn reads a message into a delivery report: what kind of message it is
// (bounce, delay, success, auto-reply, feedback report, read receipt or none of
// these), the recipients it reports on with their status codes and diagnostic
// text, and the headers of the original message it is about.
//
// It understands RFC 3464 and RFC 6533 reports and the free-text formats that
// real mail servers still send. It holds the bounce heuristics only: the
// message itself (header fields, MIME tree, decoding) is read by package
// message. It only reads: deciding what a status means and who must act on it
// is the job of package rules.
package dsn

import "github.com/ndrmilter/ndrmilter/smtpcode"

// Kind says what a message is, as far as delivery reporting goes.
type Kind string

// Kinds of message. A report's Kind is that of its most significant recipient
// record: failed before delayed before the others.
const (
	KindBounce    Kind = "bounce"     // a recipient failed permanently (Action: failed)
	KindDelay     Kind = "delay"      // delivery is delayed, the sender's server keeps trying
	KindDelivered Kind = "delivered"  // success report
	KindRelayed   Kind = "relayed"    // relayed to a system that does not report
	KindExpanded  Kind = "expanded"   // delivered to a list and expanded
	KindAutoreply Kind = "autoreply"  // RFC 3834 auto-reply, e.g. vacation
	KindFeedback  Kind = "feedback"   // RFC 5965 abuse/feedback report
	KindReceipt   Kind = "receipt"    // RFC 8098 message disposition notification
	KindNone      Kind = "not-bounce" // not a report at all
)

// Report is what a message says about the delivery of another message.
type Report struct {
	Kind Kind

	// Format names the family the report was recognised as, e.g. "rfc3464",
	// "postfix", "qmail", "exchange2003". For logs and tests.
	Format string

	// ReportingMTA is the host that wrote the report (RFC 3464 Reporting-MTA,
	// or Exchange's "Generating server"), without the "dns;" type.
	ReportingMTA string

	// FeedbackType is the ARF Feedback-Type (RFC 5965 section 3.1), for KindFeedback.
	FeedbackType string

	// Recipients are the per-recipient records in the order the report gives them.
	Recipients []Recipient

	// Original holds what could be read of the message the report is about.
	Original Original

	// Truncated is set when a cap on size, depth or count cut the reading short.
	Truncated bool
}

// Recipient is one per-recipient record (RFC 3464 section 2.3).
type Recipient struct {
	// Address is the recipient as the report names it (Final-Recipient, else
	// Original-Recipient), without the address type, e.g. "user@example.com".
	Address string

	// OriginalRecipient is the address of the Original-Recipient field
	// (RFC 3464 section 2.3.1), the recipient as the sender wrote it before
	// any forwarding or alias, without the address type; "" when the
	// report gives none.
	OriginalRecipient string

	// Action is RFC 3464's action: failed, delayed, delivered, relayed or
	// expanded. When a delivery report does not give a valid one, it is read
	// from the status class or, without one, from what the report as a whole
	// says. Empty for the records of feedback reports.
	Action smtpcode.Action

	// Status is the RFC 3463 enhanced status code, "5.1.1", or "" when none was
	// found. When the Status field is missing or generic (X.0.0) and the
	// diagnostic text carries a more precise code, that code is used; so is
	// the code right after the reply code of the remote server's reply
	// ("550 5.7.1 ...") when it differs from the Status field, which is the
	// reporting MTA's summary (Sendmail writes 4.4.7 over a 4.7.1 refusal).
	Status string

	// ReplyCode is the SMTP reply code, "550", or "".
	ReplyCode string

	// Diagnostic is the remote server's reply or the reporting server's
	// explanation, unfolded into one line of text.
	Diagnostic string

	// RemoteMTA is the server that refused the message, if known.
	RemoteMTA string

	// Command is the SMTP command the failure happened at (MAIL, RCPT, DATA...), if known.
	Command string
}

// Original is what the report shows of the message it is about.
type Original struct {
	MessageID string // without angle brackets
	From      string // address only
	To        string // address(es) as written
	Subject   string // decoded
	Date      string
	// Sender is the original envelope sender when the report gives it
	// (Return-Path of the original), address only.
	Sender string
	// Received holds the original message's Received header values, top first,
	// for backscatter evidence (our own queue id in them).
	Received []string
}
