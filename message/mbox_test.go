package message

import (
	"fmt"
	"strings"
	"testing"
)

func TestSplitMboxYieldsEachMessage(t *testing.T) {
	mbox := "From MAILER-DAEMON  Tue Jul  9 08:01:12 2024\n" +
		"From: MAILER-DAEMON@mx.example.org\nSubject: one\n\nbody one\n" +
		"From the start of this line, an unquoted body line: not a message\n\n" +
		"From c@example.net  Tue Jul  9 08:03:40 2024\r\n" +
		"From: c@example.net\r\nSubject: two\r\n\r\nbody two\r\n>From quoted\r\n\r\n" +
		"From nobody\n" +
		"not a header: the line above is text\n\n" +
		"From MAILER-DAEMON@mx.example.org Wed Jul 10 12:30:05 2024\n" +
		"Subject: three\n\nbody three\n"
	msgs := SplitMbox([]byte(mbox))
	var subjects []string
	for _, m := range msgs {
		subjects = append(subjects, Read(m).Header.GetString("Subject"))
	}
	if fmt.Sprint(subjects) != "[one two three]" {
		t.Fatalf("subjects %q, want [one two three]", subjects)
	}
	if !strings.Contains(string(msgs[0]), "unquoted body line") || !strings.Contains(string(msgs[1]), "From nobody") {
		t.Errorf("a From line that starts no message was taken for one:\n%q", msgs)
	}
	if strings.Join(func() []string {
		var s []string
		for _, m := range msgs {
			s = append(s, string(m))
		}
		return s
	}(), "") != mbox {
		t.Error("the messages do not add up to the mbox")
	}
}

func TestSplitMboxLeavesAMessageWhole(t *testing.T) {
	for _, raw := range []string{
		"From: a@example.org\nSubject: hi\n\nFrom here on, text.\n\nFrom x Tue Jul  9 08:01:12 2024\nSubject: no\n",
		// A bounce that copies the returned message with its From line.
		"From MAILER-DAEMON Sat Oct  4 08:00:09 2025\nSubject: bounce\n\nbounced E-Mail:\n\nFrom a@example.org  Sat Oct  4 08:00:07 2025\nSubject: original\n\nhi\n",
		"From MAILER-DAEMON Sat Oct  4 08:00:09 2025\nSubject: bounce\n\n----- Original message -----\n\nFrom a@example.org  Sat Oct  4 08:00:07 2025\nSubject: original\n\nhi\n",
		"From MAILER-DAEMON Sat Oct  4 08:00:09 2025\nSubject: bounce\nContent-Type: multipart/report; boundary=b\n\n--b\nContent-Type: message/rfc822\n\nFrom a@example.org  Sat Oct  4 08:00:07 2025\nSubject: original\n\nhi\n--b--\n",
		"",
		"just text",
	} {
		if msgs := SplitMbox([]byte(raw)); len(msgs) != 1 || string(msgs[0]) != raw {
			t.Errorf("SplitMbox(%q) = %q, want the input alone", raw, msgs)
		}
	}
}

func TestSplitMboxStopsAtTheCap(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxMboxMessages+5; i++ {
		fmt.Fprintf(&b, "From x Tue Jul  9 08:01:12 2024\nSubject: %d\n\nbody\n\n", i)
	}
	msgs := SplitMbox([]byte(b.String()))
	if len(msgs) != MaxMboxMessages {
		t.Fatalf("%d messages, want the cap %d", len(msgs), MaxMboxMessages)
	}
	if !strings.HasSuffix(string(msgs[len(msgs)-1]), "Subject: 10004\n\nbody\n\n") {
		t.Error("the last message does not run to the end of the input")
	}
}

func TestReadSkipsBlankLinesBeforeTheHeader(t *testing.T) {
	for _, raw := range []string{
		"\nFrom: MAILER-DAEMON@mx.example.org\nSubject: hi\n\nbody\n",
		"   \r\nReturn-path: <>\r\nSubject: hi\r\n\r\nbody\r\n",
		"\n\t\n\nFrom MAILER-DAEMON Tue Jul  9 08:01:12 2024\nSubject: hi\n\nbody\n",
	} {
		m := Read([]byte(raw))
		if got := m.Header.GetString("Subject"); got != "hi" || len(m.Parts) != 1 || !strings.HasPrefix(string(m.Parts[0].Body), "body") {
			t.Errorf("Read(%q): Subject %q, parts %d, want the header read", raw, got, len(m.Parts))
		}
	}
	// Empty lines and then text: a body without a header, as before.
	m := Read([]byte("\n\nDear customer: hello\n"))
	if len(m.Header) != 0 {
		t.Errorf("body text read as a header: %d fields", len(m.Header))
	}
	// In a MIME part an empty line first means "no header".
	m = Read([]byte("Content-Type: multipart/mixed; boundary=b\n\n--b\n\nReceived: from x\nSubject: copied\n--b--\n"))
	if len(m.Parts) != 1 || len(m.Parts[0].Header) != 0 || !strings.HasPrefix(string(m.Parts[0].Body), "Received:") {
		t.Errorf("a part without header lost its body to a header: %+v", m.Parts)
	}
}
