package rules

// Reason says why a message was not delivered (or that it was): the reason
// vocabulary of shared/corpus/reasons.md, the names Sisimai uses, so that
// users can carry their bounce-handling rules over. A rules file may only
// name these.
type Reason string

// The reasons, in the order of reasons.md.
const (
	ReasonUserUnknown     Reason = "userunknown"     // the address does not exist at the destination (X.1.1)
	ReasonHostUnknown     Reason = "hostunknown"     // the domain does not exist or has no mail server (X.1.2)
	ReasonHasMoved        Reason = "hasmoved"        // the mailbox has moved to another address (X.1.6)
	ReasonSuspend         Reason = "suspend"         // the mailbox exists but is disabled (X.2.1)
	ReasonMailboxFull     Reason = "mailboxfull"     // the recipient's mailbox is over quota
	ReasonExceedLimit     Reason = "exceedlimit"     // the message exceeds a per-mailbox size limit (X.2.3)
	ReasonMesgTooBig      Reason = "mesgtoobig"      // the message exceeds the receiving system's size limit (X.3.4)
	ReasonSystemFull      Reason = "systemfull"      // the receiving system is out of storage (X.3.1)
	ReasonSystemError     Reason = "systemerror"     // the receiving system failed internally
	ReasonMailerError     Reason = "mailererror"     // a local delivery program at the destination failed
	ReasonNotAccept       Reason = "notaccept"       // the destination accepts no mail at all (null MX)
	ReasonNetworkError    Reason = "networkerror"    // network, DNS or routing trouble, loops (X.4.x)
	ReasonExpired         Reason = "expired"         // the sender's server gave up retrying (X.4.7)
	ReasonTooManyConn     Reason = "toomanyconn"     // too many connections or recipients at once
	ReasonSpeeding        Reason = "speeding"        // the sender hit a rate limit
	ReasonNoRelaying      Reason = "norelaying"      // the receiving server refused to relay
	ReasonRejected        Reason = "rejected"        // the envelope sender (MAIL FROM) was refused
	ReasonBlocked         Reason = "blocked"         // the sending IP address or host is blocked or listed
	ReasonBadReputation   Reason = "badreputation"   // the sender's IP or domain has a poor reputation
	ReasonRequirePTR      Reason = "requireptr"      // the sending IP has no (matching) reverse DNS
	ReasonAuthFailure     Reason = "authfailure"     // the message failed SPF, DKIM or DMARC
	ReasonSecurityError   Reason = "securityerror"   // an SMTP security requirement was not met
	ReasonFailedSTARTTLS  Reason = "failedstarttls"  // TLS was required and could not be set up
	ReasonSpamDetected    Reason = "spamdetected"    // the content was judged to be spam
	ReasonVirusDetected   Reason = "virusdetected"   // the message carried malware
	ReasonPolicyViolation Reason = "policyviolation" // the message broke the receiver's policy
	ReasonContentError    Reason = "contenterror"    // the message's format or encoding was invalid (X.6.x)
	ReasonNotCompliantRFC Reason = "notcompliantrfc" // the message does not follow the RFCs
	ReasonSyntaxError     Reason = "syntaxerror"     // an SMTP command was malformed (X.5.x)
	ReasonFiltered        Reason = "filtered"        // a filter on the recipient's side refused it
	ReasonSuppressed      Reason = "suppressed"      // the sending service suppressed the address
	ReasonOnHold          Reason = "onhold"          // the delivery is on hold
	ReasonUndefined       Reason = "undefined"       // the cause could not be determined
	ReasonDelivered       Reason = "delivered"       // a success report
	ReasonVacation        Reason = "vacation"        // an auto-reply, not a bounce
	ReasonFeedback        Reason = "feedback"        // an abuse or feedback report, not a bounce
)

var reasons = [...]Reason{
	ReasonUserUnknown, ReasonHostUnknown, ReasonHasMoved, ReasonSuspend, ReasonMailboxFull,
	ReasonExceedLimit, ReasonMesgTooBig, ReasonSystemFull, ReasonSystemError, ReasonMailerError,
	ReasonNotAccept, ReasonNetworkError, ReasonExpired, ReasonTooManyConn, ReasonSpeeding,
	ReasonNoRelaying, ReasonRejected, ReasonBlocked, ReasonBadReputation, ReasonRequirePTR,
	ReasonAuthFailure, ReasonSecurityError, ReasonFailedSTARTTLS, ReasonSpamDetected,
	ReasonVirusDetected, ReasonPolicyViolation, ReasonContentError, ReasonNotCompliantRFC,
	ReasonSyntaxError, ReasonFiltered, ReasonSuppressed, ReasonOnHold, ReasonUndefined,
	ReasonDelivered, ReasonVacation, ReasonFeedback,
}

// Reasons returns the reason vocabulary, in the order of reasons.md. The
// slice is the caller's.
func Reasons() []Reason { return append([]Reason(nil), reasons[:]...) }

// Valid says whether r is in the vocabulary.
func (r Reason) Valid() bool {
	for _, x := range reasons {
		if r == x {
			return true
		}
	}
	return false
}

// Owner says who must act so that the message gets through.
type Owner string

// The owners.
const (
	OwnerSender         Owner = "sender"          // the person who sent the message
	OwnerSenderAdmin    Owner = "sender-admin"    // the sender's email admin
	OwnerRecipient      Owner = "recipient"       // the recipient in person: a full mailbox, their own block list
	OwnerRecipientAdmin Owner = "recipient-admin" // the recipient's email admin
	OwnerGroupOwner     Owner = "group-owner"     // the owner of the recipient group or list
	OwnerNone           Owner = "none"            // nobody: temporary, or not a failure
	OwnerUnknown        Owner = "unknown"         // it cannot be told
)

var owners = [...]Owner{OwnerSender, OwnerSenderAdmin, OwnerRecipient, OwnerRecipientAdmin, OwnerGroupOwner, OwnerNone, OwnerUnknown}

// Owners returns the owners, in the order of the Owner constants. The slice
// is the caller's.
func Owners() []Owner { return append([]Owner(nil), owners[:]...) }

// Valid says whether o is one of the Owner constants.
func (o Owner) Valid() bool {
	for _, x := range owners {
		if o == x {
			return true
		}
	}
	return false
}

// joined lists the names of a vocabulary for an error message.
func joined[T ~string](list []T) string {
	s := ""
	for i, x := range list {
		if i > 0 {
			s += ", "
		}
		s += string(x)
	}
	return s
}
