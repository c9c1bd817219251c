package dsn

import (
	"strings"
	"testing"
)

// Post.Office and the Netscape Messaging Server state the reason above the
// list of recipients and put only help text under it: the reason section
// is every listed recipient's diagnostic.
func TestReasonSectionAboveTheRecipientListIsTheirDiagnostic(t *testing.T) {
	raw := "From: Mail Administrator <Postmaster@po.example.net>\r\nTo: m.vidal@example.com\r\n" +
		"Subject: Mail System Error - Returned Mail\r\n\r\n" +
		"This Message was undeliverable due to the following reason:\r\n\r\n" +
		"Your message was not delivered because the destination computer was\r\nnot found.\r\n\r\n" +
		"     Host example-gone.org not found\r\n\r\n" +
		"The following recipients did not receive this message:\r\n\r\n" +
		"     <g.mari@example-gone.org>\r\n     <h.roux@example-gone.org>\r\n\r\n" +
		"Please reply to Postmaster@po.example.net\r\nif you feel this message to be in error.\r\n"
	rep, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Recipients) != 2 {
		t.Fatalf("recipients %+v, want g.mari and h.roux", rep.Recipients)
	}
	for _, rc := range rep.Recipients {
		if !strings.Contains(rc.Diagnostic, "destination computer was not found") || strings.Contains(rc.Diagnostic, "Please reply") {
			t.Errorf("%s: diagnostic %q, want the reason section and not the help text", rc.Address, rc.Diagnostic)
		}
	}
}
