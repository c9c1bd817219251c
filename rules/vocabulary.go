package rules

// Reasons is the reason vocabulary (shared/corpus/reasons.md: the names that
// Sisimai uses, so that users can carry their bounce-handling rules over).
// A rules file may only name these.
var Reasons = []string{
	"userunknown", "hostunknown", "hasmoved", "suspend", "mailboxfull",
	"exceedlimit", "mesgtoobig", "systemfull", "systemerror", "mailererror",
	"notaccept", "networkerror", "expired", "toomanyconn", "speeding",
	"norelaying", "rejected", "blocked", "badreputation", "requireptr",
	"authfailure", "securityerror", "failedstarttls", "spamdetected",
	"virusdetected", "policyviolation", "contenterror", "notcompliantrfc",
	"syntaxerror", "filtered", "suppressed", "onhold", "undefined",
	"delivered", "vacation", "feedback",
}

// Owners lists the valid owners, in the order of the Owner* constants.
var Owners = []string{OwnerSender, OwnerSenderAdmin, OwnerRecipientAdmin, OwnerGroupOwner, OwnerNone, OwnerUnknown}

func isReason(s string) bool {
	for _, r := range Reasons {
		if r == s {
			return true
		}
	}
	return false
}

func isOwner(s string) bool {
	for _, o := range Owners {
		if o == s {
			return true
		}
	}
	return false
}
