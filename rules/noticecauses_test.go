package rules

import (
	"strings"
	"testing"
)

// An Exchange delay notification's summary ("400 4.4.7 Message delayed")
// is the reporting server's: the cause so far is its last attempt's reply
// (dsn/lastattempt.go), and the words say the server keeps trying, never
// that it gave up.
func TestAnExchangeDelayIsExplainedByItsLastAttemptNotItsSummary(t *testing.T) {
	e := builtin(t)
	// The owner: nobody yet for a cause that passes by itself; the
	// recipient's admin, if it persists, for a refused or unanswered
	// connection to the recipient's server (delay.go, delayedOwner).
	for _, c := range []struct {
		file, reply, words string
		owner              Owner
	}{
		{"delay-attempt-error-01.eml", "451 4.4.316 Connection refused", "refuses connections", OwnerRecipientAdmin},
		{"delay-attempt-error-02.eml", "421 4.4.2 mail.kanzlei.example connection timed out", "does not answer", OwnerRecipientAdmin},
		{"delay-attempt-error-03.eml", "450 4.2.0 <vorstand@verein.example>: Recipient address rejected: Greylisted", "greylisting", OwnerNone},
		{"delay-warning-03.eml", "441 4.4.1 Error encountered", "does not answer", OwnerNone},
	} {
		rd := explainFixture(t, e, c.file)
		if !strings.HasPrefix(rd.Recipient.Reply, c.reply) {
			t.Errorf("%s: reply %q, want the last attempt's %q", c.file, rd.Recipient.Reply, c.reply)
		}
		if !strings.Contains(rd.Explanation, c.words) || !strings.Contains(rd.Explanation, "keeps trying") && !strings.Contains(rd.Explanation, "tries again") {
			t.Errorf("%s: explanation %q, want the cause so far (%q) and that the server keeps trying", c.file, rd.Explanation, c.words)
		}
		for _, no := range []string{"gave up", "given up", "could not be delivered", "could not be reached so far, or keeps putting"} {
			if strings.Contains(rd.Explanation, no) {
				t.Errorf("%s: explanation %q says %q", c.file, rd.Explanation, no)
			}
		}
		if rd.Owner != c.owner {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, c.owner)
		}
	}
}

// Exim returns a failed pipe's own output under "The following text was
// generated during the delivery attempt": the explanation quotes it, not
// "local delivery failed", and the reading is the delivery program's
// failure, for the recipient's admin.
func TestAnEximPipeFailureQuotesTheProgramsOwnOutput(t *testing.T) {
	e := builtin(t)
	for file, quote := range map[string]string{
		"exim-pipe-output-01.eml": "ticket-import: cannot open queue database",
		"exim-pipe-output-02.eml": "Group mismatch error. Mailman expected",
	} {
		rd := explainFixture(t, e, file)
		if rd.Reason != ReasonMailerError || rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: reason %s owner %s, want mailererror for the recipient's admin", file, rd.Reason, rd.Owner)
		}
		if !strings.Contains(rd.Explanation, quote) {
			t.Errorf("%s: explanation %q, want the program's output %q", file, rd.Explanation, quote)
		}
		for _, no := range []string{"local delivery failed", "generated during the delivery attempt", "pipe to |"} {
			if strings.Contains(rd.Explanation, no) {
				t.Errorf("%s: explanation %q quotes Exim's boilerplate %q", file, rd.Explanation, no)
			}
		}
	}
}

// An encapsulated Exchange X.500 address (IMCEAEX-...) refused as unknown
// is a stale auto-complete entry: the fix is to remove it and pick the
// recipient again (and the admin's X500 address), not to check the
// spelling.
func TestAStaleExchangeX500AddressIsAnAutocompleteEntryNotATypo(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{"exchange-imceaex-01.eml", "exchange-imceaex-02.eml"} {
		rd := explainFixture(t, e, file)
		if rd.Reason != ReasonUserUnknown || rd.Owner != OwnerSender {
			t.Errorf("%s: reason %s owner %s, want userunknown for the sender", file, rd.Reason, rd.Owner)
		}
		if !strings.Contains(rd.Fix, "autocomplete") || !strings.Contains(rd.Fix, "address book") || !strings.Contains(rd.Fix, "X500") {
			t.Errorf("%s: fix %q, want the autocomplete entry removed, the recipient picked again, and the admin's X500 address", file, rd.Fix)
		}
		if strings.Contains(rd.Fix, "typo") || strings.Contains(rd.Explanation, "mistyped") {
			t.Errorf("%s: %q / %q reads a picked address as a typo", file, rd.Explanation, rd.Fix)
		}
	}
	// An ordinary unknown address keeps the words of a typo.
	rd := e.Explain(parseFixture(t, "exchange-multi-01.eml"))[0]
	if rd.Reason != ReasonUserUnknown || !strings.Contains(rd.Fix, "typo") {
		t.Errorf("exchange-multi-01.eml: %s, fix %q, want the unknown address's words", rd.Reason, rd.Fix)
	}
}
