package decide

import (
	"fmt"
	"strconv"
	"strings"
)

// Action is what a front end does with a message at the end of its data.
// A site chooses one of ActionTag, ActionQuarantine, ActionReject and
// ActionDiscard for backscatter (Policy.BackscatterAction); every other
// message gets ActionNone.
type Action string

// Actions.
const (
	// ActionNone: no backscatter action; the message goes on with its
	// headers changed as the Outcome says. (Not the milter's "accept",
	// which would stop the filter from seeing the rest of the message.)
	ActionNone       Action = "none"
	ActionTag        Action = "tag"        // add the headers, deliver
	ActionQuarantine Action = "quarantine" // add the headers, hold the message in the MTA's quarantine
	ActionReject     Action = "reject"     // refuse at end of data with Outcome.Reply
	ActionDiscard    Action = "discard"    // accept and drop silently
)

// ParseAction returns the backscatter Action s names: tag, quarantine,
// reject or discard, in any case; "" is tag.
func ParseAction(s string) (Action, error) {
	switch a := Action(strings.ToLower(strings.TrimSpace(s))); a {
	case ActionTag, ActionQuarantine, ActionReject, ActionDiscard:
		return a, nil
	case "":
		return ActionTag, nil
	}
	return "", fmt.Errorf("backscatter action %q: expected tag, quarantine, reject or discard", s)
}

// Reply is an SMTP reply (RFC 5321 section 4.2) with its enhanced status
// code (RFC 3463).
type Reply struct {
	Code     int    // reply code, 550
	Enhanced string // enhanced status code, "5.7.1"
	Text     string // one line of ASCII text
}

// String is the reply as one line: "550 5.7.1 text".
func (r Reply) String() string {
	return strconv.Itoa(r.Code) + " " + r.Enhanced + " " + r.Text
}

// backscatterReply refuses backscatter: 5.7.1, delivery not authorized
// (RFC 3463 section 3.8), since the report is for mail we did not send.
var backscatterReply = Reply{Code: 550, Enhanced: "5.7.1",
	Text: "Rejected as backscatter: this is a bounce for a message that was not sent from here"}
