package rules

import (
	"strings"
	"testing"
)

// actionable is one reply of a family whose explanation an admin graded as
// wrong or unusable (issue 8, item 6): what the reading must say (every
// phrase of want, in the explanation or the fix), must not say (none of
// avoid), and who must act.
type actionable struct {
	name  string
	in    Input
	owner Owner
	want  []string
	avoid []string
}

func checkActionable(t *testing.T, tests []actionable) {
	t.Helper()
	e := builtin(t)
	for _, tc := range tests {
		if tc.in.Action == "" {
			tc.in.Action = "failed"
		}
		v := e.Classify(tc.in)
		words := v.Explanation + " " + v.Fix
		if v.Owner != tc.owner {
			t.Errorf("%s: owner %s (rule %s), want %s", tc.name, v.Owner, v.Rule, tc.owner)
		}
		for _, w := range tc.want {
			if !strings.Contains(words, w) {
				t.Errorf("%s: the words do not say %q (rule %s):\n%s", tc.name, w, v.Rule, words)
			}
		}
		for _, w := range tc.avoid {
			if strings.Contains(words, w) {
				t.Errorf("%s: the words say %q (rule %s):\n%s", tc.name, w, v.Rule, words)
			}
		}
		if j := jargonIn(words); len(j) > 0 {
			t.Errorf("%s: jargon %q in %q", tc.name, j, words)
		}
	}
}

// TestCauseFromTheFamilyNotTheKeyword: a word or code shared with another
// cause ("authentication required", a deferral at MAIL FROM, "MX", a
// challenge) is read with the family that says what happened.
func TestCauseFromTheFamilyNotTheKeyword(t *testing.T) {
	checkActionable(t, []actionable{
		{name: "Exchange's AuthRequired is the group's restriction to internal senders",
			in:    Input{Status: "5.7.1", Diagnostic: "550 5.7.1 RESOLVER.RST.AuthRequired; authentication required [Stage: CreateMessage]"},
			owner: OwnerGroupOwner, want: []string{"own organization", "owner"}, avoid: []string{"log in"}},
		{name: "a plain 'client was not authenticated' is still the sending system's login",
			in:    Input{Status: "5.7.1", Diagnostic: "530 5.7.1 Client was not authenticated", Command: "MAIL"},
			owner: OwnerSenderAdmin, want: []string{"log in"}},
		{name: "Yahoo's TSS04 deferral is about volume or complaints, not the sender address",
			in: Input{Action: "delayed", Status: "4.7.0", RemoteMTA: "mta7.am0.yahoodns.net", Command: "MAIL",
				Diagnostic: "421 4.7.0 [TSS04] Messages from 198.51.100.4 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes"},
			// The deferral lasts while the volume or the complaints do: the
			// sender's admin acts while the sending server retries.
			owner: OwnerSenderAdmin, want: []string{"volume", "complaints", "198.51.100.4", "keeps trying", "Do not send the message again"}, avoid: []string{"sender address"}},
		{name: "Yahoo's TSS04 deferral that expired says that the message was given up",
			in: Input{Status: "4.7.0", RemoteMTA: "mta7.am0.yahoodns.net", Command: "MAIL",
				Diagnostic: "421 4.7.0 [TSS04] Messages from 198.51.100.4 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1; see https://postmaster.yahooinc.com/error-codes"},
			owner: OwnerSenderAdmin, want: []string{"gave up", "not delivered", "volume", "Yahoo's page about its error codes"},
			avoid: []string{"sender address", "Check that your address"}},
		{name: "MX records pointing to hosts without an address are the recipient's admin's",
			in:    Input{Diagnostic: "all relevant MX records point to non-existent hosts", Recipient: "orders@print.example"},
			owner: OwnerRecipientAdmin, want: []string{"print.example", "mail server settings"}, avoid: []string{"typo", "does not exist or"}},
		{name: "Exim's address lookups that failed for good are the same broken settings",
			in:    Input{Diagnostic: "all host address lookups failed permanently", Recipient: "info@half.example"},
			owner: OwnerRecipientAdmin, want: []string{"mail server settings"}},
	})
	e := builtin(t)
	if v := e.Classify(Input{Action: "failed", Diagnostic: "all relevant MX records point to non-existent hosts"}); v.HardBounce || v.Reason != ReasonHostUnknown {
		t.Errorf("broken MX records: %s, hard bounce %v; want hostunknown, not a hard bounce (the address may be right)", v.Reason, v.HardBounce)
	}
}

// TestNamedThingIsKept: the specific thing the server named (a rate limit for
// unsolicited mail, the infected file) is in the words.
func TestNamedThingIsKept(t *testing.T) {
	checkActionable(t, []actionable{
		{name: "Gmail's rate limit for unsolicited mail, still retried, is the sender's admin's if it lasts",
			in: Input{Action: "delayed", Status: "4.7.28", RemoteMTA: "gmail-smtp-in.l.google.com", Command: "DATA",
				Diagnostic: "421 4.7.28 Gmail has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited. For more information, go to https://support.google.com/mail/?p=UnsolicitedRateLimitError"},
			owner: OwnerSenderAdmin, want: []string{"unusual rate of unsolicited mail", "sender guidelines", "https://support.google.com/mail/?p=UnsolicitedRateLimitError", "do not send the message again"},
			avoid: []string{"blocks the sending server"}},
		{name: "Gmail's block for unsolicited mail",
			in: Input{Status: "5.7.28", RemoteMTA: "aspmx.l.google.com", Command: "DATA",
				Diagnostic: "550 5.7.28 There is an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been blocked."},
			owner: OwnerSenderAdmin, want: []string{"unusual rate of unsolicited mail", "reputation", "sender guidelines"}},
		{name: "a virus in a named file: the file and the malware, and no way around the scanner",
			in: Input{Status: "5.7.1", Command: "DATA",
				Diagnostic: "550 5.7.1 Message rejected: virus found: Doc.Dropper.Agent-6334101 in file offer_letter.docm"},
			owner: OwnerSender, want: []string{"offer_letter.docm", "Doc.Dropper.Agent-6334101", "do not send it again in any other way", "false alarm"},
			avoid: []string{"share it another way", "shared folder"}},
		{name: "amavisd-new's INFECTED verdict is a virus",
			in:    Input{Status: "5.7.0", Command: "DATA", Diagnostic: "554 5.7.0 Reject, id=21977-14 - INFECTED: Doc.Downloader.Emotet-7580152-0"},
			owner: OwnerSender, want: []string{"Doc.Downloader.Emotet-7580152-0", "scanned"}, avoid: []string{"shared folder"}},
	})
	e := builtin(t)
	if v := e.Classify(Input{Action: "failed", Status: "5.7.0", Diagnostic: "554 5.7.0 Reject, id=21977-14 - INFECTED: Doc.Downloader.Emotet-7580152-0"}); v.Reason != ReasonVirusDetected {
		t.Errorf("amavisd-new's INFECTED: reason %s (rule %s), want virusdetected", v.Reason, v.Rule)
	}
}

// TestNoFactTheServerDidNotGive: a fact is captured only from words that say
// it: "retry timeout" is no connection timeout; a block list is called by its
// name, not by the host of a link.
func TestNoFactTheServerDidNotGive(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Diagnostic: "retry timeout exceeded"})
	if got := v.Facts.Get(FactConnTimeout); got != "" {
		t.Errorf("Exim's retry timeout read as a connection timeout: %q", got)
	}
	if strings.Contains(v.Explanation, "never answered") {
		t.Errorf("retry timeout: %q says the server never answered", v.Explanation)
	}
	for _, d := range []string{"connect to mx.farm.example[192.0.2.8]:25: Connection timed out",
		"SMTP timeout while connected to mx.farm.example", "timeout waiting for greeting from mx.farm.example"} {
		if e.Classify(Input{Action: "failed", Diagnostic: d}).Facts.Get(FactConnTimeout) == "" {
			t.Errorf("%q: no conn_timeout", d)
		}
	}
	v = e.Classify(Input{Action: "failed", Command: "RCPT", Diagnostic: "554 5.7.1 Service unavailable; Client host [203.0.113.25] blocked using Barracuda Reputation; https://www.barracudacentral.org/reputation?ip=203.0.113.25"})
	if got := v.Facts.Get(FactList); got != "Barracuda Reputation" {
		t.Errorf("Barracuda's list: %q, want \"Barracuda Reputation\"", got)
	}
	v = e.Classify(Input{Action: "failed", Command: "MAIL", RemoteMTA: "mta6.am0.yahoodns.net",
		Diagnostic: "553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.25, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes"})
	if strings.Contains(v.Fix, "Spamhaus (https://postmaster.yahooinc.com") || !strings.Contains(v.Fix, "Yahoo's page about its error codes: https://postmaster.yahooinc.com/error-codes") {
		t.Errorf("Yahoo's page shown as the Spamhaus look-up: %q", v.Fix)
	}
}

// TestUnrecognisedTextFamilies: lines too long and a full mailbox in other
// languages are explained, not quoted back.
func TestUnrecognisedTextFamilies(t *testing.T) {
	checkActionable(t, []actionable{
		{name: "Exim's own transport refuses long lines",
			in:    Input{Status: "5.0.0", Diagnostic: "message has lines too long for transport", ReportingMTA: "out.example.org"},
			owner: OwnerSenderAdmin, want: []string{"998", "encode"}, avoid: []string{"It said"}},
	})
	e := builtin(t)
	for _, d := range []string{
		"Die Maildatei des Empfaengers hat ihre Quote ueberschritten (mail\\lk.nsf)",
		"550 Zustellung fehlgeschlagen: Postfach voll",
		"552 Quota überschritten",
		"552 Quota depasse - boite aux lettres pleine",
		"550 boîte pleine",
		"550 Buzón lleno",
		"552 casella piena",
		"552 caixa postal cheia",
		"552 quotum overschreden",
	} {
		v := e.Classify(Input{Action: "failed", Status: "5.0.0", Diagnostic: d})
		if v.Reason != ReasonMailboxFull || !strings.Contains(v.Explanation, "mailbox is full") {
			t.Errorf("%q: %s (rule %s) %q, want mailboxfull", d, v.Reason, v.Rule, v.Explanation)
		}
	}
}

// TestFixFitsTheCause: a connection that timed out is not about the
// address; a loop is fixed by the recipient's side first.
func TestFixFitsTheCause(t *testing.T) {
	checkActionable(t, []actionable{
		{name: "a connection timed out until the message expired",
			in:    Input{Status: "4.4.1", Diagnostic: "connect to mx1.valves.example[192.0.2.21]:25: Connection timed out"},
			owner: OwnerRecipientAdmin, want: []string{"mx1.valves.example", "could not be reached"}, avoid: []string{"Check the address"}},
		{name: "a forwarding loop at the recipient",
			in:    Input{Status: "5.4.6", Diagnostic: "mail forwarding loop for support@hosting.example"},
			owner: OwnerRecipientAdmin, want: []string{"their email admin", "loop again"}, avoid: []string{"Check that your own mailbox"}},
	})
}

// TestPrecedenceActionableFamilies: each rule written for the families above
// wins over the rule that read the same words before, and that rule still
// matches (doc.go, "Precedence": the vendor's words and the more specific
// phrase first).
func TestPrecedenceActionableFamilies(t *testing.T) {
	checkConflicts(t, []conflict{
		{name: "Exchange's AuthRequired code beats the generic authentication words",
			in:     Input{Status: "5.7.1", Diagnostic: "550 5.7.1 RESOLVER.RST.AuthRequired; authentication required"},
			winner: "exchange-authrequired-recipient", reason: "securityerror", loser: "not-authenticated-5.7.1", lost: "securityerror"},
		{name: "Exim's broken-MX message beats the generic words of an unknown host",
			in:     Input{Diagnostic: "all relevant MX records point to non-existent hosts"},
			winner: "exim-mx-hosts-without-address", reason: "hostunknown", loser: "host-unknown-text", lost: "hostunknown"},
		{name: "a scanner's INFECTED verdict beats amavisd-new's spam opening",
			in:     Input{Status: "5.7.0", Diagnostic: "554 5.7.0 Reject, id=21977-14 - INFECTED: Win.Test.EICAR_HDB-1"},
			winner: "virus-named-by-scanner", reason: "virusdetected", loser: "spamdetected-text", lost: "spamdetected"},
		{name: "Gmail's unsolicited-mail rate at Gmail beats the generic reading of X.7.28",
			in:     Input{Status: "5.7.28", RemoteMTA: "aspmx.l.google.com", Diagnostic: "550 5.7.28 There is an unusual rate of unsolicited mail originating from your IP address."},
			winner: "google-unsolicited-rate", reason: "blocked", loser: "spamdetected-status", lost: "spamdetected"},
		{name: "Gmail's unsolicited-mail rate in a delay has words of its own",
			in:     Input{Action: "delayed", Status: "4.7.28", RemoteMTA: "gmail-smtp-in.l.google.com", Diagnostic: "421 4.7.28 Gmail has detected an unusual rate of unsolicited mail originating from your IP address."},
			winner: "google-unsolicited-rate-delayed", reason: "blocked", loser: "google-unsolicited-rate", lost: "blocked"},
		{name: "long lines beat the class-only code",
			in:     Input{Status: "5.0.0", Diagnostic: "message has lines too long for transport"},
			winner: "lines-too-long", reason: "contenterror", loser: "rfc3463-x.0.0", lost: "undefined"},
		{name: "a full mailbox in German beats the class-only code",
			in:     Input{Status: "5.0.0", Diagnostic: "Die Maildatei des Empfaengers hat ihre Quote ueberschritten"},
			winner: "mailbox-full-languages", reason: "mailboxfull", loser: "rfc3463-x.0.0", lost: "undefined"},
	})
}

// TestRefusalThatNamesAContactSaysToUseIt: a bare 5.7.1 whose words name
// an address to write to (an organisation's own rule text: "upload
// invoices via the portal - contact ap-help@...") puts that address first
// in the fix; without one, the fix asks the recipient.
func TestRefusalThatNamesAContactSaysToUseIt(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.7.1", Command: "DATA", RemoteMTA: "mx.example.net",
		Diagnostic: "550 5.7.1 Example Foods no longer accepts invoices by email. Please upload them via the supplier portal - contact ap-help@example.net if you need an account."})
	if !strings.HasPrefix(v.Fix, "Follow what the server's words say") || !strings.Contains(v.Fix, "ap-help@example.net") {
		t.Errorf("fix %q: want the server's contact first", v.Fix)
	}
	v = e.Classify(Input{Action: "failed", Status: "5.7.1", Command: "DATA", RemoteMTA: "mx.example.net", Diagnostic: "550 5.7.1 Message refused"})
	if strings.Contains(v.Fix, "Follow what the server's words say") {
		t.Errorf("fix %q: no contact named, want the recipient asked", v.Fix)
	}
}
