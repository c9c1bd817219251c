package dsn

import (
	"strings"
	"testing"
)

// A label that states the cause ("Unknown user: addr", IMail's whole
// diagnostic) is the recipient's text, so that the rules can read it.
func TestCauseLabelIsTheRecipientsDiagnostic(t *testing.T) {
	tests := []struct{ line, addr, want string }{
		{"Unknown user: k.nowak@example.org", "k.nowak@example.org", "unknown user"},
		{"No such user: b.ortiz@example.net", "b.ortiz@example.net", "no such user"},
	}
	for _, tt := range tests {
		raw := "From: postmaster@mail.example.org\r\nTo: m.jansen@example.com\r\nSubject: Undeliverable Mail\r\n\r\n" +
			tt.line + "\r\n\r\nOriginal message follows.\r\n\r\nFrom: m.jansen@example.com\r\nTo: " + tt.addr + "\r\nSubject: x\r\n\r\nhello\r\n"
		rep, err := Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Recipients) != 1 || rep.Recipients[0].Address != tt.addr {
			t.Fatalf("%q: recipients %+v, want %s", tt.line, rep.Recipients, tt.addr)
		}
		if d := strings.ToLower(rep.Recipients[0].Diagnostic); !strings.Contains(d, tt.want) {
			t.Errorf("%q: diagnostic %q, want it to hold %q", tt.line, rep.Recipients[0].Diagnostic, tt.want)
		}
	}
}
