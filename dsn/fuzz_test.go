package dsn

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// FuzzParse feeds Parse arbitrary messages, seeded with the fixtures. Parse
// must not panic (a recovered panic is reported as ErrInternal), and what it
// returns must keep its promises: a known kind, the caps, valid UTF-8 for
// the JSON and headers built from it. Crashers found are kept in
// testdata/fuzz/FuzzParse and run as regression cases by "go test".
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.eml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("From: MAILER-DAEMON@x.example\nSubject: failure notice\n\n<a@b.example>:\n550 5.1.1 no\n"))
	f.Add([]byte("Content-Type: multipart/report; boundary=x\n\n--x\nContent-Type: message/delivery-status\n\nFinal-Recipient: utf-8; \\x{41}@b.example\nStatus: 5.0.0\n"))
	f.Add([]byte("From MAILER-DAEMON Tue Jul  9 08:01:12 2024\nFrom: MAILER-DAEMON@x.example\nSubject: Returned mail\n\n" +
		"   ----- Transcript of session follows -----\n... while talking to mx.b.example.:\n>>> DATA\n<<< 552 full\n554 a... Service unavailable\n" +
		"\nFrom c@x.example Tue Jul  9 08:01:13 2024\nSubject: x\n\n Tue 09:05:15.334: --> RCPT To:<c@b.example>\n In: DATA\n Out: 451 4.3.0 no\n"))
	f.Add([]byte("From: l-admin@x.example\nSubject: Loop Alert: Duplicated Message-ID (l ML)\nMessage-ID: <1.FML2.l@x.example>\nX-MLServer: fml\n\n" +
		"Duplicated Message-ID in <l@x.example>.\n\nOriginal mail as follows:\n\n   To: l@x.example\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		n := 0
		for r := range ParseAll(raw) {
			if r == nil {
				t.Fatal("ParseAll yielded a nil report")
			}
			n++
		}
		if n == 0 {
			t.Fatal("ParseAll yielded no report")
		}
		r, err := Parse(raw)
		if errors.Is(err, ErrInternal) {
			t.Fatalf("Parse panicked: %v", err)
		}
		if r == nil {
			t.Fatal("nil report")
		}
		switch r.Kind {
		case KindBounce, KindDelay, KindDelivered, KindRelayed, KindExpanded, KindAutoreply, KindFeedback, KindReceipt, KindNone:
		default:
			t.Fatalf("unknown kind %q", r.Kind)
		}
		if len(r.Recipients) > MaxRecipients {
			t.Fatalf("%d recipients, over MaxRecipients", len(r.Recipients))
		}
		for _, rc := range r.Recipients {
			if len(rc.Diagnostic) > MaxDiagnostic {
				t.Fatalf("diagnostic of %d bytes, over MaxDiagnostic", len(rc.Diagnostic))
			}
			for _, s := range append([]string{rc.Address, rc.OriginalRecipient, rc.DiagnosticType, rc.Diagnostic, rc.RemoteMTA, rc.Status, rc.ReplyCode}, rc.Aliases...) {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in recipient record %+v", rc)
				}
			}
			if rc.Status != "" && !smtpcode.IsStatus(rc.Status) {
				t.Fatalf("status %q is not an enhanced status code", rc.Status)
			}
			if rc.ReplyCode != "" && !smtpcode.IsReply(rc.ReplyCode) {
				t.Fatalf("reply code %q is not a reply code", rc.ReplyCode)
			}
		}
		o := r.Original
		for _, s := range []string{o.MessageID, o.From, o.To, o.Subject, o.Date, o.Sender, r.ReportingMTA} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in report %+v", r)
			}
		}
	})
}
