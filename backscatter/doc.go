// Package backscatter judges whether a delivery report is backscatter: a
// bounce for a message that never left here, sent to us because someone
// forged one of our addresses as the sender. It weighs what the report shows
// of the original message against the ledger of the mail we sent (package
// ledger), and nothing else: what is done with a report so judged is the
// policy of package decide.
//
// A Judgement is a Verdict (yes, no, unknown) with the Evidence it rests on,
// strongest first:
//
//   - message-id: the original's Message-ID is, or is not, in the ledger;
//   - queue-id: a queue id in the original's Received lines (RFC 5321 section
//     4.4, the "id" clause) is, or is not, one we recorded;
//   - recipient-match: the original sender did, or did not, send to the
//     failed recipient within the ledger's retention.
//
// "yes" names the strongest reference that was looked up and not found; "no"
// names the reference that was found. "unknown" comes with evidence none (the
// report references nothing), ledger-error (a lookup failed: a ledger error
// never leads to "yes"), not-our-domain (neither the report's envelope
// recipients nor the original sender are ours) or no-ledger.
//
// Judging is the one step of reading a report that does I/O (the ledger
// lookups, bounded in number and by the context's deadline); it is kept
// apart from the pure decision so that both can be tested on their own.
package backscatter
