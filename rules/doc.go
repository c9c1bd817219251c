// Package rules holds ndrmilter's knowledge of bounces: what enhanced status
// codes and reply texts mean, the reason they map to (a Reason), who must fix
// the problem (an Owner), and the plain-English explanation and fix. The
// knowledge is data: an embedded rules file (rules.yaml), validated at load,
// that a user can extend or override with files of their own, first match
// wins, local rules first. Codes are read with package smtpcode, as package
// dsn reads them, so that a reply means the same in a bounce and in
// Engine.Lookup.
//
// # Rules files
//
// A rules file is YAML with three optional keys. "texts" gives, by name, the
// sentences and phrases the engine writes itself: the explanation of a
// record whose rule has none ("The message[ to {recipient}] was refused by
// {remote} because {cause}."), the cause when nothing says one, the fix of a
// delay, and the readings of messages that are not bounces. Placeholders are
// written {name}; a part in [square brackets] is shown only when all its
// placeholders have values. The names, and the placeholders each may use, are
// listed in texts.go; Load rejects unknown names and placeholders, and the
// files together (the built-in one gives them all) must give every text, the
// first file that gives one winning, so that a local file can reword or
// translate some of them.
//
// "reasons" sets, per reason of the vocabulary (Reasons), the defaults a rule
// does not give: owner, hard_bounce, code (the status detail filled in when a
// record has no enhanced code, "911" giving 5.0.911), summary, cause and fix.
// "rules" is a list; the first rule whose every condition holds decides:
//
//	rules:
//	  - id: our-gateway-parks-accounts      # unique in the file, shown in logs
//	    when:                               # all keys must hold; any item of a key
//	      status: [5.1.1, "5.7.606-649", "5.1.*", "*.2.2", none]
//	      reply: [550, 55x, 5xx, none]      # SMTP reply code
//	      text: [account parked]            # any phrase (case-insensitive)
//	      all: [quota, submission]          # every phrase
//	      unless: [mailbox full]            # no phrase
//	      regexp: ['quota .* exceeded']     # RE2, case-insensitive, tried last
//	      mta: [gw.example.org]             # remote or reporting MTA contains
//	      action: [failed, delayed]         # RFC 3464 Action
//	      command: [RCPT, DATA, none]       # SMTP command of the failure
//	    then:
//	      reason: suspend                   # vocabulary of reasons.md
//	      owner: recipient-admin            # sender, sender-admin, recipient-admin,
//	                                        # group-owner, none, unknown
//	      hard_bounce: false
//	      status: 5.2.1                     # filled in when the record has none
//	      summary: account parked
//	      cause: the account is parked at our gateway   # ends "... because <cause>."
//	      explanation: "{recipient} is parked by {remote} ({status})."  # instead of cause
//	      fix: Ask the helpdesk to unpark the account.
//
// Phrases are compared after lower-casing and folding runs of white space, so
// "Mailbox  Full" matches "mailbox full". Every phrase of every rule goes into
// one automaton (phraseSet) at Load, so Classify reads the diagnostic text once
// whatever the number of rules. Load rejects unknown keys, reasons outside the
// vocabulary, unknown owners, malformed codes, ranges and reply codes, bad
// regular expressions and unknown template placeholders, naming the file and
// the rule. Texts must be plain printable ASCII, as rule texts are: they
// become header fields (X-NDR-Explanation).
//
// example-local.yaml in this directory is a small, tested example.
//
// # Order of the built-in rules
//
// The built-in rules follow the order in which Sisimai (whose reasons the
// vocabulary uses) tries reasons: first the cases where the words change the
// meaning of a code (5.2.2 "submission quota exceeded" is the sender's quota;
// 5.7.1 "unable to relay", "client was not authenticated", "delivery not
// authorized"), then the codes of Microsoft's tables that mean one thing
// whatever the words, then the reasons a phrase or a precise code decides
// (mailbox full before user unknown before blocked...), then precise RFC 3463
// codes, then the phrases of reasons a code does not decide, then defaults by
// class and subject.
package rules
