package rules

import (
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// TestDelayCausedByTLSDoesNotFixItself: a delay whose cause is the
// receiving side's TLS configuration (a certificate that fails
// verification, STARTTLS refused) keeps the recipient's admin as owner and
// says that waiting will likely not help.
func TestDelayCausedByTLSDoesNotFixItself(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{"delay-tls-cert-01.eml", "delay-tls-refused-01.eml"} {
		rd := explainFixture(t, e, file)
		if rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: owner %s, want %s", file, rd.Owner, OwnerRecipientAdmin)
		}
		if !strings.Contains(rd.Fix, "will likely not fix itself") || strings.Contains(rd.Fix, "Nothing to do yet") {
			t.Errorf("%s: the fix does not say the delay will not fix itself: %s", file, rd.Fix)
		}
		if !strings.Contains(rd.Explanation, "keeps trying") {
			t.Errorf("%s: the explanation does not say it is a delay: %s", file, rd.Explanation)
		}
	}
}

// TestRelayDeniedDelayDoesNotFixItself: a temporary relay refusal
// (Postfix defer_unauth_destination: 454 4.7.1) by the recipient's server
// (a host of the recipient's domain, relayside.go) is its configuration,
// which retries do not change.
func TestRelayDeniedDelayDoesNotFixItself(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.7.1", RemoteMTA: "mx.example.net", Command: "RCPT",
		Recipient: "bo@example.net", Diagnostic: "454 4.7.1 <bo@example.net>: Relay access denied"})
	if v.Reason != ReasonNoRelaying || v.Owner != OwnerRecipientAdmin || !strings.Contains(v.Fix, "will likely not fix itself") {
		t.Errorf("reason %s owner %s fix %q: want norelaying, the recipient's admin, and a fix saying waiting will not help", v.Reason, v.Owner, v.Fix)
	}
}

// TestOrdinaryDelayStaysTemporary: a delay for a cause that passes by
// itself (greylisting, a reply that names no cause) stays nobody's, with
// nothing to do yet.
func TestOrdinaryDelayStaysTemporary(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "delay-attempt-error-03.eml") // greylisted
	if rd.Owner != OwnerNone || !strings.Contains(rd.Fix, "Nothing to do") {
		t.Errorf("delay-attempt-error-03.eml: owner %s fix %q: want nobody and nothing to do yet", rd.Owner, rd.Fix)
	}
	v := e.Classify(Input{Action: "delayed", Status: "4.0.0", RemoteMTA: "mx.example.net", Recipient: "bo@example.net",
		Diagnostic: "host mx.example.net[192.0.2.1] said: 451 try again later (in reply to RCPT TO command)"})
	if v.Owner != OwnerNone || !strings.Contains(v.Fix, "Nothing to do yet") {
		t.Errorf("try again later: owner %s fix %q: want nobody and nothing to do yet", v.Owner, v.Fix)
	}
}

// TestFullMailboxDelayWaitsForTheRecipient: a delay because the
// recipient's mailbox is full gets through only once the recipient makes
// room (RFC 3463 X.2.2): the recipient is named, the fix says to tell
// them and not to send again; the sending server still keeps trying.
func TestFullMailboxDelayWaitsForTheRecipient(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.2.2", RemoteMTA: "mx.example.net",
		Diagnostic: "452 4.2.2 <bo@example.net>: Mailbox full"})
	if v.Owner != OwnerRecipient || !strings.Contains(v.Fix, "Tell the recipient") ||
		!strings.Contains(v.Fix, "do not send the message again") || !strings.Contains(v.Fix, "keeps trying") {
		t.Errorf("mailbox full delay: owner %s fix %q: want the recipient, told by other means, no second copy, the server still trying", v.Owner, v.Fix)
	}
	if v.Permanent {
		t.Errorf("mailbox full delay: permanent, want a delay")
	}
}

// TestRelayDeniedDelayFromTheSendersOwnServerIsNotTheRecipients: with no
// remote server named, a temporary relay refusal may be the sender's own
// server's: it is not said to need the recipient's admin.
func TestRelayDeniedDelayFromTheSendersOwnServerIsNotTheRecipients(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.7.1", Diagnostic: "454 4.7.1 <bo@example.net>: Relay access denied"})
	if strings.Contains(v.Fix, "will likely not fix itself") {
		t.Errorf("owner %s fix %q: want no lasting-delay fix for a refusal of unknown origin", v.Owner, v.Fix)
	}
}

// TestDelayFixSaysWhenTheSenderGivesUp: a warning's deadline is a fact
// and the fix says it: the DSN's Will-Retry-Until date first (RFC 3464
// section 2.3.9), else the notice's words (Postfix's and Sendmail's age of
// the message, Gmail's and Exchange's time left); only one of them, and
// the fix says what to do meanwhile.
func TestDelayFixSaysWhenTheSenderGivesUp(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"delay-warning-01.eml": "keeps trying until 2024-06-24 06:44 UTC,", // Sendmail: Will-Retry-Until over "until message is 5 days old"
		"delay-warning-05.eml": "keeps trying until 2024-06-28 12:21 UTC,",
		"smtpsvc-delay-01.eml": "keeps trying until 2008-09-13 03:59 UTC,",
	} {
		rd := explainFixture(t, e, file)
		if !strings.Contains(rd.Fix, want) || !strings.Contains(rd.Fix, "do not send the message again") {
			t.Errorf("%s: fix %q, want %q and what to do meanwhile", file, rd.Fix, want)
		}
		if rd.Facts.Get(FactRetryAge) != "" || rd.Facts.Get(FactRetryLeft) != "" {
			t.Errorf("%s: facts %v: a second deadline besides the date", file, rd.Facts)
		}
	}
	for notice, want := range map[string]string{
		"Your message could not be delivered for more than 4 hour(s).\nIt will be retried until it is 5 day(s) old.": "until the message is 5 days old,",
		"Warning: message still undelivered after 4 hours\nWill keep trying until message is 5 days old":             "until the message is 5 days old,",
		"There was a temporary problem delivering your message. Gmail will retry for 46 more hours.":                 "for about 46 hours more,",
		"The server will keep trying to deliver this message for the next 1 days, 19 hours and 57 minutes.":          "for about 1 day, 19 hours and 57 minutes more,",
		"Delivery is delayed. The sending server will retry for up to 2 days.":                                       "until the message is 2 days old,",
	} {
		v := e.Classify(Input{Action: "delayed", Status: "4.4.1", Diagnostic: "Connection timed out", Notice: notice})
		if !strings.Contains(v.Fix, want) {
			t.Errorf("notice %q: fix %q, want %q", notice, v.Fix, want)
		}
	}
	// No deadline stated: the fix says none.
	v := e.Classify(Input{Action: "delayed", Status: "4.4.1", Diagnostic: "Connection timed out", RetryUntil: "not a date"})
	if !strings.Contains(v.Fix, "keeps trying, and sends a final report") {
		t.Errorf("no deadline: fix %q", v.Fix)
	}
	// A final report's Will-Retry-Until is no deadline: nothing is retried.
	v = e.Classify(Input{Action: "failed", Status: "5.4.1", Diagnostic: "Connection timed out", RetryUntil: "Mon, 24 Jun 2024 08:44:51 +0200"})
	if v.Facts.Get(FactRetryUntil) != "" {
		t.Errorf("failed record: retry_until %q", v.Facts.Get(FactRetryUntil))
	}
}

// TestDeadlineInEveryLanguage: the delay fix keeps the deadline in each
// language.
func TestDeadlineInEveryLanguage(t *testing.T) {
	e := builtin(t)
	for _, tag := range []string{"de", "fr", "es", "ja"} {
		v := e.ClassifyIn(language.MustParse(tag), Input{Action: "delayed", Status: "4.4.1", Diagnostic: "Connection timed out",
			RetryUntil: "Mon, 24 Jun 2024 08:44:51 +0200"})
		if !strings.Contains(v.Fix, "2024-06-24 06:44 UTC") {
			t.Errorf("%s: fix %q lacks the deadline", tag, v.Fix)
		}
	}
}

// TestDelayReadAsExpiredSaysTheCauseSoFar: a delay that a rule without
// words for delays reads as expired (Gmail's "did not accept our requests
// to connect" in a warning, Sisimai's expired phrases) is not said to have
// been given up: its words say the cause so far, from the facts.
func TestDelayReadAsExpiredSaysTheCauseSoFar(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ diag, want string }{
		{"The recipient server did not accept our requests to connect. Learn more at https://support.google.com/mail/answer/7720 [mx.example.net. 192.0.2.7: timed out]",
			"because the receiving server mx.example.net does not answer for now"},
		{"Delivery attempts will continue to be made. connect to mx.example.net[192.0.2.1]:25: Connection refused",
			"because the receiving server mx.example.net refuses connections for now"},
		{"Message has been delayed. Temporary failure in name resolution", "the domain's name servers do not answer"},
		{"This message has been delayed, we will keep trying", "could not be reached so far, or keeps putting the message off"},
	} {
		v := e.Classify(Input{Action: "delayed", Diagnostic: c.diag, Recipient: "a@example.net"})
		if v.Reason != ReasonExpired {
			t.Errorf("%q: reason %s, want expired (the case this test is about)", c.diag, v.Reason)
			continue
		}
		if strings.Contains(v.Explanation, "gave up") || !strings.Contains(v.Explanation, c.want) {
			t.Errorf("%q: explanation %q, want %q and no \"gave up\"", c.diag, v.Explanation, c.want)
		}
		if v.Summary != "delivery delayed" {
			t.Errorf("%q: summary %q, want \"delivery delayed\"", c.diag, v.Summary)
		}
	}
	// A rule with words of its own for expiry (ms-4.4.7: Exchange Online's
	// warning carries the reporting server's 4.4.7) does not say "gave up"
	// in a warning either.
	w := e.Classify(Input{Action: "delayed", Status: "4.4.7", Diagnostic: "400 4.4.7 Message delayed", Recipient: "a@example.net"})
	if w.Rule != "ms-4.4.7" || strings.Contains(w.Explanation, "gave up") || !strings.Contains(w.Explanation, "could not be reached so far") {
		t.Errorf("Exchange Online's 4.4.7 warning: rule %q explanation %q, want ms-4.4.7 with the cause so far and no \"gave up\"", w.Rule, w.Explanation)
	}
	// A final report keeps the expiry's words.
	v := e.Classify(Input{Action: "failed", Status: "4.4.7", Diagnostic: "retry timeout exceeded", Recipient: "a@example.net"})
	if !strings.Contains(v.Explanation, "gave up") || v.Summary != "delivery timed out" {
		t.Errorf("expiry: explanation %q, summary %q: want it to say the sending server gave up", v.Explanation, v.Summary)
	}
}

// TestDurationsInTheReadersLanguage: a duration the notice states in
// English is written in the words of the translation that shows it.
func TestDurationsInTheReadersLanguage(t *testing.T) {
	for _, c := range []struct{ tag, in, want string }{
		{"de", "1 day, 19 hours and 57 minutes", "1 Tag, 19 Stunden und 57 Minuten"},
		{"de", "5 days", "5 Tage"},
		{"fr", "46 hours", "46 heures"},
		{"es", "1 day", "1 día"},
		{"ja", "1 day, 19 hours and 57 minutes", "1日19時間57分"},
		{"de", "a long time", "a long time"},
		{"en", "5 days", "5 days"},
	} {
		if got := localDuration(language.MustParse(c.tag), c.in); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.tag, c.in, got, c.want)
		}
	}
	e := builtin(t)
	v := e.ClassifyIn(language.German, Input{Action: "delayed", Status: "4.4.1", Diagnostic: "Connection timed out",
		Notice: "Your message could not be delivered for more than 4 hour(s).\nIt will be retried until it is 5 day(s) old."})
	if !strings.Contains(v.Fix, "5 Tage alt") {
		t.Errorf("German fix %q: want the deadline in German", v.Fix)
	}
}

// TestRuleOwnDelayFixGetsTheDeadline: a rule with its own words for a
// delay (greylisting, a receiver's rate limit) keeps them, and the
// deadline the report states is said after them, once.
func TestRuleOwnDelayFixGetsTheDeadline(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"greylisting-delay-01.eml":      "The sending server gives up when the message is 5 days old",
		"microsoft-throttled-ip-01.eml": "The sending server gives up at 2026-12-06 04:35 UTC",
	} {
		rd := explainFixture(t, e, file)
		if !strings.Contains(rd.Fix, want) || strings.Count(rd.Fix, "gives up") != 1 {
			t.Errorf("%s: fix %q, want %q once after the rule's own words", file, rd.Fix, want)
		}
	}
}

// TestOpenSMTPDDelayStatesItsDeadline: OpenSMTPD's delay report ("The
// message is kept in the queue for up to 4 days", smtpd/bounce.c) gives
// the age at which the sending server gives up, and the fix says it.
func TestOpenSMTPDDelayStatesItsDeadline(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Diagnostic: "Network error on destination MXs",
		Notice: "Please note that this is only a temporary failure report. The message is kept in the queue for up to 4 days. You DO NOT NEED to re-send the message to these recipients."})
	if v.Facts.Get(FactRetryAge) != "4 days" || !strings.Contains(v.Fix, "until the message is 4 days old") {
		t.Errorf("retry_age %q fix %q: want 4 days, said in the fix", v.Facts.Get(FactRetryAge), v.Fix)
	}
}

// TestProviderDeferralForVolumeNamesTheSendersAdmin: a rule written for
// delays keeps the owner it names: Yahoo's TSS04 deferral for volume or
// complaints asks the sender's admin to act while the sending server
// retries, and says not to send again; greylisting stays nobody's.
func TestProviderDeferralForVolumeNamesTheSendersAdmin(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.7.0", RemoteMTA: "mta7.am0.yahoodns.net",
		Diagnostic: "421 4.7.0 [TSS04] Messages from 203.0.113.9 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes"})
	if v.Owner != OwnerSenderAdmin || !strings.Contains(v.Fix, "Do not send the message again") || !strings.Contains(v.Explanation, "keeps trying") || v.Permanent {
		t.Errorf("Yahoo deferral: owner %s permanent %v explanation %q fix %q; want the sender's admin, a delay, no second copy", v.Owner, v.Permanent, v.Explanation, v.Fix)
	}
	g := e.Classify(Input{Action: "delayed", Status: "4.2.0", RemoteMTA: "mx.example.net", Command: "RCPT",
		Diagnostic: "450 4.2.0 <a@example.net>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.net.html"})
	if g.Owner != OwnerNone {
		t.Errorf("greylisting delay: owner %s, want nobody", g.Owner)
	}
}
