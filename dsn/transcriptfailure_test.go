package dsn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTranscriptResultIsTheLastErrorReply: of a quoted SMTP session, the
// result is the last 4xx/5xx reply and the command before it, never a
// positive reply ("220 2.0.0 Ready to start TLS", "250 2.1.0 Ok"), in the
// line form and in the collapsed form a block's text takes.
func TestTranscriptResultIsTheLastErrorReply(t *testing.T) {
	tests := []struct {
		name, d, reply, command string
	}{
		{"mdaemon marks with time stamps",
			" Mon 2025-11-03 09:12:39.335: --> STARTTLS\n" +
				" Mon 2025-11-03 09:12:39.382: <-- 220 2.0.0 Ready to start TLS\n" +
				" Mon 2025-11-03 09:12:39.445: --> MAIL From:<a@example.com>\n" +
				" Mon 2025-11-03 09:12:39.492: <-- 250 2.1.0 Ok\n" +
				" Mon 2025-11-03 09:12:39.492: --> RCPT To:<b@example.net>\n" +
				" Mon 2025-11-03 09:12:39.539: <-- 554 5.7.1 <b@example.net>: Recipient address rejected: Access denied\n" +
				" Mon 2025-11-03 09:12:39.539: --> QUIT\n" +
				" Mon 2025-11-03 09:12:39.585: <-- 221 2.0.0 Bye\n",
			"554 5.7.1 <b@example.net>: Recipient address rejected: Access denied", "RCPT"},
		{"sendmail marks, multi-line error reply",
			">>> EHLO a.example.com\n<<< 250-b.example.net Hello\n<<< 250 HELP\n>>> DATA\n" +
				"<<< 554-5.7.1 Message refused\n<<< 554 5.7.1 see https://b.example.net/policy\n",
			"554-5.7.1 Message refused\n554 5.7.1 see https://b.example.net/policy", "DATA"},
		{"collapsed text, multi-line EHLO reply first",
			"Recipient: r@example.com Session Transcript: <-- 220 mail.example.com ESMTP --> EHLO gw.example.org " +
				"<-- 250 mail.example.com Hello <-- SIZE 26214400 <-- HELP --> STARTTLS <-- 220 2.0.0 Ready to start TLS " +
				"--> RCPT TO:<r@example.com> <-- 550 5.1.1 <r@example.com>: User unknown --> QUIT <-- 221 2.0.0 Bye",
			"550 5.1.1 <r@example.com>: User unknown", "RCPT"},
		{"collapsed multi-line reply, continuation without its code",
			"--> RCPT TO:<r@example.com> <-- 250 2.1.5 Ok --> DATA <-- 354 Go ahead --> <CRLF>.<CRLF> " +
				"<-- 554 5.7.1 Message rejected as spam <-- See https://mail.example.com/spam --> QUIT <-- 221 Bye",
			"554 5.7.1 Message rejected as spam\nSee https://mail.example.com/spam", "DATA"},
		{"labelled pairs",
			"hMailServer sent: STARTTLS Remote server replied: 220 2.0.0 Ready to start TLS " +
				"hMailServer sent: RCPT TO:<l@example.com> Remote server replied: 552 5.2.2 Mailbox full",
			"552 5.2.2 Mailbox full", "RCPT"},
		{"only positive replies", "--> STARTTLS\n<-- 220 2.0.0 Ready to start TLS\n--> QUIT\n<-- 221 Bye\n", "", ""},
		{"no session", "550 5.1.1 <x@example.com>... User unknown", "", ""},
	}
	for _, tc := range tests {
		reply, command := transcriptFailure(tc.d)
		if reply != tc.reply || command != tc.command {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, reply, command, tc.reply, tc.command)
		}
	}
}

// TestTranscriptNoticeIsNotReadAsAccepted: the project's session
// transcript fixtures (MDaemon, a "Session Transcript:" block, Sendmail,
// an "SMTP session:" with "Remote server replied:", hMailServer's pairs)
// give the failing recipient the error reply of its RCPT, never a 2xx.
func TestTranscriptNoticeIsNotReadAsAccepted(t *testing.T) {
	files, err := filepath.Glob("../internal/testdata/bounces/eml/smtp-transcript-*.eml")
	if err != nil || len(files) < 5 {
		t.Fatalf("fixtures: %v, %d files", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if r.Kind != KindBounce || len(r.Recipients) != 1 {
			t.Fatalf("%s: kind %s, %d recipients; want one bounce", f, r.Kind, len(r.Recipients))
		}
		rc := r.Recipients[0]
		if rc.Status == "" || rc.Status[0] != '5' || rc.ReplyCode == "" || rc.ReplyCode[0] != '5' || rc.Command != "RCPT" {
			t.Errorf("%s: status %q reply %q command %q; want a 5xx at RCPT", f, rc.Status, rc.ReplyCode, rc.Command)
		}
		if strings.Contains(rc.Diagnostic, "Ready to start TLS") && !strings.Contains(filepath.Base(f), "03") {
			t.Errorf("%s: diagnostic %q holds the STARTTLS reply", f, rc.Diagnostic)
		}
	}
}

// TestTranscriptWithNoReplyIsReadFromItsLastNotes: an MDaemon transcript
// of an attempt no server answered gives its last notes (why the
// connection failed) as the diagnostic, never its progress lines
// ("Resolving MX records for ..."), in line and in collapsed form; a
// transcript that ends in progress, or a text with too few time stamps,
// gives nothing.
func TestTranscriptWithNoReplyIsReadFromItsLastNotes(t *testing.T) {
	const attempt = " Mon 2026-03-02 08:31:15.221: Attempting SMTP connection to [example.net]\n" +
		" Mon 2026-03-02 08:31:15.222: Resolving MX records for [example.net] (DNS Server: 10.0.0.2)...\n" +
		" Mon 2026-03-02 08:31:15.260: *  P=010 S=000 D=example.net TTL=(300) MX=[mx.example.net]\n" +
		" Mon 2026-03-02 08:31:15.290: Waiting for socket connection...\n"
	tests := []struct{ name, d, want string }{
		{"timed out, lines", "--- Session Transcript ---\n" + attempt +
			" Mon 2026-03-02 08:31:45.291: *  Connection timed out (10060)\n" +
			" Mon 2026-03-02 08:31:45.291: *  Socket connection failed [192.0.2.61 : 25]\n" +
			" Mon 2026-03-02 08:31:45.291: No more MX hosts to try\n--- End Transcript ---\n",
			"Connection timed out (10060)\nSocket connection failed [192.0.2.61 : 25]\nNo more MX hosts to try"},
		{"refused, collapsed, seconds without fraction",
			strings.ReplaceAll("--- Session Transcript --- "+attempt, "\n", " ") +
				"Mon 2026-03-02 08:31:16: *  Connection refused (10061) --- End Transcript --- : Message contains [1] file attachments",
			"Connection refused (10061)"},
		{"ends in progress", "--- Session Transcript ---\n" + attempt + "--- End Transcript ---\n", ""},
		{"too few time stamps", "Session Transcript: Mon 2026-03-02 08:31:16: Connection refused", ""},
	}
	for _, tc := range tests {
		if got := transcriptNotes(tc.d); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
