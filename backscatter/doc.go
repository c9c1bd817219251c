// Package backscatter judges whether a delivery report or an automatic
// reply is backscatter: a message about one that never left here, sent to
// us because someone forged one of our addresses as the sender. It weighs
// what the message shows of the original against the ledger of the mail we
// sent (package ledger) and, when the site turned them on, against evidence
// beyond it: addresses that never send, BATV tags (package batv) and DKIM
// signatures of ours. What is done with a message so judged is the policy
// of package decide.
//
// A Judgement is a Verdict (yes, no, unknown) with the Evidence it rests on,
// strongest first:
//
//   - batv: the envelope recipient carries a BATV tag, ours and valid (no)
//     or forged (yes); batv-expired: ours, past its day (yes);
//   - dkim: the quoted original's header carries a DKIM signature of one of
//     our keys that verifies (no);
//   - message-id: the original's Message-ID is, or is not, in the ledger;
//   - queue-id: a queue id in the original's Received lines (RFC 5321 section
//     4.4, the "id" clause) is, or is not, one we recorded;
//   - never-sends: the envelope recipient is an address that never sends,
//     listed by the site or learned from a ledger that covers the retention
//     period (yes);
//   - in-reply-to: the Message-IDs an automatic reply answers (In-Reply-To,
//     References, a quoted original) are, or are not, in the ledger; yes only
//     when every one is of our domains and the ledger covers the retention
//     period;
//   - recipient-match: the original sender did, or did not, send to the
//     failed recipient within the ledger's retention;
//   - batv-missing: a report without a tag to a sender whose mail has left
//     signed for longer than a tag lives (yes).
//
// "yes" names the strongest reference that was looked up and not found; "no"
// names the reference that was found, and a reference found always wins
// over one missed. "unknown" comes with evidence none (the message
// references nothing), ledger-error (a lookup failed: a ledger error never
// leads to "yes"), ledger-young (an automatic reply, and the ledger does not
// cover the retention period yet), not-our-domain (neither the envelope
// recipients nor the original sender are ours, or an automatic reply answers
// a Message-ID of another domain) or no-ledger.
//
// Judging is the one step of reading a report that does I/O (the ledger
// lookups, bounded in number and by the context's deadline); it is kept
// apart from the pure decision so that both can be tested on their own.
package backscatter
