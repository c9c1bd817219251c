package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// One meaning for Classification.Permanent and HardBounce, whatever the
// format of the report (issue 8 item 3).

// permanent says whether a record is a final failure (see
// Classification.Permanent): its Action says failed, whatever the class of
// its code, since the sending server has given up (a 4.4.7 expiry, a
// temporary refusal retried until the queue lifetime ran out); it is not
// when the Action is delayed (still retrying) or a success. Without an
// Action (a bare code, "ndrmilter code 550"), the class of the code
// decides: 5 is permanent, 4 is not.
func permanent(action smtpcode.Action, status string, reply smtpcode.Reply) bool {
	switch {
	case action == smtpcode.ActionFailed:
		return true
	case action != "":
		return false
	case status != "":
		return strings.HasPrefix(status, "5")
	}
	return reply.Class() == smtpcode.ClassPermanent
}

// hardBounce says whether a record whose reason marks the address itself
// as bad (userunknown, hostunknown, hasmoved, notaccept...: the reason's or
// the rule's hard_bounce) is a hard bounce (see
// Classification.HardBounce): not while the sender's server is still
// retrying, and not when the server's own code is of class 4, a refusal it
// said was temporary (a directory lookup that failed, a greylisted
// recipient), even when the sending server then gave up on it.
func hardBounce(action smtpcode.Action, status string, reply smtpcode.Reply) bool {
	switch {
	case action == smtpcode.ActionDelayed:
		return false
	case status != "":
		return !strings.HasPrefix(status, "4")
	}
	return reply.Class() != smtpcode.ClassTransient
}
