package dsn

import (
	"strings"
	"testing"
)

// Sendmail's notice about several recipients at several hosts lists every
// failed address with "(reason: ...)" (one line of the reply: savemail.c,
// errbody) and then quotes each session ("... while talking to HOST.:",
// ">>> RCPT To:<addr>", "<<< 550-...", and Sendmail's own "550 5.1.1
// <addr>... User unknown" line); with DSN support a message/delivery-status
// part has one block per recipient (RFC 3464 section 2.3), whose
// Diagnostic-Code may hold only the first line of a multi-line reply.
// Each recipient's diagnostic is its own reply: never the next address of
// the list, nor another recipient's transcript.
var multiTranscriptCases = []struct {
	file string
	want map[string]string // address: a part of its own reply
}{
	{"sendmail-transcript-two-hosts-01.eml", map[string]string{
		"orders@linden-supply.example": "blocked using xbl.spamhaus.org",
		"t.moreau@quaywise.example":    "Relaying denied",
	}},
	{"sendmail-transcript-three-hosts-01.eml", map[string]string{
		"planning@tolland-county.example":     "does not exist",
		"a.brandt@rheinwerk-bau.example":      "Mailbox full",
		"permits@harbourview-council.example": "Relaying denied",
	}},
	{"sendmail-transcript-plain-two-hosts-01.eml", map[string]string{
		"filings@corrister-court.example":      "blocked using xbl.spamhaus.org",
		"e.whitlow@marchbank-advisors.example": "User unknown",
	}},
	{"sendmail-transcript-plain-three-hosts-01.eml", map[string]string{
		"claims@brightwater-insurance.example": "over its storage limit",
		"lab@prismcast-orthodontics.example":   "User unknown",
		"referrals@eastgate-clinic.example":    "Relaying denied",
	}},
}

// TestSendmailTranscriptGivesEachRecipientOnlyItsOwnReply: every failed
// address of a multi-host Sendmail notice, with and without the
// delivery-status part, gets its own reply and none of another's words,
// address or host.
func TestSendmailTranscriptGivesEachRecipientOnlyItsOwnReply(t *testing.T) {
	for _, c := range multiTranscriptCases {
		r := parseBounceFixture(t, c.file)
		if len(r.Recipients) != len(c.want) {
			t.Errorf("%s: %d recipients, want %d", c.file, len(r.Recipients), len(c.want))
		}
		for _, rc := range r.Recipients {
			own, ok := c.want[rc.Address]
			if !ok {
				t.Errorf("%s: unexpected recipient %q", c.file, rc.Address)
				continue
			}
			if !strings.Contains(rc.Diagnostic, own) {
				t.Errorf("%s: %s: diagnostic %q lacks its own %q", c.file, rc.Address, rc.Diagnostic, own)
			}
			for other, words := range c.want {
				if other == rc.Address {
					continue
				}
				if strings.Contains(rc.Diagnostic, other) || words != own && strings.Contains(rc.Diagnostic, words) {
					t.Errorf("%s: %s: diagnostic %q holds %s's text", c.file, rc.Address, rc.Diagnostic, other)
				}
				if strings.Contains(rc.Diagnostic, other[strings.IndexByte(other, '@')+1:]) {
					t.Errorf("%s: %s: diagnostic %q names %s's domain", c.file, rc.Address, rc.Diagnostic, other)
				}
			}
		}
	}
}

// TestUnfinishedReplyIsCompletedFromItsOwnTranscriptNotTheReasonList: the
// DSN's first line of a multi-line reply is completed with the lines of
// the transcript's reply to that recipient's RCPT, not with what follows
// Sendmail's "(reason: ...)" in the list of failed addresses.
func TestUnfinishedReplyIsCompletedFromItsOwnTranscriptNotTheReasonList(t *testing.T) {
	r := parseBounceFixture(t, "sendmail-transcript-three-hosts-01.eml")
	got := r.Recipients[0].Diagnostic
	want := "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces."
	if got != want {
		t.Errorf("diagnostic %q, want %q", got, want)
	}
}

// TestFullReplySkipsAnotherRecipientsTranscriptReply: a transcript's reply
// after a RCPT for another address is not the recipient's, even when its
// first line is the same words.
func TestFullReplySkipsAnotherRecipientsTranscriptReply(t *testing.T) {
	text := "... while talking to mx.a.example.:\n>>> RCPT To:<x@a.example>\n<<< 550-5.7.1 Rejected by policy for this sender\n<<< 550 5.7.1 see https://a.example/policy\n" +
		"... while talking to mx.b.example.:\n>>> RCPT To:<y@b.example>\n<<< 550-5.7.1 Rejected by policy for this sender\n<<< 550 5.7.1 contact postmaster@b.example\n"
	d := "550 5.7.1 Rejected by policy for this sender"
	if got := fullReply(text, d, "y@b.example"); !strings.Contains(got, "postmaster@b.example") || strings.Contains(got, "a.example") {
		t.Errorf("y@b.example: %q, want b.example's reply", got)
	}
	if got := fullReply(text, d, "x@a.example"); !strings.Contains(got, "a.example/policy") || strings.Contains(got, "b.example") {
		t.Errorf("x@a.example: %q, want a.example's reply", got)
	}
	if got := fullReply("<x@a.example>\n    (reason: 550-5.7.1 Rejected by policy for this sender)\n<y@b.example>\n    (reason: 550 5.1.1 User unknown)\n", d, "x@a.example"); got != "" {
		t.Errorf("reply in a (reason: ...) list completed to %q, want none", got)
	}
}
