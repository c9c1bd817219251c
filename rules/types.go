package rules

import "github.com/ndrmilter/ndrmilter/smtpcode"

// Input is what is known about one failed, delayed or delivered recipient.
type Input struct {
	Action       smtpcode.Action // "" when unknown
	Status       string          // enhanced status code or ""
	ReplyCode    string          // SMTP reply code or ""
	Diagnostic   string          // reply text or explanation
	RemoteMTA    string
	ReportingMTA string
	Command      string
	Recipient    string // the recipient's address, for the explanation ("" for a bare code)
	// DiagnosticType is the type of the report's Diagnostic-Code (RFC 3464
	// section 2.3.6), lower case: "smtp", "x-unix"...; "" when none.
	DiagnosticType string
	// Notice is the human-readable part of the report (dsn.Report.Notice),
	// or "". Only the facts are read from it (see noticeFacts), when the
	// diagnostic does not state them; the reason is never decided by it.
	Notice string
	// RetryUntil is the record's Will-Retry-Until date (RFC 3464 section
	// 2.3.9, dsn.Recipient.WillRetryUntil), or "": read only for a delay,
	// as the retry_until fact.
	RetryUntil string
	// SenderDomain is the domain of the original message's sender, lower
	// case, or "": its envelope sender (Return-Path of the returned
	// copy), else its From, else the address the report was sent to
	// (dsn.Report.Addressee). Read only to tell whether the server that
	// refused the message is the sender's own (relayside.go).
	SenderDomain string

	lookup bool // made by Lookup: the command is assumed, not reported
}

// Classification is the reading of one recipient record: why it failed,
// who must act, and the words for the person who got the bounce.
type Classification struct {
	Status       string       // enhanced code, possibly refined from the text
	StatusSource StatusSource // whether the server gave Status or ndrmilter inferred it
	ReplyCode    string
	Reason       Reason
	Owner        Owner
	// Permanent says that this message will not be delivered to this
	// recipient: the report's Action is failed, or its text says the
	// sending server gave up (an expiry, 4.4.7, is permanent; so are
	// Exim's "retry timeout exceeded" and qmail's "I'm not going to try
	// again", which package dsn reads as failed). False while the
	// sender's server is still retrying (Action delayed, a warning) and
	// for anything that is no failure. A bare code without a report
	// ("ndrmilter code 550 5.1.1") is permanent when its class is 5.
	Permanent bool
	// HardBounce says that the address itself is bad for good, so mail
	// to it should stop: the reason is one whose hard_bounce is true in
	// the rules (userunknown, hostunknown, hasmoved, notaccept...) and
	// the failure is not a temporary one (no class-4 code, not delayed).
	// A full mailbox or a spam block is permanent for this message, never
	// a hard bounce.
	HardBounce  bool
	Summary     string // a few words, for a subject tag: "address does not exist"
	Explanation string // what happened: one or a few sentences, ASCII, no SMTP jargon
	Fix         string // what the person who got the bounce should do
	Rule        string // id of the rule that decided, "" when none did
	Matched     string // what decided in that rule: the phrase ("user unknown"), the code ("5.1.1")...
	Stage       Stage  // the SMTP stage of the failure, as far as the report says
	Facts       Facts  // what the server named: block list, limit, host, file...
}
