package rules

import (
	"sync"
	"testing"
)

// conflict is one case of the precedence written in doc.go: a reply that two
// rules match, the rule that must win, and the rule that must decide when
// the winner is left out (which proves that the loser matches too).
type conflict struct {
	name   string
	in     Input
	winner string // rule id
	reason Reason // the winner's reading
	loser  string // rule id of the other match
	lost   Reason // its reading
}

// withoutCache holds one engine per left-out rule: Load is not cheap.
var withoutCache sync.Map // rule id -> *Engine

func engineWithout(t *testing.T, id string) *Engine {
	t.Helper()
	if e, ok := withoutCache.Load(id); ok {
		return e.(*Engine)
	}
	e, err := LoadWithout([]string{id})
	if err != nil {
		t.Fatalf("LoadWithout(%s): %v", id, err)
	}
	withoutCache.Store(id, e)
	return e
}

func checkConflicts(t *testing.T, tests []conflict) {
	t.Helper()
	e := builtin(t)
	for _, tc := range tests {
		if tc.in.Action == "" {
			tc.in.Action = "failed"
		}
		v := e.Classify(tc.in)
		if v.Rule != tc.winner || v.Reason != tc.reason {
			t.Errorf("%s: %q: %s (rule %s), want %s (rule %s)", tc.name, tc.in.Diagnostic, v.Reason, v.Rule, tc.reason, tc.winner)
			continue
		}
		w := engineWithout(t, tc.winner).Classify(tc.in)
		if w.Rule != tc.loser || w.Reason != tc.lost {
			t.Errorf("%s: %q without %s: %s (rule %s), want the other match %s (rule %s)",
				tc.name, tc.in.Diagnostic, tc.winner, w.Reason, w.Rule, tc.lost, tc.loser)
		}
	}
}

// TestPrecedenceRecordKind: a success report is never read as a failure.
func TestPrecedenceRecordKind(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "success code beats a failure phrase",
			in:     Input{Action: "failed", Status: "2.0.0", Diagnostic: "250 2.0.0 queued, although the user unknown list was consulted", Command: "RCPT"},
			winner: "success-code", reason: "delivered", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "delivered action beats a failure phrase",
			in:     Input{Action: "delivered", Status: "2.0.0", Diagnostic: "250 ok, the mailbox is full of good news"},
			winner: "success", reason: "delivered", loser: "success-code", lost: "delivered"},
	})
}

// TestPrecedenceVendorTables: a vendor's own code or phrase beats the
// generic reading of the same words; a vendor phrase counts only at its host.
func TestPrecedenceVendorTables(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "Gmail's full and inactive mailbox (OverQuotaPerm) is refused for good, not a passing full mailbox",
			in: Input{Status: "5.2.2", RemoteMTA: "gmail-smtp-in.l.google.com",
				Diagnostic: "552-5.2.2 The recipient's inbox is out of storage space and inactive. Please direct the recipient to 552 5.2.2 https://support.google.com/mail/?p=OverQuotaPerm"},
			winner: "google-mailboxfull-inactive", reason: "mailboxfull", loser: "google-mailboxfull", lost: "mailboxfull"},
		{name: "KDDI's empty-address user unknown is a filter, not a missing address",
			in:     Input{Diagnostic: "550 : User unknown", Command: "RCPT", RemoteMTA: "lsean.ezweb.ne.jp"},
			winner: "kddi-filtered", reason: "filtered", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "QQ's mailbox unavailable or access denied is a receiving limit, not a suspended box",
			in:     Input{Diagnostic: "550 Mailbox unavailable or access denied for this hour", RemoteMTA: "mx2.qq.com"},
			winner: "tencent-speeding", reason: "speeding", loser: "suspend-text", lost: "suspend"},
		{name: "Yahoo's TSS04 deferral in a delay report gets the words for a delay",
			in:     Input{Action: "delayed", Status: "4.7.0", Diagnostic: "421 4.7.0 [TSS04] Mail from 198.51.100.4 temporarily deferred due to unexpected volume or user complaints", RemoteMTA: "mta7.am0.yahoodns.net"},
			winner: "yahoo-deferred-volume-complaints-delayed", reason: "rejected", loser: "yahoo-deferred-volume-complaints", lost: "rejected"},
		{name: "Yahoo's TSS04 deferral in a report with no action keeps Sisimai's vendor reading, not the generic reputation verdict",
			in:     Input{Action: "none", Status: "4.7.0", Diagnostic: "421 4.7.0 [TSS04] Mail from 198.51.100.4 temporarily deferred due to unexpected volume or user complaints", RemoteMTA: "mta7.am0.yahoodns.net"},
			winner: "yahoo-deferred-volume-complaints", reason: "rejected", loser: "badreputation-text", lost: "badreputation"},
		{name: "Yahoo's TSS04 deferral that the sending server gave up on says so",
			in:     Input{Action: "failed", Status: "4.7.0", Diagnostic: "421 4.7.0 [TSS04] Mail from 198.51.100.4 temporarily deferred due to unexpected volume or user complaints", RemoteMTA: "mta7.am0.yahoodns.net"},
			winner: "yahoo-deferred-volume-complaints-expired", reason: "rejected", loser: "yahoo-deferred-volume-complaints", lost: "rejected"},
		{name: "Orange's code beats the words of another reason",
			in:     Input{Diagnostic: "550 5.5.0 Destinataire bloque, sender rejected here. LPN007_426"},
			winner: "orange-code-suspend", reason: "suspend", loser: "rejected-text", lost: "rejected"},
		{name: "an MTA's own full-system message beats the generic mailbox-unavailable phrase",
			in:     Input{Diagnostic: "452 Requested action not taken: mailbox unavailable (not enough free space) on the spool"},
			winner: "lhost-qmail-systemfull", reason: "systemfull", loser: "user-unknown-any-stage", lost: "userunknown"},
		{name: "an MTA's own table beats a more specific generic phrase that contains its words",
			in:     Input{Diagnostic: "550 Error: no valid recipients from this relay", Command: "RCPT"},
			winner: "lhost-verizon-userunknown", reason: "userunknown", loser: "blocked-specific", lost: "blocked"},
		{name: "a delivery agent's message beats the after-DATA reading of user unknown",
			in:     Input{Diagnostic: "maildrop: Cannot find system user for nina", Command: "DATA"},
			winner: "lda-maildrop-userunknown", reason: "userunknown", loser: "lda-other-message", lost: "mailererror"},
		{name: "an MTA message that names its program beats the words of a reason",
			in:     Input{Diagnostic: "Connected to 203.0.113.5 but my name was rejected: invalid domain"},
			winner: "lhost-qmail-helo-refused", reason: "blocked", loser: "host-unknown-text", lost: "hostunknown"},
	})
	// A vendor phrase away from the vendor's hosts keeps its generic reading.
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Diagnostic: "550 Mailbox unavailable or access denied for this hour", RemoteMTA: "mx.example.net"})
	if v.Reason != "suspend" || v.Rule != "suspend-text" {
		t.Errorf("QQ's phrase elsewhere: %s (rule %s), want suspend (rule suspend-text)", v.Reason, v.Rule)
	}
}

// TestPrecedenceWordsChangeCode: the words that change a code's meaning beat
// the code.
func TestPrecedenceWordsChangeCode(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "the sender's submission quota is not a full mailbox",
			in:     Input{Status: "5.2.2", Diagnostic: "554 5.2.2 mailbox full; Submission quota exceeded for this account"},
			winner: "ms-submission-quota", reason: "speeding", loser: "mailbox-full-status", lost: "mailboxfull"},
		{name: "Exchange's SubmissionQuotaExceededException is the sender's quota, not a full mailbox",
			in:     Input{Status: "5.2.2", Diagnostic: "554 5.2.2 mailbox full; STOREDRV.Submission.Exception:SubmissionQuotaExceededException; Failed to process message due to a permanent exception"},
			winner: "ms-submission-quota", reason: "speeding", loser: "mailbox-full-status", lost: "mailboxfull"},
		{name: "5.7.1 unable to relay",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 Unable to relay for pat@example.org"},
			winner: "relay-denied-5.7.1", reason: "norelaying", loser: "norelaying-text", lost: "norelaying"},
		{name: "5.7.1 client was not authenticated",
			in:     Input{Status: "5.7.1", Diagnostic: "530 5.7.1 Client was not authenticated to this server"},
			winner: "not-authenticated-5.7.1", reason: "securityerror", loser: "security-text", lost: "securityerror"},
		{name: "5.7.1 delivery not authorized is a restriction of the recipient, not the bare code",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 Delivery not authorized to the staff list"},
			winner: "ms-5.7.1-delivery-not-authorized", reason: "filtered", loser: "rfc3463-x.7.1", lost: "securityerror"},
		{name: "5.4.1 with words of no answer is RFC 3463's, not Microsoft's relay refusal",
			in:     Input{Status: "5.4.1", Diagnostic: "mx9.example.com did not respond: the connection timed out"},
			winner: "rfc3463-x.4.1-no-answer", reason: "expired", loser: "expired-text", lost: "expired"},
		{name: "5.1.10 with null MX is RFC 7505's, not Microsoft's recipient not found",
			in:     Input{Status: "5.1.10", Diagnostic: "556 5.1.10 the domain publishes a null MX"},
			winner: "x.1.10-null-mx", reason: "notaccept", loser: "ms-5.1.10", lost: "userunknown"},
		{name: "5.7.13 with a disabled account is RFC 5248's, not Microsoft's public folder",
			in:     Input{Status: "5.7.13", Diagnostic: "525 5.7.13 the account of lee is disabled"},
			winner: "x.7.13-account-disabled", reason: "suspend", loser: "ms-5.7.13", lost: "filtered"},
	})
}

// TestPrecedencePreciseCodes: a precise code of the seed tables beats the
// phrases of the reason families; a precise registry code decides when no
// phrase did, and a phrase beats it.
func TestPrecedencePreciseCodes(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "a Microsoft seed code beats a spam phrase",
			in:     Input{Status: "5.7.509", Diagnostic: "550 5.7.509 Access denied, the From domain does not pass DMARC and this looks like spam"},
			winner: "ms-5.7.509", reason: "authfailure", loser: "authfailure-dmarc", lost: "authfailure"},
		{name: "a phrase beats a precise registry code that comes later",
			in:     Input{Status: "5.1.6", Diagnostic: "550 5.1.6 no such user in this domain", Command: "RCPT"},
			winner: "user-unknown-rcpt", reason: "userunknown", loser: "rfc3463-x.1.6", lost: "hasmoved"},
		{name: "a precise registry code beats the after-DATA catch-all",
			in:     Input{Status: "5.1.6", Diagnostic: "550 5.1.6 no such user in this domain", Command: "DATA"},
			winner: "rfc3463-x.1.6", reason: "hasmoved", loser: "user-unknown-after-data", lost: "filtered"},
	})
}

// TestPrecedenceSisimaiOrder: a phrase or precise code of an earlier reason
// beats those of a later one; a weak code yields to any phrase.
func TestPrecedenceSisimaiOrder(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "mailboxfull's phrase beats userunknown's code",
			in:     Input{Status: "5.1.1", Diagnostic: "550 5.1.1 this mailbox is full, sorry", Command: "RCPT"},
			winner: "mailbox-full-text", reason: "mailboxfull", loser: "ms-5.1.1", lost: "userunknown"},
		{name: "mailboxfull's code beats userunknown's phrase",
			in:     Input{Status: "5.2.2", Diagnostic: "552 5.2.2 user unknown or over its storage", Command: "RCPT"},
			winner: "mailbox-full-status", reason: "mailboxfull", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "userunknown's code yields to blocked's words",
			in:     Input{Status: "5.1.1", Diagnostic: "550 5.1.1 client 192.0.2.8 blocked using zen.example.org", Command: "RCPT"},
			winner: "userunknown-code-yields-blocked", reason: "blocked", loser: "ms-5.1.1", lost: "userunknown"},
		{name: "userunknown's code yields to rejected's words",
			in:     Input{Status: "5.1.1", Diagnostic: "553 5.1.1 bogus mail from this sender", Command: "RCPT"},
			winner: "userunknown-code-yields-rejected", reason: "rejected", loser: "ms-5.1.1", lost: "userunknown"},
		{name: "...but not to a refusal of the recipient address (rejected's isnot list)",
			in:     Input{Status: "5.1.1", Diagnostic: "550 5.1.1 recipient address rejected: no mailbox for kai", Command: "RCPT"},
			winner: "ms-5.1.1", reason: "userunknown", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "a specific phrase beats the class alone (X.0.0)",
			in:     Input{Status: "5.0.0", Diagnostic: "554 5.0.0 your mailbox is full at the other end"},
			winner: "mailbox-full-text", reason: "mailboxfull", loser: "rfc3463-x.0.0", lost: "undefined"},
		{name: "a specific phrase beats a routing code (4.4.7)",
			in:     Input{Status: "4.4.7", Diagnostic: "Deferred: connection dropped by mx.example.org, then the message timed out"},
			winner: "blocked-text", reason: "blocked", loser: "expired-text", lost: "expired"},
		{name: "Sendmail's refused TCP connection beats Sisimai's blocked phrase that holds its words (the reason stays, the words and owner change)",
			in:     Input{Status: "4.4.1", Action: "delayed", Diagnostic: "Deferred: Connection refused by mx.example.org."},
			winner: "sendmail-connection-refused", reason: "blocked", loser: "blocked-text", lost: "blocked"},
		{name: "a specific phrase beats a media code (X.6.x)",
			in:     Input{Status: "5.6.0", Diagnostic: "554 5.6.0 mail score (9.2) over the limit of the gateway"},
			winner: "spamdetected-pairs", reason: "spamdetected", loser: "rfc3463-x.6", lost: "contenterror"},
		{name: "a specific phrase beats X.7.1",
			in:     Input{Status: "5.7.1", Diagnostic: "554 5.7.1 client 192.0.2.9 blocked using bl.example.net"},
			winner: "blocked-text", reason: "blocked", loser: "rfc3463-x.7.1", lost: "securityerror"},
		{name: "a specific phrase beats the temporary 4.7.1",
			in:     Input{Status: "4.7.1", Diagnostic: "450 4.7.1 greylisted for now, please try again in 300 seconds"},
			winner: "spamdetected-pairs", reason: "spamdetected", loser: "sisimai-4.2.1-4.7.1-4.7.2", lost: "blocked"},
		{name: "a temporary answer of an unknown domain is read by its words, not by the temporary 4.7.1",
			in:     Input{Status: "4.7.1", Diagnostic: "451 4.7.1 <ann@shop.example>: Recipient address rejected: unknown domain, try later", Command: "RCPT"},
			winner: "host-unknown-text", reason: "hostunknown", loser: "sisimai-4.2.1-4.7.1-4.7.2", lost: "blocked"},
		{name: "a temporary answer of an unknown host is read by its words, not by the routing code 4.4.1",
			in:     Input{Status: "4.4.1", Diagnostic: "451 4.4.1 mx.shop.example: Name or service not known"},
			winner: "host-unknown-text", reason: "hostunknown", loser: "rfc3463-x.4.1", lost: "expired"},
		{name: "a temporary answer of an unknown domain is read by its words, not by the bare reply 451",
			in:     Input{Diagnostic: "451 no such domain as shop.example here"},
			winner: "host-unknown-text", reason: "hostunknown", loser: "reply-451", lost: "systemerror"},
		{name: "...and a network error's words still name a DNS failure",
			in:     Input{Status: "4.4.0", Diagnostic: "451 4.4.0 Host not found, try again (DNS lookup failed)"},
			winner: "network-text", reason: "networkerror", loser: "rfc3463-x.4.other", lost: "networkerror"},
	})
}

// TestPrecedenceSpecificPhrase: a phrase that contains a more general phrase
// of an earlier reason beats it, but not that reason's code; a phrase listed
// under two reasons goes to the one tried first.
func TestPrecedenceSpecificPhrase(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "systemfull's storage allocation beats mailboxfull's",
			in:     Input{Diagnostic: "452 Requested mail action aborted: exceeded storage allocation on this server"},
			winner: "systemfull-specific", reason: "systemfull", loser: "mailbox-full-text", lost: "mailboxfull"},
		{name: "...but not mailboxfull's code",
			in:     Input{Status: "5.2.2", Diagnostic: "552 5.2.2 Requested mail action aborted: exceeded storage allocation on this server"},
			winner: "mailbox-full-status", reason: "mailboxfull", loser: "systemfull-specific", lost: "systemfull"},
		{name: "toomanyconn's throttling failure beats mailboxfull's quota exceeded",
			in:     Input{Diagnostic: "454 Throttling failure: Daily message quota exceeded for the sender"},
			winner: "toomanyconn-specific", reason: "toomanyconn", loser: "mailbox-full-text", lost: "mailboxfull"},
		{name: "hostunknown's domain does not exist beats userunknown's does not exist",
			in:     Input{Diagnostic: "550 that domain does not exist anywhere", Command: "RCPT"},
			winner: "hostunknown-specific", reason: "hostunknown", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "...in a temporary answer too",
			in:     Input{Diagnostic: "450 that domain does not exist in our routing table", Command: "RCPT"},
			winner: "hostunknown-specific", reason: "hostunknown", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "553 and a domain that does not exist is hostunknown",
			in:     Input{Diagnostic: "553 mail.nowhere.example does not exist", Command: "RCPT"},
			winner: "hostunknown-specific-553", reason: "hostunknown", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "rejected's E2110 beats userunknown's does not exist",
			in:     Input{Diagnostic: "553 the sender does not exist E2110", Command: "RCPT"},
			winner: "rejected-specific", reason: "rejected", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "spamdetected's sender domain listed beats rejected's sender domain",
			in:     Input{Diagnostic: "550 Sender domain listed at a domain blocklist of ours"},
			winner: "spamdetected-specific", reason: "spamdetected", loser: "rejected-text", lost: "rejected"},
		{name: "spamdetected's message filtered for spam beats filtered's message filtered",
			in:     Input{Diagnostic: "550 Message filtered. Please see the FAQs section on spam at our site", Command: "DATA"},
			winner: "spamdetected-specific", reason: "spamdetected", loser: "filtered-text", lost: "filtered"},
		{name: "blocked's refused HELO name beats hostunknown's host not found",
			in:     Input{Status: "4.7.1", Diagnostic: "450 4.7.1 <gw.branch.example>: Helo command rejected: Host not found", Command: "RCPT"},
			winner: "blocked-helo-specific", reason: "blocked", loser: "host-unknown-text", lost: "hostunknown"},
		{name: "...in a permanent answer too",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 <gw.branch.example>: Helo command rejected: Host not found", Command: "RCPT"},
			winner: "blocked-helo-specific", reason: "blocked", loser: "host-unknown-text", lost: "hostunknown"},
		{name: "notaccept's dot name server beats hostunknown's host not found",
			in:     Input{Diagnostic: "550 Host unknown (Name server: .: host not found)"},
			winner: "notaccept-specific", reason: "notaccept", loser: "host-unknown-text", lost: "hostunknown"},
		{name: "shared phrase: suspend is tried before userunknown",
			in:     Input{Diagnostic: "550 this address no longer accepts mail, goodbye", Command: "RCPT"},
			winner: "suspend-text", reason: "suspend", loser: "user-unknown-rcpt", lost: "userunknown"},
		{name: "shared phrase: notcompliantrfc is tried before contenterror",
			in:     Input{Diagnostic: "554 duplicate header: Subject appears twice"},
			winner: "rfc-compliance-text", reason: "notcompliantrfc", loser: "contenterror-text", lost: "contenterror"},
		{name: "shared phrase: norelaying is tried before securityerror",
			in:     Input{Diagnostic: "550 insecure mail relay refused", Command: "RCPT"},
			winner: "norelaying-text", reason: "norelaying", loser: "security-text", lost: "securityerror"},
		{name: "shared phrase: badreputation is tried before blocked (away from Yahoo)",
			in:     Input{Diagnostic: "421 Mail temporarily deferred due to unexpected volume or user complaints"},
			winner: "badreputation-text", reason: "badreputation", loser: "blocked-text", lost: "blocked"},
		{name: "shared phrase: user not found at RCPT is a missing address",
			in:     Input{Diagnostic: "550 user not found here", Command: "RCPT"},
			winner: "user-unknown-rcpt", reason: "userunknown", loser: "filtered-mailbox-missing", lost: "filtered"},
		{name: "shared phrase: user not found after DATA is filtered, worded as a missing mailbox",
			in:     Input{Diagnostic: "550 user not found here", Command: "DATA"},
			winner: "filtered-mailbox-missing", reason: "filtered", loser: "filtered-text", lost: "filtered"},
		{name: "filtered: a refusal phrase beats the missing-mailbox words",
			in:     Input{Diagnostic: "550 user not found: you have been blocked by the recipient", Command: "DATA"},
			winner: "filtered-text", reason: "filtered", loser: "user-unknown-after-data", lost: "filtered"},
	})
}

// TestPrecedenceNetworkVeto: hostunknown's phrases yield to a network
// error's phrase (Sisimai's veto for X.1.2, read for the words too): "host not
// found, try again" is a DNS failure though it contains "host not found".
func TestPrecedenceNetworkVeto(t *testing.T) {
	e := builtin(t)
	for _, tc := range []struct{ diag, rule, reason string }{
		{"550 Host not found for the domain of bo@example.org", "host-unknown-text", "hostunknown"},
		{"550 Host not found, try again in a minute", "network-text", "networkerror"},
		{"Name service error for the MX of example.org: malformed or unexpected name server reply", "network-text", "networkerror"},
	} {
		v := e.Classify(Input{Action: "failed", Diagnostic: tc.diag})
		if v.Rule != tc.rule || string(v.Reason) != tc.reason {
			t.Errorf("%q: %s (rule %s), want %s (rule %s)", tc.diag, v.Reason, v.Rule, tc.reason, tc.rule)
		}
	}
}

// TestPrecedenceCatchAlls: the stage and very general words are read after
// every specific phrase and precise code, and before the weak codes.
func TestPrecedenceCatchAlls(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "a user-unknown answer after DATA beats a weak code",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 no such user at this site", Command: "DATA"},
			winner: "user-unknown-after-data", reason: "filtered", loser: "rfc3463-x.7.1", lost: "securityerror"},
		{name: "a refusal at the greeting beats general words",
			in:     Input{Status: "5.7.1", Diagnostic: "554 5.7.1 service unavailable for you", Command: "HELO"},
			winner: "blocked-at-connection", reason: "blocked", loser: "systemerror-general-text", lost: "systemerror"},
		{name: "a specific phrase beats a general word of another family",
			in:     Input{Diagnostic: "550 violation: mail score (9.2) over our limit"},
			winner: "spamdetected-pairs", reason: "spamdetected", loser: "policy-general-text", lost: "policyviolation"},
		{name: "a precise code beats a general word",
			in:     Input{Status: "5.1.6", Diagnostic: "550 5.1.6 the IP address book has no entry"},
			winner: "rfc3463-x.1.6", reason: "hasmoved", loser: "blocked-general-text", lost: "blocked"},
		{name: "a general word beats a weak code",
			in:     Input{Status: "5.7.1", Diagnostic: "554 5.7.1 this violates our rules"},
			winner: "policy-general-text", reason: "policyviolation", loser: "rfc3463-x.7.1", lost: "securityerror"},
		{name: "at MAIL FROM a user-unknown answer names the sender, whatever the code",
			in:     Input{Status: "5.1.1", Diagnostic: "550 5.1.1 no such user here", Command: "MAIL"},
			winner: "unknown-at-mail-from", reason: "rejected", loser: "ms-5.1.1", lost: "userunknown"},
		{name: "the words of a reply beat an MTA's onhold code",
			in:     Input{Diagnostic: "MSEXCH:IMS:Example:Site:SRV1 0 (000B09AA) Unable to relay for amy@example.net"},
			winner: "relay-denied-5.7.1", reason: "norelaying", loser: "norelaying-text", lost: "norelaying"},
	})
}

// TestPrecedenceSpecificOverGeneral: a phrase of a family beats a bare code
// and the general words of another family; the more specific phrase beats
// the general one (doc.go principles 5, 6 and 8).
func TestPrecedenceSpecificOverGeneral(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "a list's posting restriction beats the bare 5.7.1",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 You are not permitted to post to this group"},
			winner: "list-posting-restricted", reason: "filtered", loser: "rfc3463-x.7.1", lost: "securityerror"},
		{name: "a list's posting restriction is a filter, not a refusal of the sender",
			in:     Input{Diagnostic: "550 You are not allowed to post to this mailing list"},
			winner: "list-nonmember", reason: "filtered", loser: "list-posting-restricted", lost: "filtered"},
		{name: "a connector's certificate name (TlsDomain) beats the general words of a server that cannot be reached",
			in:     Input{Action: "failed", Diagnostic: "451 4.4.317 Cannot connect to remote server [Message=SubjectMismatch: the name on the certificate doesn't match the TlsDomain configured on the connector (mail.partner.example)]"},
			winner: "microsoft-connector-tlsdomain", reason: "failedstarttls", loser: "expired-connection-text", lost: "expired"},
		{name: "a list's refusal of a non-member beats the moderator words of a delivery not authorized",
			in:     Input{Diagnostic: "has been rejected by the list moderator. The moderator gave the following reason for rejecting your request: \"The message is not from a list member\""},
			winner: "list-nonmember", reason: "filtered", loser: "list-moderator-reason", lost: "filtered"},
		{name: "Mailman's members-only hold reason keeps Sisimai's policyviolation with the list's words",
			in:     Input{Diagnostic: "has been rejected by the list moderator. The moderator gave the following reason for rejecting your request: \"Post by non-member to a members-only list\""},
			winner: "list-nonmember-policy", reason: "policyviolation", loser: "list-moderator-reason", lost: "filtered"},
		{name: "a moderator's stated reason beats the allowed-senders words of a delivery not authorized",
			in:     Input{Diagnostic: "has been rejected by the list moderator. The moderator gave the following reason for rejecting your request: \"Job adverts go to the careers list, please do not post them here\""},
			winner: "list-moderator-reason", reason: "filtered", loser: "ms-5.7.1-delivery-not-authorized", lost: "filtered"},
		{name: "ezmlm's subscribers-only refusal beats the bare X.7.2",
			in:     Input{Status: "5.7.2", Diagnostic: "Sorry, only subscribers may post. If you are a subscriber, please forward this message to dev-owner@lists.example.org to get your new address included (#5.7.2)"},
			winner: "list-nonmember", reason: "filtered", loser: "rfc3463-x.7.2", lost: "filtered"},
		{name: "a list that restricts posters without naming membership keeps the general words",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 Sender is not permitted to post to this list"},
			winner: "list-posting-restricted", reason: "filtered", loser: "rfc3463-x.7.1", lost: "securityerror"},
		{name: "Google Groups' own notice keeps its vendor reading",
			in:     Input{Diagnostic: "The group you tried to contact (staff) may not exist, or you may not have permission to post messages to the group. https://groups.google.com/"},
			winner: "google-groups-refused", reason: "rejected", loser: "list-posting-restricted", lost: "filtered"},
		{name: "a named sender's address refused beats a recipient's filter wording",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 Not accepting mail from o.berg@example.com"},
			winner: "rejected-sender-named", reason: "rejected", loser: "filtered-text", lost: "filtered"},
		{name: "a named sender's address refused at MAIL FROM beats a host that takes no mail",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 Not accepting mail from o.berg@example.com", Command: "MAIL"},
			winner: "rejected-sender-named", reason: "rejected", loser: "notaccept-text", lost: "notaccept"},
		{name: "the word spam beats blocked's general words",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 This message has been blocked because it contains spam"},
			winner: "spam-general-text", reason: "spamdetected", loser: "blocked-general-text", lost: "blocked"},
		{name: "an attachment filter is a policy refusal, not the bare 5.7.1",
			in:     Input{Status: "5.7.1", Diagnostic: "554 5.7.1 Message rejected due to content restrictions (attachment type not allowed)"},
			winner: "policy-text", reason: "policyviolation", loser: "rfc3463-x.7.1", lost: "securityerror"},
	})
	// A recipient who refuses a sender is a filter, not a refusal of the sender.
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Diagnostic: "550 The recipient is not accepting mail from o.berg@example.com"})
	if v.Reason != "filtered" {
		t.Errorf("recipient refusing a sender: %s (rule %s), want filtered", v.Reason, v.Rule)
	}
}

// TestPrecedenceStageYieldsToBlockWords: the stage says whose address a
// user-unknown answer is about, not that the address is the cause: blocked's
// words (a listed IP) beat the readings of the stage and of Microsoft's
// "mailbox unavailable" at any stage.
func TestPrecedenceStageYieldsToBlockWords(t *testing.T) {
	e := builtin(t)
	for _, in := range []Input{
		{Action: "failed", Command: "MAIL", Diagnostic: "550 Requested action not taken: mailbox unavailable (your IP 198.51.100.3 is listed at zen.spamhaus.org)"},
		{Action: "failed", Command: "MAIL", Diagnostic: "554 5.7.1 Service unavailable; Client host [198.51.100.3] blocked using bl.spamcop.net; address does not exist"},
		{Action: "failed", Diagnostic: "550 Requested action not taken: mailbox unavailable; client host 198.51.100.3 is on our block list"},
	} {
		if v := e.Classify(in); v.Reason != "blocked" {
			t.Errorf("%q at %q: %s (rule %s), want blocked", in.Diagnostic, in.Command, v.Reason, v.Rule)
		}
	}
	// Without block words the stage still decides.
	if v := e.Classify(Input{Action: "failed", Command: "MAIL", Status: "5.1.1", Diagnostic: "550 5.1.1 no such user here"}); v.Rule != "unknown-at-mail-from" {
		t.Errorf("user unknown at MAIL FROM: %s (rule %s), want rejected (rule unknown-at-mail-from)", v.Reason, v.Rule)
	}
}

// TestPrecedenceDiagnosticType: a Diagnostic-Code of type X-Unix (a local
// delivery program's error) is read as mailererror after the codes Sisimai's
// table maps and after the phrases, before the class alone (doc.go
// principle 9).
func TestPrecedenceDiagnosticType(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "a code the table maps beats the X-Unix type",
			in:     Input{Status: "5.3.0", Diagnostic: "temporary failure", DiagnosticType: "x-unix"},
			winner: "rfc3463-x.3.0", reason: "systemerror", loser: "diagnostic-type-x-unix", lost: "mailererror"},
		{name: "a phrase beats the X-Unix type",
			in:     Input{Status: "4.3.0", Diagnostic: "cannot write: mailbox is full", DiagnosticType: "X-Unix"},
			winner: "mailbox-full-text", reason: "mailboxfull", loser: "diagnostic-type-x-unix", lost: "mailererror"},
		{name: "the X-Unix type beats 4.3.0, which Sisimai's code table leaves out",
			in:     Input{Status: "4.3.0", Diagnostic: "temporary failure", DiagnosticType: "x-unix"},
			winner: "diagnostic-type-x-unix", reason: "mailererror", loser: "rfc3463-x.3.other", lost: "systemerror"},
		{name: "the X-Unix type beats the class alone",
			in:     Input{Status: "5.0.0", Diagnostic: "exit status 1", DiagnosticType: "x-unix"},
			winner: "diagnostic-type-x-unix", reason: "mailererror", loser: "rfc3463-x.0.0", lost: "undefined"},
	})
}

// TestPrecedenceGrading2: issue 8 item 6 (grading 2). A documented family's
// own words beat the generic reading of the same reply: the sender verify
// callout beats userunknown's code and rejected's generic words, Mimecast's
// personal and policy blocks beat its generic table, greylisting beats the
// delay that states no cause, Gmail's recipient rate and likely-unsolicited
// verdicts beat its generic table, Outlook.com's block codes beat the generic
// block-list words.
func TestPrecedenceGrading2(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "a sender verify callout beats userunknown's code yielding to rejected's words",
			in:     Input{Status: "5.1.1", Diagnostic: "553 5.1.1 sender verify failed for this message", Command: "RCPT"},
			winner: "sender-verify-callout", reason: "rejected", loser: "userunknown-code-yields-rejected", lost: "rejected"},
		{name: "a sender verify callout beats rejected's generic words",
			in:     Input{Status: "5.0.0", Diagnostic: "550 Verification failed for <a@example.org> Response: 550 <>: Sender address rejected: null sender not allowed Sender verify failed", Command: "RCPT"},
			winner: "sender-verify-callout", reason: "rejected", loser: "rejected-text", lost: "rejected"},
		{name: "Mimecast's personal block beats its generic table",
			in:     Input{Diagnostic: "550 Envelope blocked - User Entry - https://community.mimecast.com/docs/DOC-1369#550", Command: "RCPT", RemoteMTA: "eu-smtp-inbound-2.mimecast.com"},
			winner: "mimecast-user-block", reason: "rejected", loser: "mimecast-rejected", lost: "rejected"},
		{name: "Mimecast's policy block beats its generic table",
			in:     Input{Diagnostic: "550 Administrative prohibition envelope blocked", Command: "RCPT", RemoteMTA: "us-smtp-inbound-1.mimecast.com"},
			winner: "mimecast-policy-block", reason: "rejected", loser: "mimecast-rejected", lost: "rejected"},
		{name: "Mimecast's policy block in the dash form of its replies beats the generic refusal words",
			in:     Input{Diagnostic: "550 Administrative prohibition - envelope blocked - https://community.mimecast.com/docs/DOC-1369#550 [x.us248]", Command: "RCPT"},
			winner: "mimecast-policy-block", reason: "rejected", loser: "rejected-text", lost: "rejected"},
		{name: "OpenSMTPD's unreachable MX hosts beat its other network errors",
			in:     Input{Action: "failed", Diagnostic: "Network error on destination MXs"},
			winner: "lhost-opensmtpd-mx-unreachable", reason: "networkerror", loser: "lhost-opensmtpd-networkerror", lost: "networkerror"},
		{name: "Microsoft's outbound spam block of the sending account beats the spam words",
			in:     Input{Status: "5.2.0", Diagnostic: "554 5.2.0 STOREDRV.Submission.Exception:OutboundSpamException; Failed to process message due to a permanent exception with message [BeginDiagnosticData]WASCL UserAction verdict is not None. Actual verdict is Suspend, ShowTierUpgrade.[EndDiagnosticData]"},
			winner: "ms-outbound-spam-exception", reason: "rejected", loser: "spam-general-text", lost: "spamdetected"},
		{name: "a delivery program's own login failure is its error, not the sender's authentication",
			in:     Input{Diagnostic: "helpdesk-import: FATAL: password authentication failed for user \"helpdesk\"", DiagnosticType: "x-unix"},
			winner: "security-words-from-a-delivery-program", reason: "mailererror", loser: "security-text", lost: "securityerror"},
		{name: "Postfix's sender-domain block list refusal beats the block-list words",
			in:     Input{Diagnostic: "554 5.7.1 Service unavailable; Sender address [a@deals.example] blocked using dbl.spamhaus.org", Command: "MAIL"},
			winner: "postfix-rbl-sender", reason: "rejected", loser: "blocked-text", lost: "blocked"},
		{name: "Postfix's HELO-name block list refusal beats the block-list words",
			in:     Input{Diagnostic: "554 5.7.1 Service unavailable; Helo command [mail.deals.example] blocked using dbl.spamhaus.org", Command: "RCPT"},
			winner: "postfix-rbl-name", reason: "blocked", loser: "blocked-text", lost: "blocked"},
		{name: "Mimecast's anti-spoofing words beat its generic table",
			in:     Input{Diagnostic: "550 Rejected by header-based Anti-Spoofing policy: someone@example.com", Command: "DATA", RemoteMTA: "eu-smtp-inbound-1.mimecast.com"},
			winner: "mimecast-anti-spoofing", reason: "policyviolation", loser: "mimecast-policyviolation", lost: "policyviolation"},
		{name: "greylisting beats the delay that states no cause",
			in:     Input{Action: "delayed", Status: "4.2.0", Diagnostic: "450 4.2.0 <a@example.net>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.net.html", Command: "RCPT"},
			winner: "greylisting-delayed", reason: "onhold", loser: "delayed-unknown", lost: "expired"},
		{name: "Gmail's recipient rate beats its generic table (delay)",
			in:     Input{Action: "delayed", Status: "4.2.1", Diagnostic: "452 4.2.1 The recipient you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.", Command: "RCPT", RemoteMTA: "aspmx.l.google.com"},
			winner: "gmail-recipient-rate-delayed", reason: "speeding", loser: "gmail-recipient-rate", lost: "speeding"},
		{name: "Gmail's recipient rate beats its generic table (failure)",
			in:     Input{Status: "4.2.1", Diagnostic: "450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later point.", Command: "RCPT", RemoteMTA: "gmail-smtp-in.l.google.com"},
			winner: "gmail-recipient-rate", reason: "speeding", loser: "google-speeding", lost: "speeding"},
		{name: "Gmail's likely-unsolicited verdict beats its generic table",
			in:     Input{Status: "5.7.1", Diagnostic: "550-5.7.1 [192.0.2.7 12] Our system has detected that this message is likely unsolicited mail.", Command: "DATA", RemoteMTA: "aspmx.l.google.com"},
			winner: "gmail-likely-unsolicited", reason: "spamdetected", loser: "google-spamdetected", lost: "spamdetected"},
		{name: "Outlook.com's block code beats the generic block-list words",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 Unfortunately, messages from [192.0.2.7] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3140).", Command: "MAIL"},
			winner: "outlook-block-list", reason: "blocked", loser: "blocked-text", lost: "blocked"},
		{name: "Proofpoint's reputation page beats the generic block words",
			in:     Input{Status: "5.7.1", Diagnostic: "554 5.7.1 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.7", Command: "MAIL"},
			winner: "proofpoint-reputation", reason: "blocked", loser: "blocked-text", lost: "blocked"},
	})
}
