package dsn

import (
	"os"
	"strings"
	"testing"
)

// An Exim delay warning whose recipient block has no reply code reads on
// over paragraphs to find one; its closing paragraph ("No action is
// required on your part...") is Exim's default warning text, never the
// recipient's diagnostic.
func TestAnEximWarningsClosingParagraphIsNotTheDiagnostic(t *testing.T) {
	msg := "From: Mail Delivery System <Mailer-Daemon@mail.example.org>\n" +
		"To: t.nowak@example.org\n" +
		"Subject: Warning: message 1sWzQe-0004Lm-0A delayed 24 hours\n" +
		"Auto-Submitted: auto-replied\n\n" +
		"This message was created automatically by mail delivery software.\n" +
		"A message that you sent has not yet been delivered to one or more of its\n" +
		"recipients after more than 24 hours on the queue on mail.example.org.\n\n" +
		"The address to which the message has not yet been delivered is:\n\n" +
		"  sales@fabrik.example\n" +
		"    host mx.fabrik.example [203.0.113.9]\n" +
		"    Delay reason: retry time not reached for any host\n\n" +
		"No action is required on your part. Delivery attempts will continue for\n" +
		"some time, and this warning may be repeated at intervals if the message\n" +
		"remains undelivered. Eventually the mail delivery software will give up,\n" +
		"and when that happens, the message will be returned to you.\n"
	r, err := Parse([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Recipients) != 1 {
		t.Fatalf("%d recipients, want 1", len(r.Recipients))
	}
	rc := r.Recipients[0]
	if !strings.Contains(rc.Diagnostic, "retry time not reached") || strings.Contains(rc.Diagnostic, "No action is required") {
		t.Errorf("diagnostic %q, want the delay reason without the closing paragraph", rc.Diagnostic)
	}
	if rc.Action != "delayed" {
		t.Errorf("action %q, want delayed", rc.Action)
	}
	// A block with its code ends at its paragraph as before.
	b, err := os.ReadFile("../internal/testdata/bounces/eml/delay-warning-02.eml")
	if err != nil {
		t.Fatal(err)
	}
	if r, err = Parse(b); err != nil || len(r.Recipients) != 1 || strings.Contains(r.Recipients[0].Diagnostic, "No action") {
		t.Errorf("delay-warning-02: %v, %+v", err, r.Recipients)
	}
}
