package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestRetriedForFromEachMTAsWording checks the retried_for extractor on the
// words each MTA's notice uses for how long it tried, read from the notice
// when the diagnostic does not say.
func TestRetriedForFromEachMTAsWording(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		name, notice, want string
	}{
		{"postfix delay template", "This is the mail system at host mail.example.org.\n\nYour message could not be delivered for more than 6 hour(s).\nIt will be retried until it is 3 day(s) old.", "6 hours"},
		{"postfix one hour", "Your message could not be delivered for more than 1 hour(s).", "1 hour"},
		{"sendmail expiry", "<a@example.net>... Deferred: Connection refused by mx.example.net.\nMessage could not be delivered for 5 days\nMessage will be deleted from queue", "5 days"},
		{"sendmail warning subject words", "Warning: could not send message for past 4 hours", "4 hours"},
		{"sendmail warning text", "Warning: message still undelivered after 8 hours\nWill keep trying until message is 5 days old", "8 hours"},
		{"exim delay warning", "A message that you sent has not yet been delivered to one or more of its\nrecipients after more than 24 hours on the queue on mx.example.net.", "24 hours"},
		{"sitting in queue", "Message expired after sitting in queue for 2 days", "2 days"},
		{"ezweb", "Your message was not delivered within 0 days and 1 hours.", "0 days and 1 hour"},
		{"qmail states no duration", "I'm not going to try again; this message has been in the queue too long.", ""},
		{"remaining time is not time tried", "The server will keep trying to deliver this message for the next 1 days, 19 hours and 57 minutes.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "4.4.7", Diagnostic: "451 4.4.1 reply: read error from mx.example.net", Notice: tt.notice})
			if got := c.Facts.Get(FactRetriedFor); got != tt.want {
				t.Errorf("retried_for = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNoticeFactsNeverChangeTheReason checks that a notice's words fill
// facts but never decide the reason: a notice that says "user unknown"
// leaves an expiry an expiry, and its conditions (a loop) are not read.
func TestNoticeFactsNeverChangeTheReason(t *testing.T) {
	e := builtin(t)
	in := Input{Action: smtpcode.ActionFailed, Status: "4.4.7", Diagnostic: "451 4.4.1 reply: read error from mx.example.net"}
	without := e.Classify(in)
	in.Notice = "User unknown. Mail forwarding loop for a@example.net. Message could not be delivered for 5 days"
	with := e.Classify(in)
	if with.Reason != without.Reason || with.Rule != without.Rule || with.Status != without.Status || with.Owner != without.Owner {
		t.Errorf("with the notice: %s %s %s %s, without: %s %s %s %s", with.Reason, with.Rule, with.Status, with.Owner,
			without.Reason, without.Rule, without.Status, without.Owner)
	}
	if with.Facts.Get(FactLoop) != "" {
		t.Errorf("loop = %q from the notice, want none: conditions are not read from it", with.Facts.Get(FactLoop))
	}
	if with.Facts.Get(FactRetriedFor) != "5 days" {
		t.Errorf("retried_for = %q, want %q", with.Facts.Get(FactRetriedFor), "5 days")
	}
}

// TestDiagnosticFactsBeatTheNotice checks that a fact the diagnostic states
// is kept when the notice states another.
func TestDiagnosticFactsBeatTheNotice(t *testing.T) {
	e := builtin(t)
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "5.7.1",
		Diagnostic: "554 5.7.1 Virus found: Win.Test.EICAR_HDB-1 in attachment 'eicar.com.exe'",
		Notice:     "Virus 'Trojan.Other-1' found in attachment 'other.zip/other.docm'."})
	if got := c.Facts.Get(FactVirus); got != "Win.Test.EICAR_HDB-1" {
		t.Errorf("virus = %q, want the diagnostic's Win.Test.EICAR_HDB-1", got)
	}
	if got := c.Facts.Get(FactFile); got != "eicar.com.exe" {
		t.Errorf("file = %q, want the diagnostic's eicar.com.exe", got)
	}
}

// TestVirusFileFromTheNoticeInTheExplanation checks that the infected file
// and the malware named only in the notice reach the explanation of the
// virus family, an archive member as the scanner writes it.
func TestVirusFileFromTheNoticeInTheExplanation(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		name, diag, notice, file, virus string
	}{
		{"gateway", "554 5.7.1 Message rejected: virus detected",
			"Virus 'Trojan.Agent-98765' found in attachment 'rechnung.zip/rechnung.docm'.", "rechnung.zip/rechnung.docm", "Trojan.Agent-98765"},
		{"amavisd-new", "554 5.7.0 Reject, id=31415-02 - INFECTED: Win.Trojan.Emotet-9754",
			"The message was blocked: INFECTED (Win.Trojan.Emotet-9754) in part 'notes.zip/notes.xlsm'.", "notes.zip/notes.xlsm", "Win.Trojan.Emotet-9754"},
		{"file only in the notice", "550 5.7.1 Message contains a virus",
			"The attached file \"payload.exe\" was removed: it is infected.", "payload.exe", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.Classify(Input{Action: smtpcode.ActionFailed, Diagnostic: tt.diag, Notice: tt.notice, Recipient: "a@example.net"})
			if c.Reason != "virusdetected" {
				t.Fatalf("reason = %s, want virusdetected", c.Reason)
			}
			if got := c.Facts.Get(FactFile); got != tt.file {
				t.Errorf("file = %q, want %q", got, tt.file)
			}
			if tt.virus != "" && c.Facts.Get(FactVirus) != tt.virus {
				t.Errorf("virus = %q, want %q", c.Facts.Get(FactVirus), tt.virus)
			}
			if !strings.Contains(c.Explanation, tt.file) {
				t.Errorf("explanation %q does not name the file %q", c.Explanation, tt.file)
			}
		})
	}
}

// TestExpiryTextsNameTheDurationOnlyWhenStated checks the optional slot of
// the expiry texts: the duration when the notice states it, today's words
// when it does not, in every language.
func TestExpiryTextsNameTheDurationOnlyWhenStated(t *testing.T) {
	e := builtin(t)
	in := Input{Action: smtpcode.ActionFailed, Status: "4.4.7", Diagnostic: "Connection timed out with mx.example.net.", Recipient: "a@example.net"}
	without := e.Classify(in)
	if strings.Contains(without.Explanation, "kept trying for") || strings.Contains(without.Explanation, "()") {
		t.Errorf("without a duration: %q", without.Explanation)
	}
	in.Notice = "Message could not be delivered for 5 days"
	with := e.Classify(in)
	if !strings.Contains(with.Explanation, "5 days") {
		t.Errorf("with a duration: %q does not name it", with.Explanation)
	}
	// In each language's words (durations.go).
	want := map[string]string{"en": "5 days", "de": "5 Tage", "fr": "5 jours", "es": "5 días", "ja": "5日"}
	for _, tag := range e.Languages() {
		c := e.ClassifyIn(tag, in)
		w, ok := want[tag.String()]
		if !ok {
			t.Errorf("%s: no expected duration for this language", tag)
			continue
		}
		if !strings.Contains(c.Explanation, w) {
			t.Errorf("%s: %q does not name the duration %q", tag, c.Explanation, w)
		}
	}
}
