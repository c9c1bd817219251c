package rules

import (
	"net/mail"
	"strings"
)

// A delay (RFC 3464 section 2.3.3, Action: delayed) is read as temporary:
// nobody needs to act yet, the sending server keeps trying. Some causes of
// a delay do not go away with retries, though: they are a configuration of
// the recipient's side, and the sending server keeps failing until that
// configuration changes. Those keep the reading's owner, and their fix says
// that waiting will likely not help.

// lastingDelayConditions are the conditions (facts) of a delay that retries
// cannot fix:
//   - the receiving server's certificate fails verification: a sender that
//     enforces an MTA-STS policy "MUST NOT deliver the message" to a host
//     that fails it (RFC 8461 sections 5 and 6), and under DANE a TLSA
//     mismatch makes delivery to that host fail (RFC 7672 section 2.2); the
//     sender's retries meet the same certificate;
//   - the receiving server does not offer STARTTLS, or refuses to start it,
//     where the sender's policy (MTA-STS enforce, DANE, Postfix
//     smtp_tls_security_level encrypt and higher) requires TLS: the same
//     sections.
//
// FactTLSRequired is not one: there the receiving server requires TLS
// that the sending server did not start, the sender's own configuration,
// whose rule already names its admin.
var lastingDelayConditions = [...]Fact{FactTLSCert, FactTLSNotOffered, FactTLSRefused}

// lastingDelayReasons are the reasons of a delay that retries cannot fix: a
// refusal to relay, which Postfix's defer_unauth_destination and
// soft_bounce turn into a 4xx reply ("454 4.7.1 Relay access denied",
// postconf(5)), is the receiving server's configuration for the domain.
var lastingDelayReasons = [...]Reason{ReasonNoRelaying}

// delayLasting says whether, and why, a delay does not fix itself with
// the sending server's retries alone.
type delayLasting int

const (
	delayPasses      delayLasting = iota // retries may get it through: nobody needs to act yet
	delayConfigLasts                     // the recipient's side must change a configuration
	delayMailboxFull                     // the recipient must make room in the mailbox
)

// lastingDelay says whether a delay read as v does not fix itself: its
// cause is one of lastingDelayConditions or lastingDelayReasons, and its
// owner is the recipient's email admin (whose configuration it is, and
// whom the fix asks the sender to reach). A reason of lastingDelayReasons
// counts only when a remote server gave it (in): from the sender's own
// server, a relay refusal is not the recipient's side's. A full mailbox
// (RFC 3463 X.2.2, "mailbox full": the mailbox "has exceeded a per-mailbox
// administrative quota", and RFC 3463 calls it a persistent transient
// failure) gets through only once the recipient makes room: the retries
// wait for the recipient, who should be told.
func lastingDelay(v *Classification, in *Input) delayLasting {
	if v.Reason == ReasonMailboxFull && (v.Owner == OwnerRecipient || v.Owner == OwnerRecipientAdmin) && !ownServerRefusal(in) {
		return delayMailboxFull
	}
	if v.Owner != OwnerRecipientAdmin {
		return delayPasses
	}
	for _, r := range lastingDelayReasons {
		if v.Reason == r && !ownServerRefusal(in) {
			return delayConfigLasts
		}
	}
	for _, f := range lastingDelayConditions {
		if v.Facts.Get(f) != "" {
			return delayConfigLasts
		}
	}
	return delayPasses
}

// The deadline of a delay. A warning says when the sending server will give
// up, so that the reader knows how long the message may still arrive and
// when to act otherwise: the DSN's Will-Retry-Until field (RFC 3464
// section 2.3.9), or the notice's words (the retry-deadline extractor of
// rules.yaml). The delay fixes say it (delayed_fix, delayed_lasting_fix,
// internal_hop_delayed_fix).

// deadlineFacts are the facts that state a delay's deadline, in the order
// a reading prefers them: a date is the most precise, then how much longer
// the server keeps trying, then the age at which it gives up.
var deadlineFacts = [...]Fact{FactRetryUntil, FactRetryLeft, FactRetryAge}

// deadlineSlots are the slots of deadlineFacts.
var deadlineSlots = setOf(slotFact0+slot(slotIndexOf(FactRetryUntil)), slotFact0+slot(slotIndexOf(FactRetryLeft)),
	slotFact0+slot(slotIndexOf(FactRetryAge)))

// deadlineFactSet is deadlineFacts as a factSet.
var deadlineFactSet = factSet(1)<<slotIndexOf(FactRetryUntil) | factSet(1)<<slotIndexOf(FactRetryLeft) | factSet(1)<<slotIndexOf(FactRetryAge)

// oneDeadline keeps the first of deadlineFacts that fs has and clears the
// others: the texts say one deadline, not the same one twice in other
// words (Sendmail's warning gives both Will-Retry-Until and "Will keep
// trying until message is 5 days old").
func oneDeadline(fs *Facts) {
	found := false
	for _, f := range deadlineFacts {
		i := slotIndexOf(f)
		if found {
			fs.v[i] = ""
		} else if fs.v[i] != "" {
			found = true
		}
	}
}

// retryUntil writes a Will-Retry-Until date (RFC 5322 date-time, as RFC
// 3464 section 2.3.9 says) in UTC, in the same form in every language:
// "2024-06-24 06:44 UTC". It returns "" for a value that is no date.
func retryUntil(v string) string {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 100 {
		return ""
	}
	t, err := mail.ParseDate(v)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04") + " UTC"
}

// delayedExpiryText returns the explanation of a delay read as expired by a
// rule without words for delays. The expired reason's words say that the
// sending server gave up (RFC 3463 X.4.7), which a delay (RFC 3464 section
// 2.3.3, Action: delayed) contradicts: Sisimai's expired phrases include
// the words of warnings ("will keep trying", "has been delayed", Gmail's
// "did not accept our requests to connect"). The words say the cause so
// far instead, as the facts name it: a refused connection, no answer, DNS
// not answering, else the last reply.
func delayedExpiryText(fs *Facts) textKey {
	switch {
	case fs.Get(FactDNSTempFail) != "":
		return textDelayedDNS
	case fs.Get(FactConnRefused) != "":
		return textDelayedRefused
	case fs.Get(FactConnTimeout) != "":
		return textDelayedNoAnswer
	}
	return textDelayedUnreachable
}

// delayedConnection says whether the facts of a delay name a refused or
// unanswered connection (the texts delayed_refused and delayed_no_answer).
func delayedConnection(fs *Facts) bool {
	k := delayedExpiryText(fs)
	return k == textDelayedRefused || k == textDelayedNoAnswer
}

// Who acts on a delay that retries may still get through. The sending
// server keeps trying (RFC 3464 section 2.3.3; RFC 3463 section 3.1, a
// class-4 code is a "persistent transient failure"), so nobody needs to act
// yet; but when the cause says whose it is, that party must act if the
// delay persists, as for the same cause in a bounce:
//   - the receiving server puts off the sending server for its standing
//     (sendingSideDeferrals: a block list, a poor reputation, complaints,
//     its volume): the sender's admin (seed 001, 4.7.500-699 "Suspicious
//     activity has been detected on the IP in question, and it has been
//     temporarily restricted"; Yahoo's error codes page, TSS04 and TSS09
//     "temporarily deferred due to user complaints");
//   - the recipient's mail server refuses connections or does not answer
//     (RFC 3463 X.4.1 "No answer from host", X.4.2 "Bad connection"): the
//     recipient's admin, unless the server is the sender's own relay
//     (a host of the sender's domain), whose owner is then unknown: its
//     own admin, or a firewall on the way, the words cannot tell;
//   - anything else (greylisting, "try again later" without a cause, a
//     temporary local problem) passes by itself: nobody.

// sendingSideDeferrals are the reasons of a delay that are the sending
// server's standing at the receiver, when their reading names the
// sender's admin.
var sendingSideDeferrals = [...]Reason{ReasonBlocked, ReasonBadReputation, ReasonSpeeding, ReasonRequirePTR, ReasonAuthFailure, ReasonRejected}

// delayedOwner returns who must act if the delay read as v persists:
// OwnerSenderAdmin, OwnerRecipientAdmin, OwnerUnknown or OwnerNone (see
// above).
func delayedOwner(v *Classification, in *Input) Owner {
	if v.Owner == OwnerSenderAdmin {
		for _, r := range sendingSideDeferrals {
			if v.Reason == r {
				return OwnerSenderAdmin
			}
		}
	}
	if delayedConnection(&v.Facts) {
		host := hostName(v.Facts.Get(FactHost))
		if host == "" {
			host, _ = refusingServer(in)
		}
		_, rcptDomain, _ := strings.Cut(strings.ToLower(strings.TrimSpace(in.Recipient)), "@")
		if in.SenderDomain != "" && organisationHost(host, in.SenderDomain) && !organisationHost(host, rcptDomain) {
			return OwnerUnknown // the sender's own relay does not answer
		}
		return OwnerRecipientAdmin
	}
	return OwnerNone
}
