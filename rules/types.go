package rules

// Owners: who must act so that the message gets through.
const (
	OwnerSender         = "sender"
	OwnerSenderAdmin    = "sender-admin"
	OwnerRecipientAdmin = "recipient-admin"
	OwnerGroupOwner     = "group-owner"
	OwnerNone           = "none" // temporary: nothing to do but wait
	OwnerUnknown        = "unknown"
)

// Input is what is known about one failed, delayed or delivered recipient.
type Input struct {
	Action       string // failed, delayed, delivered... ("" when unknown)
	Status       string // enhanced status code or ""
	ReplyCode    string // SMTP reply code or ""
	Diagnostic   string // reply text or explanation
	RemoteMTA    string
	ReportingMTA string
	Command      string
	Recipient    string // the recipient's address, for the explanation ("" for a bare code)
}

// Verdict is the reading of one recipient record.
type Verdict struct {
	Status      string // enhanced code, possibly refined from the text
	ReplyCode   string
	Reason      string // vocabulary of reasons.md
	Owner       string
	Permanent   bool   // class 5
	HardBounce  bool   // the address itself is bad; do not mail it again
	Summary     string // a few words, for a subject tag: "address does not exist"
	Explanation string // one or two sentences, ASCII
	Fix         string // what the person who got the bounce should do
	Rule        string // id of the rule that decided, for logs and debugging
}
