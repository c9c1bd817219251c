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
	Permanent    bool   // class 5
	HardBounce   bool   // the address itself is bad; do not mail it again
	Summary      string // a few words, for a subject tag: "address does not exist"
	Explanation  string // what happened: one or a few sentences, ASCII, no SMTP jargon
	Fix          string // what the person who got the bounce should do
	Rule         string // id of the rule that decided, "" when none did
	Matched      string // what decided in that rule: the phrase ("user unknown"), the code ("5.1.1")...
	Stage        Stage  // the SMTP stage of the failure, as far as the report says
	Facts        Facts  // what the server named: block list, limit, host, file...
}
