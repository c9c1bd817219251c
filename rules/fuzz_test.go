package rules

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// FuzzClassify feeds arbitrary records to Classify and Lookup: no panic, and
// every verdict keeps its promises (a reason of the vocabulary, a known
// owner, a one-line explanation with no control or bidirectional formatting
// character). The explanation is ASCII but for an organisation's own text
// it quotes (org_text: a transport rule's words, in the organisation's
// language), which stays UTF-8 as the texts of the other languages do.
func FuzzClassify(f *testing.F) {
	e := builtin(f)
	f.Add("failed", "5.1.1", "550", "550 5.1.1 <a@example.com>: user unknown", "RCPT", "a@example.com", "mx.example.com")
	f.Add("delayed", "", "", "connect to mx.example.net: Connection timed out", "", "b@example.net", "")
	f.Add("", "4.7.650", "451", "451 4.7.650 rate limited due to IP reputation", "MAIL", "", "")
	f.Add("failed", "5.0.0", "", "\xff\xfe\x00 5.13.68,1 \u5b9b\u5148", "DATA", "x@\xe4\xbe\x8b", "\r\nX-Evil: 1")
	f.Add("expanded", "2.0.0", "250", "ok", "", "", "")
	f.Add("failed", "5.7.1", "554", "554 5.7.1 Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7 contact postmaster@x.example", "RCPT", "a@x.example", "")
	f.Add("failed", "", "", "message too big: read=26214400 max=15728640 virus 'Troj/X-1' in attachment 'a b.docm' mail forwarding loop", "DATA", "", "")
	f.Fuzz(func(t *testing.T, action, status, reply, diag, command, rcpt, remote string) {
		tr := e.Trace(Input{Action: smtpcode.Action(action), Status: status, ReplyCode: reply, Diagnostic: diag, Command: command})
		for _, f := range tr.Facts {
			if !isPrintableASCII(f.Value) || f.Value == "" {
				t.Fatalf("fact %s = %q: not printable ASCII", f.Fact, f.Value)
			}
		}
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
			if !isPrintableLine(v.Explanation) {
				t.Fatalf("explanation not one printable line: %q", v.Explanation)
			}
			if !isPrintableASCII(v.Fix) {
				t.Fatalf("fix not one ASCII line: %q", v.Fix)
			}
			// Matched is a phrase of a rules file (UTF-8) or text of the reply
			// made ASCII: one line either way.
			if !utf8.ValidString(v.Matched) || strings.ContainsAny(v.Matched, "\r\n\x00") {
				t.Fatalf("matched not one line of UTF-8: %q", v.Matched)
			}
			if v.Status != "" {
				if !smtpcode.IsStatus(v.Status) {
					t.Fatalf("status %q is not an enhanced code", v.Status)
				}
			}
		}
	})
}

// isPrintableLine says whether s is valid UTF-8 with no control character
// (C0, DEL, C1: line breaks and terminal escapes) and no bidirectional
// formatting character (which reorders what a terminal or mail reader shows
// after it).
func isPrintableLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0:
			return false
		case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
			return false
		}
	}
	return true
}
