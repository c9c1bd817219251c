package dsn

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/message"
)

// Bad input (issue 2, acceptance 3): no panic, bounded memory, a clear
// error or a best-effort report. Time is bounded by the caps in caps.go;
// its figures live in the benchmarks, not here.

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parseBounceFixture parses a message of internal/testdata/bounces/eml.
func parseBounceFixture(t testing.TB, file string) *Report {
	t.Helper()
	b, err := os.ReadFile("../internal/testdata/bounces/eml/" + file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// mustParse parses raw and fails on a recovered panic.
func mustParse(t *testing.T, raw []byte) *Report {
	t.Helper()
	r, err := Parse(raw)
	if errors.Is(err, ErrInternal) {
		t.Fatalf("Parse panicked: %v", err)
	}
	if r == nil {
		t.Fatal("Parse returned no report")
	}
	return r
}

// allocatedBy returns the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestTruncatedMIME(t *testing.T) {
	raw := readFixture(t, "postfix.eml")
	// Cut inside the delivery-status part, after the first record.
	cut := bytes.Index(raw, []byte("Final-Recipient: rfc822; carol"))
	r := mustParse(t, raw[:cut])
	if !r.Truncated {
		t.Error("Truncated not set for a multipart without its close delimiter")
	}
	if r.Kind != KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != "bob@example.net" || r.Recipients[0].Status != "5.1.1" {
		t.Errorf("best effort: got kind %q recipients %+v, want the bounce for bob@example.net 5.1.1", r.Kind, r.Recipients)
	}
	// Every prefix parses without a panic.
	for n := 0; n < len(raw); n += 97 {
		mustParse(t, raw[:n])
	}
}

func TestMissingBoundaries(t *testing.T) {
	raw := readFixture(t, "postfix.eml")
	// The declared boundary never appears in the body.
	noDelims := bytes.ReplaceAll(raw, []byte("--4AbCdE1xyz.1772442902/mail.example.org"), []byte(""))
	r := mustParse(t, noDelims)
	if r.Kind != KindBounce || len(r.Recipients) != 2 {
		t.Errorf("body read as text: kind %q, %d recipients, want a bounce with 2", r.Kind, len(r.Recipients))
	}
	// No boundary parameter at all.
	noParam := bytes.Replace(raw, []byte(`boundary="4AbCdE1xyz.1772442902/mail.example.org"`), []byte(`charset=us-ascii`), 1)
	r = mustParse(t, noParam)
	if r.Kind != KindBounce || len(r.Recipients) != 2 {
		t.Errorf("multipart without boundary: kind %q, %d recipients, want a bounce with 2", r.Kind, len(r.Recipients))
	}
}

// manyRecipients builds an RFC 3464 report with n recipient records.
func manyRecipients(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: MAILER-DAEMON@mx.example.com\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain\r\n\r\nThe mail system could not deliver it.\r\n" +
		"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Final-Recipient: rfc822; user%d@example.net\r\nAction: failed\r\nStatus: 5.1.1\r\n"+
			"Diagnostic-Code: smtp; 550 5.1.1 <user%d@example.net>: User unknown\r\n\r\n", i, i)
	}
	b.WriteString("--B--\r\n")
	return b.Bytes()
}

func TestTenThousandRecipients(t *testing.T) {
	raw := manyRecipients(MaxRecipients)
	var r *Report
	alloc := allocatedBy(func() { r = mustParse(t, raw) })
	if len(r.Recipients) != MaxRecipients || r.Truncated {
		t.Fatalf("%d recipients (truncated %v), want all %d", len(r.Recipients), r.Truncated, MaxRecipients)
	}
	if last := r.Recipients[MaxRecipients-1]; last.Address != fmt.Sprintf("user%d@example.net", MaxRecipients-1) || last.Status != "5.1.1" || last.ReplyCode != "550" {
		t.Errorf("last record %+v", last)
	}
	// Linear in the input: a few times its size, not its square.
	if limit := uint64(20 * len(raw)); alloc > limit {
		t.Errorf("allocated %d bytes for a %d-byte report, want under %d", alloc, len(raw), limit)
	}
	// Ten thousand: the cap, and what is read past it costs no more than
	// the text itself.
	raw = manyRecipients(10000)
	alloc = allocatedBy(func() { r = mustParse(t, raw) })
	if len(r.Recipients) != MaxRecipients || !r.Truncated {
		t.Fatalf("%d recipients (truncated %v) of 10000, want the cap %d and Truncated", len(r.Recipients), r.Truncated, MaxRecipients)
	}
	if limit := uint64(4 * len(raw)); alloc > limit {
		t.Errorf("allocated %d bytes for a %d-byte report of 10000 recipients, want under %d", alloc, len(raw), limit)
	}
	r = mustParse(t, manyRecipients(MaxRecipients+5))
	if len(r.Recipients) != MaxRecipients || !r.Truncated {
		t.Errorf("%d recipients (truncated %v), want the cap %d and Truncated", len(r.Recipients), r.Truncated, MaxRecipients)
	}
}

func TestHugeAttachment(t *testing.T) {
	report := readFixture(t, "postfix.eml")
	end := bytes.LastIndex(report, []byte("--4AbCdE1xyz.1772442902/mail.example.org--"))
	var b bytes.Buffer
	b.Write(report[:end])
	b.WriteString("--4AbCdE1xyz.1772442902/mail.example.org\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n")
	line := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", 2) + "\n"
	for b.Len() < 50<<20 {
		b.WriteString(line)
	}
	b.WriteString("--4AbCdE1xyz.1772442902/mail.example.org--\n")
	raw := b.Bytes()
	var r *Report
	alloc := allocatedBy(func() { r = mustParse(t, raw) })
	if r.Kind != KindBounce || len(r.Recipients) != 2 {
		t.Errorf("kind %q, %d recipients, want the bounce with 2", r.Kind, len(r.Recipients))
	}
	// The attachment is skipped, not decoded or copied.
	if alloc > 4<<20 {
		t.Errorf("allocated %d bytes for a 50 MB attachment, want under 4 MB", alloc)
	}
	// A 50 MB text part is decoded only up to MaxDecodedPart.
	text := bytes.Replace(raw, []byte("Content-Type: application/octet-stream"), []byte("Content-Type: text/plain"), 1)
	alloc = allocatedBy(func() { r = mustParse(t, text) })
	if r.Kind != KindBounce || len(r.Recipients) != 2 {
		t.Errorf("text attachment: kind %q, %d recipients", r.Kind, len(r.Recipients))
	}
	if alloc > 16*MaxDecodedPart {
		t.Errorf("allocated %d bytes for a 50 MB text part, want under %d", alloc, 16*MaxDecodedPart)
	}
}

func TestDeepNesting(t *testing.T) {
	inner := readFixture(t, "postfix.eml")
	// message/rfc822 nested 50 deep around a bounce.
	msg := inner
	for i := 0; i < 50; i++ {
		msg = append([]byte(fmt.Sprintf("From: relay%d@example.com\nSubject: Fwd: wrapped %d\nMIME-Version: 1.0\n"+
			"Content-Type: multipart/mixed; boundary=\"N%d\"\n\n--N%d\nContent-Type: message/rfc822\n\n", i, i, i, i)),
			append(msg, []byte(fmt.Sprintf("\n--N%d--\n", i))...)...)
	}
	r := mustParse(t, msg)
	if r.Kind == KindBounce {
		t.Errorf("a bounce 50 forwards deep was read as a bounce: the embedded search must stop at %d levels", maxEmbedDepth)
	}
	// multipart nested 50 deep: the walk stops at message.MaxDepth.
	var b bytes.Buffer
	b.WriteString("From: MAILER-DAEMON@mx.example.com\nSubject: Undelivered Mail\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"D0\"\n\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "--D%d\nContent-Type: multipart/mixed; boundary=\"D%d\"\n\n", i, i+1)
	}
	b.WriteString("--D50\nContent-Type: text/plain\n\n<deep@example.net>: host mx.example.net[192.0.2.1] said: 550 5.1.1 no such user\n")
	r = mustParse(t, b.Bytes())
	if !r.Truncated {
		t.Error("Truncated not set for multiparts nested deeper than message.MaxDepth")
	}
}

func TestBinaryGarbage(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		b := make([]byte, rng.Intn(8192))
		rng.Read(b)
		r := mustParse(t, b)
		if r.Kind == KindBounce || r.Kind == KindDelay {
			t.Fatalf("random bytes read as %q: %+v", r.Kind, r.Recipients)
		}
	}
	// Garbage after a valid header, and NUL bytes inside one.
	g := append([]byte("From: MAILER-DAEMON@example.com\nSubject: \x00\xff\xfe failure notice\nContent-Type: multipart/report; boundary=\"\x00\"\n\n"), bytes.Repeat([]byte{0xff, 0x00, '\n', '-', '-'}, 4000)...)
	mustParse(t, g)
	if _, err := Parse(nil); err == nil {
		t.Error("empty input: no error")
	}
}

func TestUnknownCharset(t *testing.T) {
	raw := []byte("From: MAILER-DAEMON@mx.example.com\nSubject: failure notice\nContent-Type: text/plain; charset=x-no-such-charset-42\n" +
		"Content-Transfer-Encoding: 8bit\n\nHi. This is the qmail-send program at mx.example.com.\n\n" +
		"<quinn@example.org>:\n192.0.2.7 does not like recipient.\nRemote host said: 550 5.1.1 \xe9\xe8 unknown user\nGiving up on 192.0.2.7.\n")
	r := mustParse(t, raw)
	if r.Kind != KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Status != "5.1.1" {
		t.Fatalf("kind %q recipients %+v, want the bounce for quinn@example.org 5.1.1", r.Kind, r.Recipients)
	}
	if d := r.Recipients[0].Diagnostic; !strings.Contains(d, "unknown user") || !isValidUTF8(d) {
		t.Errorf("diagnostic %q: want the text, valid UTF-8", d)
	}
	// An encoded word in an unknown charset stays as it is.
	if got := message.DecodeWords("=?x-unknown?Q?abc?="); got != "=?x-unknown?Q?abc?=" {
		t.Errorf("decodeWords kept %q", got)
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestHostileTranscriptsStayLinear feeds the free-text heuristics what
// makes them work hardest: thousands of local parts to complete against a
// returned message with thousands of addresses, thousands of accepted
// recipients before a failed DATA with many replies, and one long line full
// of the words a sentence recipient follows. Time and memory stay linear in
// the input.
func TestHostileTranscriptsStayLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("From: MAILER-DAEMON@mx.example.org\nSubject: Returned mail: see transcript for details\n\n   ----- Transcript of session follows -----\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "550 5.1.1 user%d... User unknown\n", i)
	}
	b.WriteString("\n   ----- Original message follows -----\n\nFrom: a@example.com\nTo: ")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "user%d@one.example, user%d@two.example, ", i, i)
	}
	b.WriteString("x@example.com\nSubject: x\n\nbody\n")
	localParts := []byte(b.String())

	b.Reset()
	b.WriteString("From: MAILER-DAEMON@mx.example.org\nSubject: Undelivered Mail\n\nTranscript of session follows.\n\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, " In:  RCPT TO:<r%d@example.com>\n Out: 250 2.1.5 Ok\n", i)
	}
	b.WriteString(" In:  DATA\n")
	for i := 0; i < 500; i++ {
		b.WriteString(" Out: 451 4.3.0 Error: queue file write error, and more text to make it long\n")
	}
	accepted := []byte(b.String())

	sentence := []byte("From: MAILER-DAEMON@mx.example.org\nSubject: Undeliverable\n\n" +
		strings.Repeat("the recipient address of the message to ", 6000) + " x@example.com\n")

	for name, raw := range map[string][]byte{"local parts": localParts, "accepted": accepted, "sentence": sentence} {
		var r *Report
		alloc := allocatedBy(func() { r = mustParse(t, raw) })
		if limit := uint64(64 * len(raw)); alloc > limit {
			t.Errorf("%s: allocated %d bytes for %d bytes of input, want under %d", name, alloc, len(raw), limit)
		}
		if name != "sentence" && (r.Kind != KindBounce || len(r.Recipients) < min(3000, MaxRecipients)) {
			t.Errorf("%s: kind %s with %d records, want a bounce for each recipient", name, r.Kind, len(r.Recipients))
		}
		for _, rc := range r.Recipients {
			if len(rc.Diagnostic) > MaxDiagnostic {
				t.Fatalf("%s: a diagnostic of %d bytes", name, len(rc.Diagnostic))
			}
		}
	}
}
