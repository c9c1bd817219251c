package rules

import "github.com/ndrmilter/ndrmilter/dsn"

// forwarded rewrites the reading v of a record whose recipient the
// recipient's side forwarded: the sender wrote to orig, which was forwarded
// to final (dsn.Report.ForwardedFrom), and the failure is final's. The
// explanation opens by saying so. For a final failure that the forward
// target's refusal decides (its address, its mailbox, its judgement of the
// forwarding server), the sender cannot fix it by writing differently, nor
// should they stop writing to orig: the owner is the recipient's email
// admin, and the fix is to tell the recipient that their forwarding fails.
// A reason about the message itself (its size, content or format) keeps
// its owner and fix, which the sender can still act on; so do an owner on
// the recipient's side already (the recipient, the group's owner) and a
// delay (nobody yet).
func (e *Engine) forwarded(v *Classification, orig, final string, lang int) {
	t := e.textsFor(lang)
	vals := slotValues{slotOriginal: sanitize(orig), slotRecipient: sanitize(final)}
	intro := t[textForwardedIntro].render(&vals)
	if v.Explanation == "" {
		v.Explanation = intro
	} else {
		v.Explanation = intro + " " + v.Explanation
	}
	switch v.Reason {
	case ReasonMesgTooBig, ReasonExceedLimit, ReasonContentError, ReasonNotCompliantRFC, ReasonVirusDetected, ReasonSpamDetected:
		return
	}
	switch v.Owner {
	case OwnerSender, OwnerSenderAdmin, OwnerRecipientAdmin, OwnerUnknown:
		v.Owner = OwnerRecipientAdmin
		v.Fix = t[textForwardedFix].render(&vals)
	}
}

// forwardedRecord says whether the records of a report of kind k are
// failures that a forward can explain: bounces and delays.
func forwardedRecord(k dsn.Kind) bool {
	return k == dsn.KindBounce || k == dsn.KindDelay
}
