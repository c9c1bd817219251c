// Package decide is ndrmilter's decision for inbound mail, shared by its
// front ends (the Postfix milter and the SMTP filter): from what the front
// end gathered of a message (envelope, the X-NDR-* fields that came with
// it, the kept text), what package dsn read of it, what package rules made
// of each recipient and what package backscatter judged, Inbound computes
// the Outcome: the header fields to delete, change and add, the new body if
// any, the action (none, tag, quarantine, reject with a reply, discard) and
// what the log line and the metrics say. It is a pure function: it does no
// I/O and keeps no state, so a front end is thin glue that gathers facts,
// calls Inbound and applies the Outcome.
//
// It also composes the header values, which is why it is one package with
// them: nothing else writes X-NDR-* fields.
//
// # Headers written on inbound reports
//
// Every X-NDR-* field that arrives on inbound mail is deleted first, report
// or not: these fields are trustworthy only when ndrmilter wrote them. Then,
// on a bounce or delay report (see Annotates):
//
//	X-NDR-Backscatter: yes|no|unknown; evidence=EVIDENCE
//	X-NDR-Owner: sender|sender-admin|recipient|recipient-admin|group-owner|none|unknown
//	X-NDR-Status: status=5.1.1; reason=userunknown; recipient=a@b.example;
//		permanent=yes; owner=sender; action=failed; status-source=server
//	X-NDR-Explanation: a@b.example: plain-English explanation. What to do.
//
// X-NDR-Status and X-NDR-Explanation appear once per reported recipient,
// failed recipients first, in the report's order, at most
// Policy.MaxRecipientHeaders of each; when there are more, one last
// X-NDR-Explanation says how many were left out. X-NDR-Owner appears exactly
// once: it is the owner of the first failed recipient (else the first delayed
// one, else the first one), because a permanent failure is what stops the
// message and the report lists recipients in the order the reporting server
// tried them.
//
// X-NDR-Status is modelled on Authentication-Results (RFC 8601): a list of
// key=value pairs separated by ";", each value a token or a quoted-string
// (RFC 5322 section 3.2.4). Keys: status (RFC 3463 code or "none"), reason
// (the reason vocabulary of package rules), recipient (address or ""),
// permanent (yes|no), owner (as X-NDR-Owner, for this recipient), action
// (failed, delayed... as the report says) and, when status is not "none",
// status-source: "server" when the report gave the code, "inferred" when
// ndrmilter did (Sisimai's pseudo-code of the reason, 5.0.9xx, or a code
// completed from the reply code alone). A Sieve rule can test it with
// header :contains "X-NDR-Status" "reason=userunknown".
//
// X-NDR-Backscatter is the backscatter.Judgement; its evidence values are
// described in package backscatter.
//
// Header values are ASCII: text from the report is stripped of control
// characters (CR/LF injection), cut to a bounded length, and RFC 2047
// encoded when it is not ASCII. Lines are folded at 78 octets where there is
// white space and never exceed 998 octets.
//
// # Backscatter actions
//
// A report judged backscatter is tagged (the headers above, delivered),
// quarantined (the headers, and held by the MTA), rejected (550 5.7.1 at the
// end of data, no headers) or discarded, as Policy.BackscatterAction says,
// within these bounds, which keep real mail from being lost:
//
//   - only a message that is a report by its envelope (null sender) as well
//     as by its content is held or refused; one from a MAILER-DAEMON or
//     postmaster address with an ordinary sender (a person may write from
//     it, quoting a bounce) is tagged at most (Facts.NullSender);
//   - it is refused (rejected or discarded) only when the judgement rests
//     on evidence that names the original and found it missing, its
//     Message-ID or a queue id of ours; one judged on (sender, recipient)
//     pairs alone is tagged or quarantined;
//   - one written inside to our own users is never refused (see
//     Facts.Inside).
//
// An automatic reply (an auto-reply, out-of-office notice, challenge or
// quarantine notice its header or null sender marks: Facts.AutoReply) gets
// X-NDR-Backscatter and one X-NDR-Status, "kind=autoreply; recipient=ADDR"
// (the address that replied), no explanation, and Policy.AutoReplyAction
// when judged backscatter: tagged, quarantined or, on evidence that names
// what it answers, discarded; never rejected (an automatic responder ignores
// a refusal).
//
// Policy.SubjectTag and Policy.BodySummary add a
// "[Bounce: summary]" Subject prefix and a plain-text summary at the top of
// the report's human-readable part.
package decide
