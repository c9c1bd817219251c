package rules

import (
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// family is one reply of a phrase family: the words many servers use for one
// reason (as Sisimai's reason modules know them), in our own sentences and
// with our own addresses.
type family struct {
	diag    string
	status  string
	command string
	mta     string
	reason  Reason
}

func checkFamilies(t *testing.T, tests []family) {
	t.Helper()
	e := builtin(t)
	for _, tc := range tests {
		v := e.Classify(Input{Action: "failed", Status: tc.status, Diagnostic: tc.diag, Command: tc.command, RemoteMTA: tc.mta})
		if v.Reason != tc.reason {
			t.Errorf("%q (status %q, command %q, mta %q): %s (rule %s), want %s",
				tc.diag, tc.status, tc.command, tc.mta, v.Reason, v.Rule, tc.reason)
		}
	}
}

// TestPhraseFamilies reads one or more replies of each reason's phrase
// family, as servers word them, with no enhanced code to lean on.
func TestPhraseFamilies(t *testing.T) {
	checkFamilies(t, []family{
		// userunknown, in answer to RCPT TO.
		{diag: "550 sorry, no mailbox here by that name. (#5.1.1)", command: "RCPT", reason: "userunknown"},
		{diag: "550 Unknown local part amy in <amy@example.net>", command: "RCPT", reason: "userunknown"},
		{diag: "550 No such recipient here", command: "RCPT", reason: "userunknown"},
		{diag: "550 Invalid mailbox: bo@example.net", command: "RCPT", reason: "userunknown"},
		{diag: "550 vdeliver: Invalid or unknown virtual user 'cy'", command: "RCPT", reason: "userunknown"},
		{diag: "550 no existe dicha persona", command: "RCPT", reason: "userunknown"},
		{diag: "550 nessun utente simile in questo indirizzo", command: "RCPT", reason: "userunknown"},
		{diag: "550 User (dee@example.net) unknown", command: "RCPT", reason: "userunknown"},
		{diag: "550 Recipient dee@example.net was not found in our directory", command: "RCPT", reason: "userunknown"},
		{diag: "550 The user's email name is not found.", command: "RCPT", reason: "userunknown"},
		{diag: "550 No mail box available for this user", command: "RCPT", reason: "userunknown"},
		{diag: "550 sorry, your envelope recipient has been denied", command: "RCPT", reason: "userunknown"},
		{diag: "550 this recipient is in my badrecipientto list", command: "RCPT", reason: "userunknown"},
		{diag: "550 Recipient address rejected: userunknown", command: "RCPT", reason: "userunknown"},
		{diag: "550 This email address is wrong or no longer valid", command: "RCPT", reason: "userunknown"},
		// mailboxfull.
		{diag: "552 Recipient reached disk quota", reason: "mailboxfull"},
		{diag: "552 user has too many messages on the server", reason: "mailboxfull"},
		{diag: "552 The user's space has been used up.", reason: "mailboxfull"},
		{diag: "452 account is temporarily over quota", reason: "mailboxfull"},
		{diag: "552 Delivery failed: Over quota", reason: "mailboxfull"},
		{diag: "452 Mailbox would exceed maximum allowed storage", reason: "mailboxfull"},
		{diag: "552 Too much mail data", reason: "mailboxfull"},
		{diag: "552 not enough storage space in the mailbox of fred@example.net", reason: "mailboxfull"},
		{diag: "452 user is over the quota. You can try again later.", reason: "mailboxfull"},
		{diag: "552 mailbox exceeded the local limit", reason: "mailboxfull"},
		{diag: "write error: No space left on device", reason: "mailboxfull"},
		// mesgtoobig and exceedlimit.
		{diag: "552 Message length exceeds administrative limit", reason: "mesgtoobig"},
		{diag: "552 message file too big", reason: "mesgtoobig"},
		{diag: "552 max message size exceeded", reason: "mesgtoobig"},
		{diag: "552 Message size exceeds fixed maximum message size: 10485760", reason: "mesgtoobig"},
		{diag: "552 Taille limite du message atteinte", reason: "mesgtoobig"},
		{diag: "552 5.2.3 Message header size exceeds limit", status: "5.2.3", reason: "exceedlimit"},
		{diag: "552 Message header size exceeds limit", reason: "exceedlimit"},
		// mailererror.
		{diag: "554 command failed: /usr/local/bin/sorter exited with status 1", reason: "mailererror"},
		// suspend.
		{diag: "554 Sorry, your message to gail@example.net cannot be delivered. This mailbox is disabled (554.30)", reason: "suspend"},
		{diag: "550 Mailbox currently suspended - contact the postmaster", reason: "suspend"},
		{diag: "550 Recipient rejected: Temporarily inactive", reason: "suspend"},
		{diag: "550 This account has been disabled or discontinued", reason: "suspend"},
		{diag: "550 Your account has been temporarily suspended", reason: "suspend"},
		{diag: "550 5.2.1 Mailbox is temporarily suspended by its owner", reason: "suspend"},
		{diag: "550 hal@example.net is a deactivated mailbox", reason: "suspend"},
		{diag: "550 ida@example.net is unavailable: user is terminated", reason: "suspend"},
		{diag: "550 vdelivermail: account is locked email bounced", reason: "suspend"},
		{diag: "550 Boite du destinataire archivee. Archived recipient.", command: "RCPT", reason: "suspend"},
		{diag: "550 5.1.1 archived recipient", status: "5.1.1", command: "RCPT", reason: "suspend"},
		// hasmoved.
		{diag: "550 5.1.6 jo@example.net has been replaced by jo@example.org", reason: "hasmoved"},
		// hostunknown.
		{diag: "550 5.1.2 Domain mentioned in email address is unknown", reason: "hostunknown"},
		{diag: "550 Recipient domain must exist", reason: "hostunknown"},
		{diag: "553 mail.example.invalid does not exist", command: "DATA", reason: "hostunknown"},
		{diag: "all relevant MX records point to non-existent hosts", reason: "hostunknown"},
		{diag: "all host address lookups failed permanently", reason: "hostunknown"},
		{diag: "Sorry, I couldn't find any host named example.invalid. (#5.1.2)", reason: "hostunknown"},
		{diag: "550 Recipient address rejected: unknown domain name", reason: "hostunknown"},
		// notaccept.
		{diag: "Sorry, I couldn't find a mail exchanger or IP address. (#5.4.4)", status: "5.4.4", reason: "notaccept"},
		{diag: "No MX records found for domain example.invalid", reason: "notaccept"},
		{diag: "an MX or SRV record indicated no SMTP service", reason: "notaccept"},
		{diag: "no host found for existing SMTP connection", reason: "notaccept"},
		// networkerror.
		{diag: "Unrouteable mail domain example.org", reason: "networkerror"},
		{diag: "554 Message probably in a routing loop", reason: "networkerror"},
		{diag: "554 Hop count exceeded - possible mail loop", reason: "networkerror"},
		{diag: "DNS records for the destination computer could not be found", reason: "networkerror"},
		// expired.
		{diag: "I'm not going to try again; this message has been in the queue too long.", reason: "expired"},
		// qmail names the last error before the expiry: that error is the cause.
		{diag: "Sorry, I wasn't able to establish an SMTP connection. (#4.4.1) I'm not going to try again; this message has been in the queue too long.", reason: "networkerror"},
		{diag: "Unable to contact LDAP server. (#4.4.3) I'm not going to try again; this message has been in the queue too long.", status: "4.4.3", reason: "systemerror"},
		{diag: "Message expired after sitting in queue for 5 days", reason: "expired"},
		{diag: "Your message could not be delivered for more than 3 days", reason: "expired"},
		{diag: "It has not been collected after 7 days", reason: "expired"},
		{diag: "retry timeout exceeded", reason: "expired"},
		// systemerror.
		{diag: "451 Local configuration error", reason: "systemerror"},
		{diag: "451 Remote server is misconfigured", reason: "systemerror"},
		{diag: "451 Aliasing/forwarding loop broken", reason: "systemerror"},
		{diag: "451 Recipient deferred because there is no Mdb", reason: "systemerror"},
		{diag: "delivery to pipe forbidden", reason: "systemerror"},
		{diag: "451 Could not load DRD for domain example.net", reason: "systemerror"},
		// systemfull.
		{diag: "452 mail system full", reason: "systemfull"},
		// toomanyconn and speeding.
		{diag: "421 Too many concurrent SMTP connections from this IP address", reason: "toomanyconn"},
		{diag: "552 too many recipients", reason: "toomanyconn"},
		{diag: "421 Please try again slower", reason: "speeding"},
		{diag: "451 The user is receiving mail at a rate that prevents additional messages from being delivered", reason: "speeding"},
		// blocked.
		{diag: "554 Sorry, your remotehost looks suspiciously like spammer", reason: "blocked"},
		{diag: "421 esmtp not accepting connections", reason: "blocked"},
		{diag: "550 we do not accept mail from dynamic IPs", reason: "blocked"},
		{diag: "554 rejected - multi-blacklist", reason: "blocked"},
		{diag: "550 Your IP address is listed in the RBL", reason: "blocked"},
		{diag: "550 Dynamic/zombied/spam IPs blocked", reason: "blocked"},
		{diag: "550 Extreme bad ip profile", reason: "blocked"},
		{diag: "554 Server IP 192.0.2.3 listed as abusive", reason: "blocked"},
		// rejected (the envelope sender).
		{diag: "553 sorry, your envelope sender is in my badmailfrom list", reason: "rejected"},
		{diag: "550 Backscatter protection detected an invalid or expired email address", reason: "rejected"},
		{diag: "550 Empty envelope senders not allowed", reason: "rejected"},
		{diag: "550 Fully qualified email address required", reason: "rejected"},
		{diag: "550 Emetteur invalide. Invalid Sender.", reason: "rejected"},
		{diag: "550 error: no third-party DSNs", reason: "rejected"},
		// spamdetected.
		{diag: "554 5.7.1 Message considered as spam or virus", reason: "spamdetected"},
		{diag: "554 rejected: SpamAssassin score 12.3", reason: "spamdetected"},
		{diag: "550 This message was classified as SPAM", reason: "spamdetected"},
		{diag: "554 Message refused by MailMarshal SpamProfiler", reason: "spamdetected"},
		{diag: "550 high probability of spam", reason: "spamdetected"},
		{diag: "554 Transaction failed spam message not queued", reason: "spamdetected"},
		{diag: "550 Mail content denied", reason: "spamdetected"},
		// virusdetected.
		{diag: "550 Virus detected in the message", reason: "virusdetected"},
		{diag: "550 Your message was infected with a virus", reason: "virusdetected"},
		// policyviolation.
		{diag: "550 Because the recipient is not accepting mail with attachments", reason: "policyviolation"},
		{diag: "550 You have exceeded the allowable number of posts without solving a captcha", reason: "policyviolation"},
		{diag: "554 Message rejected due to local policy", reason: "policyviolation"},
		// authfailure.
		{diag: "550 5.7.1 SPF check: fail", reason: "authfailure"},
		{diag: "550 Please inspect your SPF settings", reason: "authfailure"},
		{diag: "550 bad SPF records for example.org", reason: "authfailure"},
		// requireptr.
		{diag: "450 4.7.1 Client host rejected: cannot find your hostname, [192.0.2.3]", reason: "requireptr"},
		{diag: "550 Access denied. IP name lookup failed [192.0.2.3]", reason: "requireptr"},
		{diag: "554 We do not accept mail from IPs with missing PTR records", reason: "requireptr"},
		// securityerror.
		{diag: "554 Unauthenticated senders not allowed", reason: "securityerror"},
		{diag: "535 Authentication credentials invalid", reason: "securityerror"},
		// failedstarttls.
		{diag: "530 Must issue a STARTTLS command first", reason: "failedstarttls"},
		// contenterror.
		{diag: "554 Message header size, or recipient list, exceeds policy limit", reason: "contenterror"},
		{diag: "554 Message mime complexity exceeds the policy maximum", reason: "contenterror"},
		{diag: "554 This message contain invalid MIME headers", reason: "contenterror"},
		{diag: "Too many \"Received\" headers - suspected mail loop", reason: "contenterror"},
		// syntaxerror.
		{diag: "501 Syntax error in parameters or arguments", reason: "syntaxerror"},
		{diag: "503 Bad sequence of commands", reason: "syntaxerror"},
		// filtered (a restriction of the recipient).
		{diag: "550 Message rejected due to user rules", reason: "filtered"},
		{diag: "550 Recipient id refuse to receive mail", reason: "filtered"},
		{diag: "550 Refused due to recipient preferences", reason: "filtered"},
		{diag: "550 The recipient has restricted SMS e-mail", reason: "filtered"},
		// norelaying.
		{diag: "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", reason: "norelaying"},
		{diag: "550 This system is not configured to relay mail", reason: "norelaying"},
		{diag: "550 we don't handle mail for example.net", reason: "norelaying"},
		{diag: "550 not an open relay, so get lost", reason: "norelaying"},
		{diag: "550 could not connect and send the mail to mx.example.net", reason: "networkerror"},
		{diag: "550 It has a potentially executable attachment", reason: "virusdetected"},
		// The delivery agents' own words (Exim, qmail, qmail-ldap, OpenSMTPD,
		// Courier, Domino, IMail, EZweb).
		{diag: "Message 1a2b3c-000abc-XY has been frozen", reason: "expired"},
		{diag: "Sorry. Although I'm listed as a best-preference MX or A for that host, it isn't in my control/locals file", reason: "networkerror"},
		{diag: "DNS lookup failed.", reason: "networkerror"},
		{diag: "Temporary failure in MX lookup", reason: "networkerror"},
		{diag: "No valid route to remote MX", reason: "networkerror"},
		{diag: "Destination seem to reject all mails", reason: "notaccept"},
		{diag: "Could not retrieve credentials", reason: "securityerror"},
		{diag: "Mailaddress is administrativly disabled. (#5.2.1)", reason: "suspend"},
		{diag: "The message exeeded the maximum size the user accepts", reason: "exceedlimit"},
		{diag: "Temporary failure in LDAP lookup. (#4.4.3)", reason: "systemerror"},
		{diag: "This domain's DNS violates RFC 1035.", reason: "systemerror"},
		{diag: "xena/Example is not listed in Domino Directory", reason: "userunknown"},
		{diag: "Cannot route mail to user (yuri@example.net)", reason: "filtered"},
		{diag: "Several matches found in Domino Directory", reason: "systemerror"},
		{diag: "User mailbox exceeds allowed size: zoe@example.net", reason: "mailboxfull"},
		{diag: "The user(s) account is temporarily limited.", reason: "suspend"},
		{diag: "The number of messages in recipient's mailbox exceeded the local limit.", reason: "mailboxfull"},
		{diag: "550 Your message has been temporarily blocked by our filter", reason: "spamdetected"},
		{diag: "554 Message given low priority", reason: "policyviolation"},
		{diag: "550 The address you sent from is not subscribed to this group", reason: "policyviolation"},
		{diag: "550 Mailfrom domain is listed in Spamhaus", reason: "rejected"},
		{diag: "550 RFC 1035 violation: recursive CNAME records for example.org", reason: "rejected"},
		{diag: "550 Invalid IP for sending mail of domain example.org", reason: "blocked"},
		{diag: "552 User has exceeded quota, bouncing mail", reason: "mailboxfull"},
		{diag: "554 Account not subscribed to SES", reason: "securityerror"},
		{diag: "Giving up on 192.0.2.13.", reason: "expired"},
		// suppressed.
		{diag: "Amazon SES has suppressed sending to this address because it has a recent history of bouncing as an invalid address.", reason: "suppressed"},
	})
}

// TestStatusFallbacks checks the codes that name no reason by themselves.
func TestStatusFallbacks(t *testing.T) {
	checkFamilies(t, []family{
		// X.7: a security or policy status whose words say nothing more.
		{diag: "550 5.7.1 Access denied", status: "5.7.1", reason: "securityerror"},
		{diag: "554 5.7.0 Not accepted here", status: "5.7.0", reason: "securityerror"},
		// ... but "go away" is one of Sisimai's blocked phrases.
		{diag: "554 5.7.0 Go away", status: "5.7.0", reason: "blocked"},
		{diag: "550 5.7.16 Message is too big for the specified priority", status: "5.7.16", reason: "mesgtoobig"},
		{diag: "550 5.7.17 Mailbox owner has changed", status: "5.7.17", reason: "hasmoved"},
		{diag: "550 5.7.18 Domain owner has changed", status: "5.7.18", reason: "hasmoved"},
		// X.3: 5.3.0 is systemerror in Sisimai's code table; 4.3.0 is
		// commented out there: the words decide first, then the
		// subject's default.
		{diag: "Error 5.3.0 in the mail system", status: "5.3.0", reason: "systemerror"},
		{diag: "4.3.0 Please try again", status: "4.3.0", reason: "systemerror"},
		{diag: "451 4.3.0 Temporary lookup failure", status: "4.3.0", reason: "networkerror"},
	})
}

// TestPostfixDeliverySuspendedIsNoSuspendedAccount: Postfix's queue manager
// writes "delivery temporarily suspended: <cause>" when it stops trying a
// destination for a while; the cause that follows decides, never suspend.
func TestPostfixDeliverySuspendedIsNoSuspendedAccount(t *testing.T) {
	e := builtin(t)
	for _, d := range []string{
		"delivery temporarily suspended: connect to mx.example.net[192.0.2.7]:25: Connection refused",
		"delivery temporarily suspended: host mx.example.net[192.0.2.7] refused to talk to me: 421 Service not available",
		"delivery temporarily suspended: lost connection with mx.example.net[192.0.2.7] while receiving the initial server greeting",
		"delivery temporarily suspended: conversation with mx.example.net[192.0.2.7] timed out while receiving the initial server greeting",
	} {
		for _, action := range []smtpcode.Action{smtpcode.ActionFailed, smtpcode.ActionDelayed} {
			if v := e.Classify(Input{Action: action, Diagnostic: d}); v.Reason == ReasonSuspend || v.Reason == ReasonUndefined {
				t.Errorf("%s %q: %s (rule %s), want the cause it names", action, d, v.Reason, v.Rule)
			}
		}
	}
}

// TestDiagnosticTypeXUnix: a Diagnostic-Code of type X-Unix (RFC 3464
// section 2.3.6) is a local delivery program's error: mailererror when no
// code of Sisimai's table or phrase decided (4.3.0 is not in it, 5.3.0 is).
func TestDiagnosticTypeXUnix(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		in   Input
		want Reason
	}{
		{Input{Action: "failed", Status: "4.3.0", Diagnostic: "temporary failure", DiagnosticType: "x-unix"}, ReasonMailerError},
		{Input{Action: "failed", Status: "5.0.0", Diagnostic: "exit 75", DiagnosticType: "X-Unix"}, ReasonMailerError},
		{Input{Action: "failed", Status: "4.3.0", Diagnostic: "temporary failure", DiagnosticType: "smtp"}, ReasonSystemError},
		{Input{Action: "failed", Status: "5.3.0", Diagnostic: "temporary failure", DiagnosticType: "x-unix"}, ReasonSystemError},
	}
	for _, tc := range tests {
		if v := e.Classify(tc.in); v.Reason != tc.want {
			t.Errorf("%+v: %s (rule %s), want %s", tc.in, v.Reason, v.Rule, tc.want)
		}
	}
}

// TestHostTables checks the host-specific tables: the same words or codes
// mean one reason at one large receiver.
func TestHostTables(t *testing.T) {
	checkFamilies(t, []family{
		// KDDI (au): the address in angle brackets is a missing mailbox; an empty
		// address is the recipient's own filter.
		{diag: "550 <nana@ezweb.ne.jp>: User unknown", mta: "mx.ezweb.ne.jp", reason: "userunknown"},
		{diag: "550 : User unknown", mta: "mx.ezweb.ne.jp", reason: "filtered"},
		// NTT docomo refuses a sender the recipient's filter rejects with
		// "unknown user" after DATA.
		{diag: "550 Unknown user olga@docomo.example.jp", status: "5.0.0", command: "DATA", mta: "mfsmax.docomo.ne.jp", reason: "rejected"},
		{diag: "550 Unknown user olga@docomo.example.jp", status: "5.2.0", mta: "mfsmax.docomo.ne.jp", reason: "filtered"},
		// Orange / La Poste: the code after LPN/OFR decides.
		{diag: "550 5.5.0 Adresse destinataire invalide. Invalid recipient. LPN007_416", status: "5.5.0", reason: "userunknown"},
		{diag: "550 5.2.0 Mail rejete. Mail rejected. OFR_506 [506]", status: "5.2.0", reason: "spamdetected"},
		{diag: "421 4.2.0 Service refuse. Veuillez essayer plus tard. Service refused, please try later. OFR005_505 [505]", status: "4.2.0", reason: "systemerror"},
		{diag: "554 5.7.1 <relay.example.net[192.0.2.4]:40000>: Client host rejected: #216 lpn LPN000_630", status: "5.7.1", reason: "policyviolation"},
		{diag: "552 5.1.1 Boite du destinataire pleine. Recipient overquota. OFR_417", status: "5.1.1", reason: "mailboxfull"},
		{diag: "550 5.5.0 Le compte du destinataire est bloque. The recipient account is blocked. LPN007_426", status: "5.5.0", reason: "suspend"},
		{diag: "421 Service refuse. Veuillez essayer plus tard. LPN001_103", reason: "blocked"},
		{diag: "421 Trop de connexions, ralentissez. Too many connections, slow down. LPN105_104", reason: "toomanyconn"},
		// Gmail's own failures to deliver, with its "(state N)".
		{diag: "550 550 5.7.1 <pia@example.net>... Access denied (state 13).", status: "5.7.1", reason: "securityerror"},
		{diag: "554 554 5.7.0 Header error (state 18).", status: "5.7.0", reason: "filtered"},
		{diag: "550 550 5.7.1 Access denied (state 17).", status: "5.7.1", reason: "filtered"},
		// Yahoo: "dd" replies.
		{diag: "554 delivery error: dd This user doesn't have a yahoo.com account (quin@yahoo.example) [0] - mta1.mail.example", status: "5.0.0", reason: "userunknown"},
		{diag: "554 delivery error: dd Sorry your message to rae@yahoo.example cannot be delivered. This account has been disabled or discontinued [#102].", reason: "suspend"},
		{diag: "421 4.7.0 [TSS04] Messages from 192.0.2.8 temporarily deferred due to unexpected volume or user complaints", status: "4.7.0", mta: "mta5.am0.yahoodns.net", reason: "rejected"},
		// Spectrum (Charter): AUP codes.
		{diag: "550 5.1.0 <sid@example.org> sender rejected. Please see the error code page. AUP#In-1310", status: "5.1.0", reason: "toomanyconn"},
		// Cox: codes in the reply.
		{diag: "554 5.7.1 Connection refused - CXBL - see the Cox error codes page", reason: "blocked"},
		{diag: "550 5.7.1 IPBL1000 192.0.2.10 is listed", reason: "blocked"},
		{diag: "421 4.7.1 CXDNS the connecting IP has no valid DNS", reason: "requireptr"},
		{diag: "550 5.1.0 CXSNDR sender domain refused", reason: "authfailure"},
		{diag: "421 4.7.0 CXCNCT too many connections", reason: "toomanyconn"},
		{diag: "452 4.2.0 CXMXRT too many messages for the period", reason: "toomanyconn"},
		{diag: "554 5.7.1 URLBL011 the message holds a listed URL", reason: "spamdetected"},
		// AOL: a domain without mail service.
		{diag: "Host or domain name not found. Name service error for name=example.invalid type=MX: Malformed or unexpected name server reply", mta: "mailin-01.mx.aol.com", reason: "notaccept"},
		// MessageLabs: "542 <addr> Rejected".
		{diag: "542 ulla@example.org Rejected", status: "5.0.0", mta: "server-9.tower-1.messagelabs.com", reason: "userunknown"},
		// Apple (iCloud).
		{diag: "421 4.7.1 Messages to vera@icloud.example deferred due to excessive volume. Try again later", reason: "speeding"},
		{diag: "554 5.7.1 [HME1] This message was blocked for failing both SPF and DKIM authentication checks", reason: "authfailure"},
		{diag: "550 5.1.6 recipient no longer on server: walt@icloud.example", reason: "hasmoved"},
		// Google.
		{diag: "450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time.", reason: "speeding"},
		{diag: "535 5.7.1 Username and Password not accepted.", reason: "securityerror"},
		{diag: "550 5.7.26 This message does not have authentication information or fails to pass authentication checks (SPF or DKIM).", reason: "authfailure"},
		{diag: "421 4.7.0 [192.0.2.14] IP not in whitelist for RCPT domain, closing connection.", status: "4.7.0", reason: "blocked"},
		{diag: "552 5.3.4 Your message exceeded Google's message size limits.", reason: "mesgtoobig"},
		{diag: "550 5.7.1 Daily SMTP relay limit exceeded for user.", status: "5.7.1", reason: "speeding"},
		{diag: "550 5.7.1 Email quota exceeded.", status: "5.7.1", reason: "mailboxfull"},
		{diag: "550 5.7.0 Mail Sending denied.", status: "5.7.0", mta: "gmail-smtp-in.l.google.com", reason: "rejected"},
		{diag: "454 4.7.0 Too many login attempts, please try again later.", status: "4.7.0", reason: "securityerror"},
		{diag: "452 4.5.3 Domain policy size per transaction exceeded, please try this recipient in a separate transaction.", status: "4.5.3", reason: "toomanyconn"},
		// Zoho.
		{diag: "550 5.7.1 Email rejected per SPF policy - example.org", reason: "authfailure"},
		// Exchange 2000/2003 error codes.
		{diag: "The recipient name is not recognized MSEXCH:IMS:Example:Site:SRV1 0 (000C05A6) Unknown Recipient", reason: "userunknown"},
		{diag: "MSEXCH:IMS:Example:Site:SRV1 0 (000C0595) Ambiguous Recipient", reason: "filtered"},
		{diag: "MSEXCH:IMS:Example:Site:SRV1 0 (00120270) Too Many Hops", reason: "networkerror"},
		// ... where the code only says "the remote server refused", the words
		// decide, and without them the cause is undecided.
		{diag: "MSEXCH:IMS:Example:Site:SRV1 0 (000B09AA) Unable to relay for amy@example.net", reason: "norelaying"},
		{diag: "MSEXCH:IMS:Example:Site:SRV1 0 (000B09B6) Error messages by remote MTA", reason: "onhold"},
		// Facebook's codes.
		{diag: "550 5.1.1 RCP-P1 The attempted recipient address does not exist", reason: "userunknown"},
		{diag: "550 5.7.1 RCP-P2 The attempted recipient's preferences prevent messages from being delivered", reason: "filtered"},
		{diag: "421 4.7.1 CON-T3 Your mail server opened too many new connections in a short time", reason: "toomanyconn"},
		{diag: "550 5.2.1 RCP-T4 The attempted recipient address is currently deactivated", reason: "suspend"},
		{diag: "554 5.6.0 MSG-P1 The message exceeds the maximum allowed size", reason: "mesgtoobig"},
		// Outlook.com / Hotmail policy codes for the sending IP.
		{diag: "550 SC-001 (EXAMPLE-MC1) Unfortunately, mail was rejected for policy reasons. Please contact your Internet service provider.", reason: "blocked"},
		{diag: "550 DY-001 (EXAMPLE-MC2) Mail rejected for policy reasons. We generally do not accept email from dynamic IPs.", reason: "blocked"},
		// AOL.
		{diag: "421 4.7.1 : (DYN:T1) https://postmaster.example/errors/421dynt1.html", reason: "blocked"},
		{diag: "421 4.7.1 : (DNS:NR) https://postmaster.example/errors/421dnsnr.html", reason: "requireptr"},
		// Yahoo [TS0x].
		{diag: "421 4.7.0 [TS01] Messages from 192.0.2.11 temporarily deferred due to user complaints", reason: "blocked"},
		{diag: "421 4.7.0 [TS03] All messages from 192.0.2.11 will be permanently deferred; Retrying will NOT succeed.", reason: "blocked"},
		// Google: content judged suspicious.
		{diag: "421 4.7.0 [192.0.2.12] Our system has detected that this message is suspicious due to the nature of the content and/or the links within.", reason: "spamdetected"},
		// Exchange 2007 and later: the name after the code.
		{diag: "554 5.4.4 SMTPSEND.DNS.NonExistentDomain; nonexistent domain", status: "5.4.4", reason: "hostunknown"},
		{diag: "554 5.4.4 SMTPSEND.DNS.MxLoopback; DNS config error", status: "5.4.4", reason: "networkerror"},
		{diag: "550 5.1.4 RESOLVER.ADR.Ambiguous; ambiguous address", status: "5.1.4", reason: "systemerror"},
		{diag: "550 5.2.3 RESOLVER.RST.RecipSizeLimit; message too large for this recipient", status: "5.3.4", reason: "exceedlimit"},
		{diag: "550 5.5.3 RESOLVER.ADR.RecipLimit; too many recipients", status: "5.5.3", reason: "toomanyconn"},
		// Exchange Online's own x.4.3xx codes.
		{diag: "550 5.4.316 Message expired, connection refused(Socket error code 10061)", status: "5.4.316", reason: "expired"},
		{diag: "451 4.4.312 DNS query failed", status: "4.4.312", reason: "networkerror"},
		{diag: "550 5.4.310 DNS domain example.invalid does not exist", status: "5.4.310", reason: "hostunknown"},
		// Tencent (QQ).
		{diag: "550 Connection frequency limited [192.0.2.9]", reason: "toomanyconn"},
		{diag: "550 Ip frequency limited [192.0.2.9]", mta: "mx3.qq.com", reason: "toomanyconn"},
		{diag: "550 Mailbox unavailable or access denied", mta: "mx3.qq.com", reason: "speeding"},
		{diag: "550 Mailbox unavailable or access denied", mta: "mx.example.net", reason: "suspend"},
		{diag: "550 Suspected spam ip [192.0.2.9]", mta: "mx3.qq.com", reason: "blocked"},
		{diag: "550 Mail is rejected by recipients", mta: "mx3.qq.com", reason: "rejected"},
		{diag: "550 Mailbox not found or access denied", command: "RCPT", reason: "userunknown"},
	})
}
