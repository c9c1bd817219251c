package rules

import "github.com/ndrmilter/ndrmilter/dsn"

// forwarded rewrites the reading v of a record whose recipient the
// recipient's side forwarded: the sender wrote to orig, which was forwarded
// to final (dsn.Report.ForwardedFrom), and the failure is final's; remote
// and diag are the record's Remote-MTA and diagnostic. The explanation opens by saying so. For a final
// failure that the forward target's refusal decides (its address, its
// mailbox, its judgement of the forwarding server), the sender cannot fix it
// by writing differently, nor should they stop writing to orig: the owner
// is the recipient's email admin, and the fix is to tell the recipient that
// their forwarding fails. A refusal of the sending server itself (see
// forwarderRefusal) is said to be one of the forwarded copy. A reason about
// the message itself (its size, malware, attachment type or format) keeps
// its owner and fix, which the sender can still act on; so do an owner on
// the recipient's side already (the recipient, the group's owner) and a
// delay (nobody yet).
func (e *Engine) forwarded(v *Classification, orig, final, remote, diag string, lang int) {
	t := e.textsFor(lang)
	vals := slotValues{slotOriginal: sanitize(orig), slotRecipient: sanitize(final)}
	if messageRefusal(v) {
		e.forwardIntro(v, t, &vals)
		return
	}
	if senderSideOwner(v.Owner) && forwarderRefusal(v) {
		// The forward target judged the forwarding server, not the
		// sender: say so, whatever the rule's words were.
		vals[slotRemote] = sanitize(namedRemote(remote))
		vals[slotReply] = quoteReply(diag)
		vals[slotFact0+slot(slotIndexOf(FactIP))] = v.Facts.Get(FactIP)
		v.Explanation = t[textForwardedRefused].render(&vals)
		v.Owner = OwnerRecipientAdmin
		v.Fix = t[textForwardedRefusedFix].render(&vals)
		return
	}
	e.forwardIntro(v, t, &vals)
	// A disabled forward target (suspend, owned by the recipient in person
	// since the outside gradings of issue 8) is the forwarding's failure
	// too: the fix to stop writing to the address would be wrong for the
	// address the sender wrote.
	if senderSideOwner(v.Owner) || v.Reason == ReasonSuspend {
		v.Owner = OwnerRecipientAdmin
		v.Fix = t[textForwardedFix].render(&vals)
	}
}

// senderSideOwner says whether a forward moves owner o to the recipient's
// email admin: the sender's side, the recipient's admin already, or
// unknown. The recipient in person, a group's owner and nobody (a delay)
// stay.
func senderSideOwner(o Owner) bool {
	switch o {
	case OwnerSender, OwnerSenderAdmin, OwnerRecipientAdmin, OwnerUnknown:
		return true
	}
	return false
}

// forwardIntro puts the sentence saying where the message was forwarded
// before the explanation of v.
func (e *Engine) forwardIntro(v *Classification, t *[numTexts]text, vals *slotValues) {
	intro := t[textForwardedIntro].render(vals)
	if v.Explanation == "" {
		v.Explanation = intro
	} else {
		v.Explanation = intro + " " + v.Explanation
	}
}

// messageReasons are the reasons about the message itself (its size,
// malware, format), which a forward does not change: the sender can still
// act on them.
var messageReasons = [...]Reason{ReasonMesgTooBig, ReasonExceedLimit, ReasonContentError, ReasonNotCompliantRFC, ReasonVirusDetected}

// messageRefusal says whether v is a refusal of the message itself: a
// reason of messageReasons, or a refused attachment type.
func messageRefusal(v *Classification) bool {
	for _, r := range messageReasons {
		if v.Reason == r {
			return true
		}
	}
	return v.Facts.Get(FactBlockedAttachment) != ""
}

// forwarderReasons are the reasons that judge the server that sent the
// message, its address or its authentication, not what the message says.
// A forward re-sends the message from the forwarding server's address with
// the original sender's domain: SPF fails at the target unless the
// forwarder rewrites the envelope sender (RFC 7208 section 1.2.2 and
// appendix D, SRS), DMARC alignment fails with it when a forwarder changes
// the message (RFC 7960 sections 3.2.1 and 3.2.3), and the target judges the
// forwarding server's reputation and the spam it forwards (Google's
// "Email sender guidelines", section on forwarding: ARC, SRS; Microsoft's
// "Sender Rewriting Scheme (SRS) in Office 365"). A spam judgement of the
// forwarded copy is among them: the target sees the forwarder's IP and a
// broken authentication, which is what spam filters weigh first.
var forwarderReasons = [...]Reason{ReasonBlocked, ReasonBadReputation, ReasonRequirePTR, ReasonAuthFailure,
	ReasonSpamDetected, ReasonRejected}

// forwarderRefusal says whether v is the forward target's refusal of the
// forwarding server or of the envelope sender it used: a reason of
// forwarderReasons, or any refusal at the connection or at MAIL FROM,
// before the target saw the message (RFC 5321 section 3.3), or a policy
// refusal that names the sending IP address.
func forwarderRefusal(v *Classification) bool {
	for _, r := range forwarderReasons {
		if v.Reason == r {
			return true
		}
	}
	switch {
	case v.Stage == StageConnection || v.Stage == StageSender:
		return true
	case v.Reason == ReasonPolicyViolation && v.Facts.Get(FactIP) != "":
		return true
	}
	return false
}

// forwardedRecord says whether the records of a report of kind k are
// failures that a forward can explain: bounces and delays.
func forwardedRecord(k dsn.Kind) bool {
	return k == dsn.KindBounce || k == dsn.KindDelay
}

// forwardedByRoute says whether v is a refusal that the route alone
// (dsn.Report.RelayedFrom: a report from the server of the domain the
// sender wrote to, about an address in another domain) shows to be the
// forward target's: a failed authentication check (SPF, DMARC) of the
// sender's domain. RFC 7208 section 10.1.3 (and appendix D): a forwarder
// that re-sends mail without rewriting the envelope sender (SRS) sends it
// from an IP address the sender's SPF record does not list, and SPF fails
// at the target; adding "the sending server" to the sender's SPF record,
// the fix for a sender's own unlisted server, is wrong there, since the
// sending server is the forwarder's. Other refusals keep their reading:
// the route is a guess, weaker than a named Original-Recipient.
func forwardedByRoute(v *Classification) bool {
	return v.Reason == ReasonAuthFailure && senderSideOwner(v.Owner)
}
