package smtpcode

import "strings"

// Action is what a reporting server did with a recipient: the Action field
// of an RFC 3464 recipient record (section 2.3.3), in lower case. The empty
// Action is unknown.
type Action string

// The actions of RFC 3464 section 2.3.3.
const (
	ActionFailed    Action = "failed"    // could not be delivered; no further attempts
	ActionDelayed   Action = "delayed"   // not delivered yet; the reporting server keeps trying
	ActionDelivered Action = "delivered" // delivered to the recipient's mailbox
	ActionRelayed   Action = "relayed"   // handed to a system that does not report
	ActionExpanded  Action = "expanded"  // delivered to a list or alias and expanded
)

// actions lists every Action, in the order of RFC 3464 section 2.3.3's
// grammar after failed, delayed.
var actions = [...]Action{ActionFailed, ActionDelayed, ActionDelivered, ActionRelayed, ActionExpanded}

// ParseAction reads an action-value, ignoring ASCII case ("Failed" is
// ActionFailed). Anything else is the empty Action, unknown: a report's
// Action field is often missing or misspelt, and the reader then goes by the
// status instead.
func ParseAction(s string) Action {
	for _, a := range actions {
		if strings.EqualFold(s, string(a)) {
			return a
		}
	}
	return ""
}

// Valid says whether a is one of the actions of RFC 3464.
func (a Action) Valid() bool {
	for _, b := range actions {
		if a == b {
			return true
		}
	}
	return false
}

// Success says whether a reports a message that went through: delivered,
// relayed or expanded.
func (a Action) Success() bool {
	return a == ActionDelivered || a == ActionRelayed || a == ActionExpanded
}
