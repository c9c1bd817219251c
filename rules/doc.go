// Package rules holds ndrmilter's knowledge of bounces: what enhanced status
// codes and reply texts mean, the reason they map to (a Reason), who must fix
// the problem (an Owner), and the plain-English explanation and fix. The
// knowledge is data: a rules file (rules.yaml), validated and compiled into
// the binary at build time (go generate ./rules writes builtin_gen.go), that
// a user can extend or override with files of their own, read and validated
// at load, first match wins, local rules first. Codes are read with package smtpcode, as package
// dsn reads them, so that a reply means the same in a bounce and in
// Engine.Lookup.
//
// # Rules files
//
// A rules file is YAML with four optional keys. "texts" gives, by name, the
// fixed sentences the engine writes itself: the opening of a delay, the fix
// of a delay, the readings of messages that are not bounces, and the older
// sentences for rules that give a cause instead of an explanation
// ("The message[ to {recipient}] was refused by {remote} because {cause}.").
// Placeholders are written {name}; a part in [square brackets] is shown only
// when all its placeholders have values. The names, and the placeholders
// each may use, are listed in texts.go; Load rejects unknown names and
// placeholders, and the files together (the built-in one gives them all)
// must give every text, the first file that gives one winning, so that a
// local file can reword or translate some of them.
//
// "reasons" sets, per reason of the vocabulary (Reasons), the defaults a rule
// does not give: owner, hard_bounce, code (the status detail filled in when a
// record has no enhanced code, "911" giving 5.0.911; such a status is marked
// StatusInferred), summary, explanation and fix. A reason given by several
// files takes each field from the first file that gives it.
//
// "extractors" capture facts (Fact: the block list, a page, a size limit, the
// host, the sending IP, a file, a virus, a contact address, and conditions
// such as a mail loop or a refused connection) from the reply of every
// record, with the named groups of their regexps; "text" phrases are a quick
// test tried first, "unless" phrases stop the extractor (a wording that
// says the opposite: "Host not found, try again" is no NXDOMAIN), and
// "unit: bytes" writes a bare number captured as {limit} in MB:
//
//	extractors:
//	  - id: blocklist-used
//	    text: [blocked using]
//	    regexp: ['blocked using (?P<list>[a-z0-9.-]+)']
//
// "rules" is a list; the first rule whose every condition holds decides:
//
//	rules:
//	  - id: our-gateway-parks-accounts      # unique in the file, shown in logs and metrics
//	    when:                               # all keys must hold; any item of a key
//	      status: [5.1.1, "5.7.606-649", "5.1.*", "*.2.2", none]
//	      reply: [550, 55x, 5xx, none]      # SMTP reply code
//	      text: [account parked]            # any phrase (case-insensitive)
//	      all: [quota, submission]          # every phrase
//	      unless: [mailbox full]            # no phrase
//	      regexp: ['parked until (?P<limit>[a-z]+)']  # RE2, case-insensitive, tried last;
//	                                        # named groups capture facts
//	      mta: [gw.example.org]             # remote or reporting MTA contains
//	      action: [failed, delayed]         # RFC 3464 Action
//	      command: [RCPT, DATA, none]       # SMTP command of the failure
//	      diagnostic_type: [x-unix, none]   # RFC 3464 Diagnostic-Code type
//	    then:
//	      reason: suspend                   # vocabulary of reasons.md
//	      owner: recipient-admin            # sender, sender-admin, recipient,
//	                                        # recipient-admin, group-owner, none,
//	                                        # unknown
//	      hard_bounce: false
//	      status: 5.2.1                     # filled in when the record has none
//	      summary: account parked
//	      explanation:                      # the first sentence whose placeholders have values
//	        - "The mailbox[ of {recipient}] is parked until {limit}."
//	        - "The mailbox[ of {recipient}] is parked."
//	      fix: Write again after the person is back.
//	      stages:                           # other words at an SMTP stage: connection,
//	        connection: {owner: sender-admin, explanation: ..., fix: ...}  # sender, recipient, content, unknown
//	      facts:                            # other words when a fact was captured
//	        loop: {summary: mail loop, explanation: ..., fix: ...}
//
// Explanations and fixes are whole sentences with named placeholders
// ({recipient}, {remote}, {reporting}, {domain}, {reply}: the server's reply
// shortened when it can be read; and every fact, {list}, {limit}...), never a
// sentence glued from fragments, so that they translate; {?name} tests that
// a value is there without showing it. The last sentence of a list may need
// no fact, {reply} or {domain}: it is what is shown when the server named
// nothing more (Load checks it). The words of a reading are taken, field by
// field, from the rule at the record's stage, the rule for a captured fact,
// the rule, then the reason in the same order. An older rule's "cause"
// (a clause completing "... because <cause>.") is still read.
//
// Facts come from the diagnostic: the deciding rule's regexp groups, then the
// extractors. When the diagnostic lacks a value fact that a notice states in
// its prose ({retried_for}, {file}, {virus}, {limit}, {last_error}) and the reading's words
// can show it, the extractors also read Input.Notice (the report's
// human-readable part) for it. The notice never decides the reason.
//
// Phrases are compared after lower-casing and folding runs of white space, so
// "Mailbox  Full" matches "mailbox full". Every phrase of every rule goes into
// one automaton (phraseSet), so Classify reads the diagnostic text once
// whatever the number of rules; a record in whose text no phrase occurs is
// tried only against the rules that require none (textFreeIndex). Load rejects unknown keys, reasons outside the
// vocabulary, unknown owners, stages and facts, malformed codes, ranges and
// reply codes, bad regular expressions, regexp groups that are not facts, ids
// that are not short words, and unknown template placeholders, naming the
// file, the line and the rule. Texts must be plain printable ASCII, as rule
// texts are: they become header fields (X-NDR-Explanation).
//
// Engine.Trace lists every rule that matches a record, in precedence order,
// with its file and line (ndrmilter explain --why), and where each fact came
// from.
//
// example-local.yaml in this directory is a small, tested example.
//
// # Precedence
//
// The first rule that matches decides, so the order of the built-in rules is
// their precedence. rules.yaml follows these principles, in this order, and
// precedence_test.go tests each conflict they settle ("A and B both match:
// C wins"). Local rules (the files given to Load) come before all of them, so
// an admin overrides any reading with a rule of the same conditions.
//
//  1. What the record is. A success (Action delivered, relayed or expanded;
//     a 2.X.X code) is never read as a failure, whatever its words.
//  2. Vendor tables beat generic text. The codes and phrases that one
//     receiving host or one MTA documents (Sisimai's rhost and lhost tables,
//     the local delivery agents) mean there what the vendor says, whatever
//     the generic reading of the same words: at KDDI "550 : User unknown" is
//     the recipient's filter, at QQ "mailbox unavailable or access denied"
//     is a receiving limit, an MTA's own "mailbox unavailable (not enough
//     free space)" is a full system. A vendor's phrase is read only at its
//     hosts (the remote or reporting MTA names the host); a code that names
//     its vendor (Orange's LPN007_416, Cox's CXBL, Facebook's RCP-P1) at any
//     host. An MTA message too general to name its MTA is left to the
//     families below.
//  3. Words that change the meaning of a code beat the code: 5.2.2
//     "submission quota exceeded" is the sender's quota, not a full mailbox;
//     5.7.1 "unable to relay", "client was not authenticated" and "delivery
//     not authorized" are three causes; 5.4.1 with words of an unanswered
//     connection is RFC 3463's "no answer from host", not Microsoft's relay
//     refusal; 5.1.10 with "null MX" is RFC 7505's.
//  4. A precise code with one meaning (Microsoft's seed tables: 5.7.509,
//     5.7.606-649...) beats the phrases of the reason families; so does
//     5.7.900-999, the range of an organisation's own Exchange transport
//     rules, whatever words the organisation's text holds.
//  5. A specific phrase beats a weak code, and reasons are tried in Sisimai's
//     order. The reasons that a phrase or a precise code decides come first,
//     in the order Sisimai's first pass tries them (mailboxfull, mesgtoobig,
//     exceedlimit, suspend, hasmoved, norelaying, authfailure, userunknown,
//     filtered, requireptr, notcompliantrfc, badreputation, contenterror,
//     rejected, hostunknown, spamdetected, speeding, toomanyconn, blocked): a
//     phrase or a precise code of an earlier reason beats those of a later
//     one (5.1.1 with "mailbox full" is mailboxfull; 5.2.2 with "user
//     unknown" too). A code that means a missing address (5.1.0, 5.1.1,
//     5.1.3) yields to the words of blocked, rejected and notaccept, as
//     Sisimai's notes say (not to a wrapper that names no cause, see 8);
//     a user-unknown answer at MAIL FROM, and Microsoft's "mailbox
//     unavailable" at any stage, yield to blocked's words too. Then the reasons only phrases decide, in Sisimai's
//     second-pass order (virusdetected, policyviolation, systemerror,
//     networkerror, systemfull, notaccept, expired, failedstarttls,
//     securityerror, mailererror). Weak codes are read only after all of
//     these: the class alone (X.0.0), the "other" codes (X.n.0), the routing
//     codes (X.4.x, 4.4.7 included: often the reporting server's summary of a
//     refusal its words name), the media codes (X.6.x), X.7.1 and the
//     temporary 4.2.1, 4.7.1 and 4.7.2. A phrase decides whatever the class
//     of the answer: "451 4.7.1 ... Domain not found" is hostunknown, read
//     as temporary (no hard bounce, see permanent.go), not a block of the
//     sending host.
//  6. The more specific phrase beats the general one. A phrase that contains
//     a more general phrase of an earlier reason is placed right before that
//     general phrase (the rules named *-specific): "requested mail action
//     aborted: exceeded storage allocation" is systemfull though it contains
//     mailboxfull's "exceeded storage allocation"; "host not found, try
//     again" is a DNS failure though it contains "host not found"; a
//     list's refusal of a non-member ("only subscribers may post", "not
//     from a list member") beats the moderator and "not authorized to
//     send" words of a delivery not authorized, and the general posting
//     restriction of a list. It does
//     not beat the codes of the earlier reason (with 5.2.2 the first is
//     mailboxfull). A phrase that Sisimai lists under two reasons goes to the
//     reason tried first, unless its rule's comment says otherwise. A
//     phrase an MTA writes for a transport error, not a server's answer,
//     keeps Sisimai's reason but not its words: Sendmail's "Deferred:
//     Connection refused by HOST" (a refused TCP connection, sendmail/err.c)
//     beats blocked's "connection refused by", is still blocked, and says
//     that the server refused the connection, its admin's to check.
//  7. Precise registry codes (X.1.1 .. X.7.30, IANA's SMTP Enhanced Status
//     Codes) decide when no phrase did: 5.1.6 with "no such user" at RCPT is
//     userunknown, 5.1.6 alone hasmoved.
//  8. Catch-alls come last, after every specific phrase and precise code but
//     before the weak codes: the SMTP stage alone (a failure at the
//     connection or greeting is a refusal of the sending host; a
//     user-unknown answer after DATA, or at no known stage, comes from a
//     filter) and the very general words of each family ("ip address",
//     "violation", "timed out", "reputation", "spf record").
//  9. Last, the weak codes, defaults by subject, a Diagnostic-Code of type
//     X-Unix (a delivery program's error: mailererror when no phrase and no
//     code of Sisimai's table decided, as Sisimai does after its code table;
//     so 4.3.0, left out of that table, yields to it and 5.3.0 does not),
//     the MTAs' onhold readings,
//     reply codes alone (RFC 5321, RFC 7504), auto-reply words, and text
//     that cannot be read at all.
//
// Within filtered, the words depend on what the server said (rules.yaml
// section 5i-a; Sisimai reasons.filtered lists both kinds): a wording that
// states the mailbox is missing ("user not found", "not found recipient
// account", "bounced address", or a userunknown phrase with a filtered code
// or after DATA) reads as a missing mailbox, the sender's to check; but when
// the reply also holds a refusal of the family ("blocked by the recipient",
// "user refuses to receive this mail", "only accepting mail from", "message
// filtered"...), the refusal wins and the filter's words stay; "due to
// extended inactivity" is a mailbox closed for disuse, the recipient's to
// reopen, whatever other words come with it. The reason is filtered in all
// three (filtered_missing_test.go).
//
// The stage also says whose address a reply is about: an answer to MAIL FROM
// concerns the sender (RFC 5321 section 3.3), so a user-unknown answer there
// is a refusal of the sender (rejected) whatever the code; at RCPT TO a
// user-unknown phrase is a missing address.
//
// An attachment refused for what it is, not for what a scanner found in it,
// is the sender's to send another way: the blocked_attachment condition
// (its type, or that it is encrypted, password-protected or unscannable, in
// the wordings of Cisco Secure Email, Microsoft, Mimecast, Sophos, Trend
// Micro, Proofpoint, Google and Barracuda that the blocked-attachment and
// blocked-encrypted-attachment extractors cite) beats a mere malware word
// ("could not be scanned for malware" is no malware found). A malware
// named by the scanner (the virus condition, "infected with Troj/X") beats
// the attachment condition: the vocabulary tries virus first, then
// encrypted_attachment (set with blocked_attachment for an encrypted,
// password-protected or unscannable file, whose fix is another way to send
// it, not another file), then blocked_attachment. The name of a
// Cisco content filter ("Inbound_Block_Encrypted_Archives") is no malware
// name (encrypted_attachment_test.go).
//
// A connection failure or an expiry reported by a gateway of the
// recipient's own domain, about an internal host of it (a private
// address, a private top-level domain, another host of the domain), is
// read after the rules as the recipient organisation's failure between its
// gateway and its internal server, whatever rule decided (internalhop.go);
// a reading that names another cause (a loop, DNS, TLS) keeps its words.
package rules
