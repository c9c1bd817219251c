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
}

// Classification is the reading of one recipient record: why it failed,
// who must act, and the words for the person who got the bounce.
type Classification struct {
	Status      string // enhanced code, possibly refined from the text
	ReplyCode   string
	Reason      Reason
	Owner       Owner
	Permanent   bool   // class 5
	HardBounce  bool   // the address itself is bad; do not mail it again
	Summary     string // a few words, for a subject tag: "address does not exist"
	Explanation string // one or two sentences, ASCII
	Fix         string // what the person who got the bounce should do
	Rule        string // id of the rule that decided, for logs and debugging
}
