package dsn

import (
	"strings"
	"testing"
)

// gatewayNotice is a security gateway's plain-text notice in the layout of
// Trend Micro Email Security's: an opening sentence, the recipient, then
// labelled lines (the message's Subject among them) and the remote reply.
const gatewayNotice = "From: Email Security <no-reply@notify.gateway.example>\r\n" +
	"To: designer@studio-north.example\r\n" +
	"Subject: Undeliverable: Setup files\r\n" +
	"Content-Type: text/plain; charset=us-ascii\r\n" +
	"\r\n" +
	"Your message was not delivered.\r\n" +
	"The message you sent to the following recipient was blocked by the\r\n" +
	"recipient organization's email policy:\r\n" +
	"   it-support@kestrel-eng.example\r\n" +
	"Subject:  Setup files for the new scanner\r\n" +
	"Policy:   Attachment Filter - Block executable files\r\n" +
	"Action:   Delete entire message\r\n" +
	"Reason:   The message contains a prohibited attachment type:\r\n" +
	"          ScanSetup_v4.2.exe (in ScanDriver.zip)\r\n" +
	"Remote server response: 550 5.7.1 Message rejected by policy (attachment)\r\n"

// TestLabelledGatewayNoticeGivesItsCauseAndReplyNotItsOpeningSentence
// checks that the labelled cause and the remote reply make the diagnostic.
func TestLabelledGatewayNoticeGivesItsCauseAndReplyNotItsOpeningSentence(t *testing.T) {
	rep, err := Parse([]byte(gatewayNotice))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != KindBounce || len(rep.Recipients) != 1 {
		t.Fatalf("kind %s with %d recipients, want one bounce", rep.Kind, len(rep.Recipients))
	}
	rc := rep.Recipients[0]
	if rc.Address != "it-support@kestrel-eng.example" {
		t.Errorf("recipient %q", rc.Address)
	}
	if want := "550 5.7.1 Message rejected by policy (attachment)"; rc.Reply != want {
		t.Errorf("reply %q, want %q", rc.Reply, want)
	}
	for _, has := range []string{"prohibited attachment type: ScanSetup_v4.2.exe (in ScanDriver.zip)", "Policy: Attachment Filter - Block executable files"} {
		if !strings.Contains(rc.Diagnostic, has) {
			t.Errorf("diagnostic %q lacks %q", rc.Diagnostic, has)
		}
	}
	for _, not := range []string{"Your message was not delivered", "blocked by the recipient", "Delete entire message", "Setup files for the new scanner"} {
		if strings.Contains(rc.Diagnostic, not) {
			t.Errorf("diagnostic %q holds %q, which is no cause nor reply", rc.Diagnostic, not)
		}
	}
	if !strings.Contains(rep.Notice, "ScanSetup_v4.2.exe") {
		t.Errorf("notice %q was cut before its labelled lines", rep.Notice)
	}
}

// TestLabelledLinesAreNoCopiedHeader checks that "Subject:" among a
// notice's labels does not start the copy of the original there.
func TestLabelledLinesAreNoCopiedHeader(t *testing.T) {
	text := []byte("Subject: Setup files\nPolicy: Attachment Filter\nAction: Delete entire message\nReason: prohibited attachment\n")
	if k := headerBlockStart(text); k >= 0 {
		t.Errorf("headerBlockStart = %d, want -1: a gateway's labelled lines are the notice", k)
	}
	copied := []byte("Subject: Setup files\nMessage-ID: <a@example.org>\nDate: Mon, 30 Nov 2026 10:00:00 +0100\n")
	if k := headerBlockStart(copied); k != 0 {
		t.Errorf("headerBlockStart = %d on a copied header, want 0", k)
	}
}

// TestLabelledDiagnosticReadsEachFamilysLabels checks the label wordings.
func TestLabelledDiagnosticReadsEachFamilysLabels(t *testing.T) {
	tests := []struct {
		name, block, want string
		ok                bool
	}{
		{"reason folded on two lines", "Reason: The message contains a prohibited\nattachment type: a.exe\nRemote server response: 550 5.7.1 rejected",
			"Reason: The message contains a prohibited attachment type: a.exe. 550 5.7.1 rejected", true},
		{"reply without a code", "Remote server response: Message rejected by policy", "Message rejected by policy", true},
		{"exchange quoted reply without a code", "Remote Server returned 'Message rejected due to unacceptable attachments'", "Message rejected due to unacceptable attachments", true},
		{"a reply with its code alone is left as it is", "Remote server response: 550 5.1.1 user unknown", "", false},
		{"no labels", "host mx.example.net said: 550 5.1.1 user unknown", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := labelledDiagnostic(nil, []byte(tt.block))
			if ok != tt.ok || got != tt.want {
				t.Errorf("labelledDiagnostic = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestHTMLGatewayNoticeKeepsItsLabelledReply checks an HTML notice whose
// labels are table rows: the empty lines its text has between rows end one
// paragraph, so the reply in the last row stays the recipient's.
func TestHTMLGatewayNoticeKeepsItsLabelledReply(t *testing.T) {
	raw := "From: Postmaster <postmaster@mx.security.example>\r\nTo: kim@acme.example\r\nSubject: Message blocked\r\n" +
		"Auto-Submitted: auto-replied\r\nContent-Type: text/html; charset=us-ascii\r\n\r\n" +
		"<html><body><p>Your message could not be delivered to the following recipient:</p>\r\n" +
		"<p>lars@nordic-trade.example</p>\r\n<table>\r\n" +
		"<tr><td>Subject:</td><td>Quarterly figures</td></tr>\r\n" +
		"<tr><td>Reason:</td><td>Attachment blocked by policy: figures_Q4.xlsm</td></tr>\r\n" +
		"<tr><td>Remote server response:</td><td>550 5.7.1 Rejected by policy</td></tr>\r\n" +
		"</table></body></html>\r\n"
	rep, _ := Parse([]byte(raw))
	if len(rep.Recipients) != 1 {
		t.Fatalf("%d recipients, want 1", len(rep.Recipients))
	}
	rc := rep.Recipients[0]
	if rc.Address != "lars@nordic-trade.example" || rc.Reply != "550 5.7.1 Rejected by policy" || !strings.Contains(rc.Diagnostic, "figures_Q4.xlsm") {
		t.Errorf("recipient %q, reply %q, diagnostic %q", rc.Address, rc.Reply, rc.Diagnostic)
	}
}
