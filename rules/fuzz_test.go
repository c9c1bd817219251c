package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// FuzzClassify feeds arbitrary records to Classify and Lookup: no panic, and
// every verdict keeps its promises (a reason of the vocabulary, a known
// owner, a one-line ASCII explanation).
func FuzzClassify(f *testing.F) {
	e := builtin(f)
	f.Add("failed", "5.1.1", "550", "550 5.1.1 <a@example.com>: user unknown", "RCPT", "a@example.com", "mx.example.com")
	f.Add("delayed", "", "", "connect to mx.example.net: Connection timed out", "", "b@example.net", "")
	f.Add("", "4.7.650", "451", "451 4.7.650 rate limited due to IP reputation", "MAIL", "", "")
	f.Add("failed", "5.0.0", "", "\xff\xfe\x00 5.13.68,1 \u5b9b\u5148", "DATA", "x@\xe4\xbe\x8b", "\r\nX-Evil: 1")
	f.Add("expanded", "2.0.0", "250", "ok", "", "", "")
	f.Fuzz(func(t *testing.T, action, status, reply, diag, command, rcpt, remote string) {
		for _, v := range []Classification{
			e.Classify(Input{Action: smtpcode.Action(action), Status: status, ReplyCode: reply, Diagnostic: diag, Command: command, Recipient: rcpt, RemoteMTA: remote}),
			e.Lookup(diag),
		} {
			if v.Reason != "" && !v.Reason.Valid() {
				t.Fatalf("reason %q outside the vocabulary", v.Reason)
			}
			if !v.Owner.Valid() {
				t.Fatalf("owner %q", v.Owner)
			}
			if !isPrintableASCII(v.Explanation) || strings.ContainsAny(v.Explanation, "\r\n") {
				t.Fatalf("explanation not one ASCII line: %q", v.Explanation)
			}
			if v.Status != "" {
				if !smtpcode.IsStatus(v.Status) {
					t.Fatalf("status %q is not an enhanced code", v.Status)
				}
			}
		}
	})
}
