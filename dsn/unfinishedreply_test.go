package dsn

import (
	"strings"
	"testing"
)

// A DSN whose Diagnostic-Code holds only the first line of a multi-line
// reply (Sendmail's) gets the whole reply from the transcript its notice
// quotes: the cause and the help page are in the later lines.
func TestFirstLineOfAMultiLineReplyIsCompletedFromTheTranscript(t *testing.T) {
	for file, want := range map[string][]string{
		"multiline-reply-01.eml": {"550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy.",
			"https://support.google.com/mail/?p=DmarcRejection"},
		"multiline-reply-04.eml": {"likely unsolicited mail", "https://support.google.com/mail/?p=UnsolicitedMessageError"},
	} {
		r := parseBounceFixture(t, file)
		if len(r.Recipients) != 1 {
			t.Fatalf("%s: %d recipients, want 1", file, len(r.Recipients))
		}
		d := r.Recipients[0].Diagnostic
		for _, w := range want {
			if !strings.Contains(d, w) {
				t.Errorf("%s: diagnostic %q, want %q in it", file, d, w)
			}
		}
		if strings.Contains(d, "550-") || strings.Contains(d, "554 5.0.0") || strings.Contains(d, "<<<") {
			t.Errorf("%s: diagnostic %q keeps continuation codes, transcript marks or Sendmail's own reply", file, d)
		}
	}
}

// The first line of a multi-line reply alone is completed only from the
// same reply: a notice that repeats the first line and nothing more, or a
// reply that is already whole, is left as it is.
func TestUnfinishedReplyIsTheFirstLineAlone(t *testing.T) {
	for d, want := range map[string]bool{
		"550-5.7.26 Unauthenticated email from example.com is not accepted due to": true,
		"550-5.7.1 [192.0.2.1 12] Our system 550-5.7.1 has detected":               true,
		"550-5.7.1 Our system has detected 550 5.7.1 https://support.google.com":   false,
		"550 5.7.1 Our system has detected that this message is":                   false,
		"550-": false,
	} {
		if got := unfinishedReply(d); got != want {
			t.Errorf("unfinishedReply(%q) = %v, want %v", d, got, want)
		}
	}
	text := "   ----- Transcript -----\n(reason: 550-5.7.26 Unauthenticated email from example.com is not accepted due to)\n\nmore text\n"
	if got := fullReply(text, "550 5.7.26 Unauthenticated email from example.com is not accepted due to", ""); got != "" {
		t.Errorf("fullReply from a repeated first line = %q, want none", got)
	}
}

// Gmail separates the paragraphs of a reply with empty continuation lines
// ("550-5.7.27" alone): joined, they leave no code in the text.
func TestEmptyContinuationLinesLeaveNoCode(t *testing.T) {
	d := "550-5.7.27 Your email has been blocked. 550-5.7.27 550-5.7.27 Authentication results: 550-5.7.27 DKIM = did not pass 550-5.7.27 550 5.7.27 https://support.google.com/mail/answer/81126"
	got := joinMultiline(nil, d)
	want := "550 5.7.27 Your email has been blocked. Authentication results: DKIM = did not pass https://support.google.com/mail/answer/81126"
	if got != want {
		t.Errorf("joinMultiline = %q, want %q", got, want)
	}
}
