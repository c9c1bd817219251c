package dsn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoticeIsTheHumanReadablePart checks Report.Notice: the first text part
// of a multipart/report, and a plain notice up to the copy of the original
// message, which is left out.
func TestNoticeIsTheHumanReadablePart(t *testing.T) {
	tests := []struct {
		file, has, hasNot string
	}{
		{"postfix.eml", "This is the mail system", "Content-Type"},
		{"sendmail.eml", "Transcript of session follows", "Reporting-MTA"},
		{"qmail.eml", "Hi. This is the qmail-send program", "--- Below this line is a copy of the message."},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, _ := Parse(raw)
			if !strings.Contains(rep.Notice, tt.has) {
				t.Errorf("Notice %q lacks %q", rep.Notice, tt.has)
			}
			if strings.Contains(rep.Notice, tt.hasNot) {
				t.Errorf("Notice holds %q, which is not the notice's", tt.hasNot)
			}
		})
	}
}

// TestNoticeIsCappedAndOnlyForReports checks that the notice is bounded by
// MaxNotice and left empty for a message that is no report.
func TestNoticeIsCappedAndOnlyForReports(t *testing.T) {
	long := "From: MAILER-DAEMON@example.org\r\nTo: a@example.com\r\nSubject: Undelivered Mail Returned to Sender\r\n\r\n" +
		"This is the mail system at host example.org.\r\n\r\n<b@example.net>: host mx.example.net[192.0.2.1] said: 550 5.1.1 User unknown\r\n\r\n" +
		strings.Repeat("Some more words of a very long notice.\r\n", 1000)
	rep, _ := Parse([]byte(long))
	if len(rep.Recipients) == 0 {
		t.Fatalf("no recipient read from the notice")
	}
	if len(rep.Notice) == 0 || len(rep.Notice) > MaxNotice {
		t.Errorf("len(Notice) = %d, want 1..%d", len(rep.Notice), MaxNotice)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "newsletter.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := Parse(raw); rep.Notice != "" {
		t.Errorf("Notice of a newsletter = %q, want none", rep.Notice)
	}
}
