// Package milter is ndrmilter's Postfix session: it records the mail that
// leaves the domain in a ledger, reads every inbound bounce in flight, adds
// X-NDR-* headers that explain it, and judges whether the bounce is
// backscatter (a bounce for a message that never left here), tagging,
// quarantining, rejecting or discarding it as configured.
//
// It speaks the milter protocol through github.com/emersion/go-milter and
// fails open: an internal error or panic lets the message through unchanged,
// logged and counted.
//
// # Outbound and inbound
//
// A message is outbound when the client authenticated (macro {auth_authen}),
// connected from a trusted network, or over a local socket. Outbound mail is
// recorded in the ledger and never changed. One exception: a bounce (null or
// MAILER-DAEMON/postmaster sender) from a trusted or local client whose
// recipients are all in our domains, such as Postfix's own bounces to local
// users, is read and explained like an inbound one. Everything else is
// inbound.
//
// # Headers written on inbound bounces
//
// Every X-NDR-* header that arrives on inbound mail is deleted first, bounce
// or not: these headers are trustworthy only when ndrmilter wrote them.
// Then, on a message that dsn.Parse reads as a bounce or delay report:
//
//	X-NDR-Backscatter: yes|no|unknown; evidence=EVIDENCE
//	X-NDR-Owner: sender|sender-admin|recipient-admin|group-owner|none|unknown
//	X-NDR-Status: status=5.1.1; reason=userunknown; recipient=a@b.example;
//		permanent=yes; owner=sender; action=failed
//	X-NDR-Explanation: a@b.example: plain-English explanation. What to do.
//
// X-NDR-Status and X-NDR-Explanation appear once per reported recipient,
// failed recipients first, in the report's order, at most
// Config.MaxRecipientHeaders of each; when there are more, one last
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
// permanent (yes|no), owner (as X-NDR-Owner, for this recipient) and action
// (failed, delayed... as the report says). A Sieve rule can test it with
// header :contains "X-NDR-Status" "reason=userunknown".
//
// Evidence in X-NDR-Backscatter, strongest first: message-id (the original
// Message-ID is, or is not, in the ledger), queue-id (a queue id in the
// original's Received lines is, or is not, one we recorded), recipient-match
// (the original sender did, or did not, send to the failed recipient within
// retention). "yes" names the strongest reference that was checked and not
// found; "no" names the reference that was found. "unknown" comes with
// evidence=none (the bounce references nothing), ledger-error (a lookup
// failed: never "yes" then), not-our-domain (neither the bounce's recipients
// nor the original sender are in the configured domains) or no-ledger.
//
// Header values are ASCII: text from the bounce is stripped of control
// characters (CR/LF injection), cut to a bounded length, and RFC 2047
// encoded when it is not ASCII. Lines are folded at 78 octets where there is
// white space and never exceed 998 octets.
package milter
