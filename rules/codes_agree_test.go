package rules_test

import (
	"fmt"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// codeProbes are reply texts whose codes are easy to misread: each says
// which enhanced status code and which SMTP reply code the text carries.
// The words around the codes are chosen to match no rule that fills in a
// status of its own, so that both paths show what they read from the text.
var codeProbes = []struct {
	name, text, status, reply string
}{
	{"generic code then specific code", "550 5.0.0 <bob@example.net>... 5.7.1 no", "5.7.1", "550"},
	{"generic code alone", "550 5.0.0 no", "5.0.0", "550"},
	{"unregistered subject 8", "550 5.8.1 no", "", "550"},
	{"two-digit subject is a version", "score 5.13.68 no", "", ""},
	{"four-digit detail", "550 5.1.1000 no", "", "550"},
	{"IP address that looks like a code", "connect to 5.1.1.9[5.1.1.9]:25: no", "", ""},
	{"IP address before the reply", "host mx[192.0.5.1] said: 550 5.1.1 no", "5.1.1", "550"},
	{"version after a letter", "Mail server v2.1.12 said: 550 no", "", "550"},
	{"version after a slash", "(20011202/4.0.3) said: 550 no", "", "550"},
	{"code inside a longer number", "ticket 45501-5.1.1 no", "", ""},
	{"codes in a list of numbers", "codes 5.1.2,5.1.3 no", "", ""},
	{"reply code counting bytes", "550 bytes of headers is too many", "", ""},
	{"reply code with a colon", "550:5.7.1 no", "5.7.1", "550"},
	{"second digit above 5 is not a reply", "560 5.7.1 no", "5.7.1", ""},
	{"code after the reply wins over an earlier one", "5.1.0 - Unknown address error 550-'5.2.2 no'", "5.2.2", "550"},
	{"qmail code in parentheses", "Sorry, no mailbox here by that name. (#5.1.1)", "5.1.1", ""},
	{"success", "250 2.1.5 ok", "2.1.5", "250"},
	{"bare reply at the end is not a reply", "error 550", "", ""},
}

// probeReport is an RFC 3464 report whose one recipient record has the
// probe as its Diagnostic-Code and no Status field, so that the codes come
// from the text alone.
func probeReport(diag string) []byte {
	return []byte(fmt.Sprintf(`From: MAILER-DAEMON@mail.example.org
To: alice@example.org
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b"

--b
Content-Type: text/plain

The message could not be delivered.

--b
Content-Type: message/delivery-status

Reporting-MTA: dns; mail.example.org

Final-Recipient: rfc822; bob@example.net
Action: failed
Diagnostic-Code: smtp; %s

--b--
`, diag))
}

// TestCodesAgreeAcrossPaths reads each probe the two ways the product
// does: as the diagnostic of a bounce (dsn.Parse, the milter and "ndrmilter
// explain" path) and as a pasted reply line (Engine.Lookup, "ndrmilter
// code"). Both must find the same codes, and the right ones.
func TestCodesAgreeAcrossPaths(t *testing.T) {
	e, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range codeProbes {
		t.Run(p.name, func(t *testing.T) {
			rep, err := dsn.Parse(probeReport(p.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Recipients) != 1 {
				t.Fatalf("dsn read %d recipients, want 1", len(rep.Recipients))
			}
			rc := rep.Recipients[0]
			v := e.Lookup(p.text)
			if rc.Status != v.Status || rc.ReplyCode != v.ReplyCode {
				t.Errorf("%q: bounce path reads status %q reply %q, code lookup reads status %q reply %q",
					p.text, rc.Status, rc.ReplyCode, v.Status, v.ReplyCode)
			}
			if rc.Status != p.status || rc.ReplyCode != p.reply {
				t.Errorf("%q: bounce path reads status %q reply %q, want %q %q", p.text, rc.Status, rc.ReplyCode, p.status, p.reply)
			}
			if v.Status != p.status || v.ReplyCode != p.reply {
				t.Errorf("%q: code lookup reads status %q reply %q, want %q %q", p.text, v.Status, v.ReplyCode, p.status, p.reply)
			}
		})
	}
}
