// Package dsn reads a message into a delivery report: what kind of message it is
// (bounce, delay, success, auto-reply, feedback report, read receipt or none of
// these), the recipients it reports on with their status codes and diagnostic
// text, and the headers of the original message it is about.
//
// It understands RFC 3464 and RFC 6533 reports and the free-text formats that
// real mail servers still send. It holds the bounce heuristics only: the
// message itself (header fields, MIME tree, decoding) is read by package
// message. It only reads: deciding what a status means and who must act on it
// is the job of package rules. Parse reads one message; ParseAll reads each
// message of an mbox.
//
// # Recipients
//
// A report names a recipient only where it says that recipient failed (or
// was delayed): the Final-Recipient of its delivery-status part, a forwarded
// or attached report's when the outer message has none, X-Failed-Recipients,
// or the recipient lines of its text ("<a@example.com>: host ... said",
// Exim's "The following address(es) failed:" list, Sendmail's transcript
// ">>> RCPT To:<a@example.com>" and its "550 5.1.1 <a@example.com>... User
// unknown" lines, qmail's "<a@example.com>:", a sentence such as "could not
// be delivered to a@example.com"), one record per address, each with its own
// text. It never takes an address from the notice's help text ("for
// example", "contact"), a Received "for" clause, the bounce's own To or
// From, the sender a refusal names ("not accepting mail from"), or the
// original's To when that is a list or several people. When no address can
// be named with confidence, the record's Address is "": a bounce to an
// unnamed recipient, rather than a wrong one (see Recipient.Address).
//
// # Kind
//
// The text decides, not one header. A report part's Action fields say
// failed, delayed or delivered; without them, the notice does: "I've given
// up", "retry timeout exceeded" or "in the queue too long" is a failure
// whatever its code; "will be retried", "has not yet been delivered", "THIS
// IS A WARNING ONLY" is a delay; otherwise a failure notice is a bounce, even
// when marked Auto-Submitted: auto-replied as Gmail's and Exim's are. A
// vacation text, a challenge of a challenge-response filter or a mailing
// list's notice that a post waits for its moderator is an auto-reply; RFC
// 5965 feedback reports, RFC 8098 receipts and read receipts sent as text
// (Lotus Notes' "Return Receipt", "Your message ... was read on") are never
// bounces. Whether a failure is permanent (the sending server gave up: an
// Action of failed, a 4.4.7 expiry included) is then rules.Classification's
// Permanent.
package dsn

import "github.com/ndrmilter/ndrmilter/smtpcode"

// Kind says what a message is, as far as delivery reporting goes.
type Kind string

// Kinds of message. A report's Kind is that of its most significant recipient
// record: failed before delayed before the others.
const (
	KindBounce    Kind = "bounce"     // a recipient failed: the sending server gave up (Action: failed, or the text says so)
	KindDelay     Kind = "delay"      // delivery is delayed, the sender's server keeps trying (Action: delayed, a warning)
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
	// "postfix", "qmail", "exchange2003". For logs and tests, and
	// FormatChallengeResponse and FormatListHeld, which change what the
	// notice means.
	Format string

	// ReportingMTA is the host that wrote the report (RFC 3464 Reporting-MTA,
	// or Exchange's "Generating server"), without the "dns;" type.
	ReportingMTA string

	// FeedbackType is the ARF Feedback-Type (RFC 5965 section 3.1), for KindFeedback.
	FeedbackType string

	// Disposition is what the recipient's side did with the message, for
	// KindReceipt (RFC 8098 section 3.2.6.2); "" when the receipt does not
	// say or says something else.
	Disposition Disposition

	// Recipients are the per-recipient records in the order the report gives them.
	Recipients []Recipient

	// Original holds what could be read of the message the report is about.
	Original Original

	// Addressee is the address the report itself was sent to (its To),
	// address only, "" when it names none: the sender of the original
	// message for most reports, but not always (a mailbox owner told
	// that their forwarding failed).
	Addressee string

	// Notice is the human-readable part of the report, decoded, up to
	// MaxNotice bytes: the first text/plain part of a report whose
	// original message comes in a part of its own (RFC 3462 section 1),
	// else the text up to where the copy of the original message starts.
	// It is set only for a report with recipients, and is read for the
	// facts a notice states in its prose and not in the diagnostic (how
	// long the server kept trying, the infected file), never to decide
	// the reason.
	Notice string

	// List is the address of the mailing list a list's notice about a
	// member's bounce comes from (FormatListBounceNotice): its X-BeenThere
	// field (Mailman's) else its List-Post (RFC 2369 section 3.4); "" for
	// other reports.
	List string

	// ListAction is what the list did about the member's bounce, as its
	// notice says (FormatListBounceNotice); "" when it does not say.
	ListAction ListAction

	// Truncated is set when a cap on size, depth or count cut the reading short.
	Truncated bool
}

// Recipient is one per-recipient record (RFC 3464 section 2.3).
type Recipient struct {
	// Address is the recipient the report names as failed (or delayed...):
	// its Final-Recipient, else its Original-Recipient, else the address
	// the text of a free-text report names, without the address type and
	// without a source route ("@relay:user@example.com" is
	// "user@example.com"), e.g. "user@example.com". It is "" when the
	// report names no recipient with confidence: an address from the
	// notice's help text, a Received "for" clause, the original message's
	// To (a list's own address for list mail) or the sender is never taken
	// for it. A local part alone ("User unknown: jsmith") is completed only
	// when the domain is certain: the returned message was addressed to
	// one address with that local part, or, without a returned message,
	// the report comes from a domain's own mail system (aol.com, not
	// mail.example.com).
	Address string

	// OriginalRecipient is the address of the Original-Recipient field
	// (RFC 3464 section 2.3.1), the recipient as the sender wrote it before
	// any forwarding or alias, without the address type; else the address
	// the text says the recipient was expanded from (Postfix's
	// "<a@example.net> (expanded from <b@example.org>)"); "" when the report
	// gives none.
	OriginalRecipient string

	// Aliases are the other addresses the report gives for this same
	// recipient, each once, none equal to Address or OriginalRecipient:
	// Sendmail's X-Actual-Recipient, or an expanded-from address of the
	// text when OriginalRecipient is taken. A report is about mail sent to
	// any of Address, OriginalRecipient and Aliases: match the mail sent on
	// all of them.
	Aliases []string

	// Action is RFC 3464's action: failed, delayed, delivered, relayed or
	// expanded. When a delivery report does not give a valid one, it is read
	// from what the notice says of the sending server (it gave up: failed;
	// it keeps trying: delayed), else from the status class (5: failed; 4:
	// failed in a failure notice, delayed in a warning). Empty for the
	// records of feedback reports.
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
	// explanation, unfolded into one line of text. A multi-line reply
	// ("550-5.1.1 The email account... 550 5.1.1 ...") is joined into one
	// reply, its code written once.
	Diagnostic string

	// Reply is the remote server's reply as the server wrote it: Diagnostic
	// from ReplyCode on, without the reporting MTA's words before it (Exim's
	// "host H [ip]: SMTP error from remote mail server after RCPT TO:<x>:",
	// qmail-remote's "H does not like recipient. Remote host said:",
	// Postfix's "host H[ip] said:", a translated "le serveur H a répondu :").
	// "" when the diagnostic holds no reply code: it is then the reporting
	// MTA's own text (qmail's "Sorry, I couldn't find any host named X"),
	// and no reply code is to be shown with it.
	Reply string

	// DiagnosticType is the type of the RFC 3464 Diagnostic-Code field
	// (section 2.3.6), in lower case: "smtp" when the diagnostic is a mail
	// server's reply, another type ("x-unix", "x-postfix", "x-local"...)
	// when the reporting MTA's own delivery program or agent wrote it
	// ("x-unix" too for the output of a pipe that Exim's bounce returns,
	// programoutput.go).
	// "" when the report gives no type (free-text reports).
	DiagnosticType string

	// RemoteMTA is the server that refused the message, if known.
	RemoteMTA string

	// WillRetryUntil is the Will-Retry-Until field of a delayed record (RFC
	// 3464 section 2.3.9: the date after which the reporting MTA stops
	// trying, an RFC 5322 date-time) as written, "" when the report gives
	// none.
	WillRetryUntil string

	// Command is the SMTP command the failure happened at (CONN for the
	// greeting, EHLO, HELO, STARTTLS, AUTH, MAIL, RCPT, DATA), "" when the
	// report does not show it. It is read from the report's words ("in
	// reply to RCPT TO command", "after RCPT TO", "does not like
	// recipient", "most progress was RCPT TO"), as whole words, or from its
	// transcript of the session (the last command before the error reply).
	// It is never guessed: a notice that only says "Unknown user" or "this
	// mailbox does not exist" has no Command, whatever stage is likely.
	Command string
}

// Diagnostic types of RFC 3464 section 2.3.6 that Parse names.
const (
	DiagnosticSMTP = "smtp" // a reply of a mail server (RFC 3464 section 9.2)
)

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
