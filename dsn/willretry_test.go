package dsn

import "testing"

// TestWillRetryUntilIsKeptPerRecipient: a delayed record's Will-Retry-Until
// (RFC 3464 section 2.3.9) is kept as written, on its own record.
func TestWillRetryUntilIsKeptPerRecipient(t *testing.T) {
	msg := "From: MAILER-DAEMON@mx.example.com\r\n" +
		"To: a@example.com\r\n" +
		"Subject: Warning: could not send message for past 4 hours\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nWarning: message still undelivered after 4 hours\r\n\r\n" +
		"--b\r\nContent-Type: message/delivery-status\r\n\r\n" +
		"Reporting-MTA: dns; mx.example.com\r\n\r\n" +
		"Final-Recipient: rfc822; x@example.net\r\nAction: delayed\r\nStatus: 4.4.1\r\n" +
		"Will-Retry-Until: Mon, 24 Jun 2024 08:44:51 +0200\r\n\r\n" +
		"Final-Recipient: rfc822; y@example.net\r\nAction: delayed\r\nStatus: 4.4.1\r\n\r\n" +
		"--b--\r\n"
	r, err := Parse([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recipients) != 2 {
		t.Fatalf("%d recipients, want 2", len(r.Recipients))
	}
	if got := r.Recipients[0].WillRetryUntil; got != "Mon, 24 Jun 2024 08:44:51 +0200" {
		t.Errorf("first record: Will-Retry-Until %q", got)
	}
	if got := r.Recipients[1].WillRetryUntil; got != "" {
		t.Errorf("second record: Will-Retry-Until %q, want none", got)
	}
}
