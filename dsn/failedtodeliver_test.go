package dsn

import (
	"strings"
	"testing"
)

// CommuniGate Pro opens each recipient's text with "Failed to deliver to
// '<addr>'" and then the module that failed and its words: they are the
// recipient's diagnostic, in a DSN without a Diagnostic-Code as in the text
// alone.
func TestCommuniGateFailedToDeliverLineCarriesTheModulesWords(t *testing.T) {
	text := "Failed to deliver to '<l.moser@example.net>'\r\nLOCAL module(account l.moser) reports:\r\n account is full (disk quota exceeded)\r\n"
	raw := "From: MAILER-DAEMON@mail.example.net\r\nTo: u.klein@example.com\r\nSubject: Undeliverable mail: Re: Termin\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\n" + text +
		"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mail.example.net\r\n\r\n" +
		"Original-Recipient: rfc822;l.moser@example.net\r\nFinal-Recipient: rfc822;l.moser@example.net\r\nAction: failed\r\nStatus: 5.0.0\r\n" +
		"--B--\r\n"
	for name, msg := range map[string]string{
		"with a DSN": raw,
		"text alone": "From: MAILER-DAEMON@mail.example.net\r\nTo: u.klein@example.com\r\nSubject: Undeliverable mail: Re: Termin\r\n\r\n" + text,
	} {
		rep, err := Parse([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Recipients) != 1 || rep.Recipients[0].Address != "l.moser@example.net" {
			t.Fatalf("%s: recipients %+v, want l.moser@example.net", name, rep.Recipients)
		}
		if d := rep.Recipients[0].Diagnostic; !strings.Contains(d, "account is full") {
			t.Errorf("%s: diagnostic %q, want the LOCAL module's words", name, d)
		}
	}
}
