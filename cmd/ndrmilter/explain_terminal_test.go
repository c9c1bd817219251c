package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileBounce carries terminal escape sequences in its diagnostic and in
// its encoded Subject (decoded: ESC ] 52 ... BEL, an OSC 52 clipboard
// write, and ESC [ 2 J, a screen clear), and C1 controls.
const hostileBounce = "From: MAILER-DAEMON@mx.remote.example\r\nTo: alice@example.org\r\n" +
	"Subject: Undelivered Mail\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n" +
	"--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
	"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.remote.example\r\n\r\n" +
	"Final-Recipient: rfc822; bob@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\n" +
	"Remote-MTA: dns; mx\x1b[2J.remote.example\r\n" +
	"Diagnostic-Code: smtp; 550 5.1.1 \x1b]52;c;cm0gLXJmIH4K\x07user unknown\x1b[2J\xc2\x9b31m\x07\r\n\r\n" +
	"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: alice@example.org\r\n" +
	"Subject: =?utf-8?q?quarterly_=1B]52;c;cm0gLXJmIH4K=07report_=1B[2J=C2=9B2J?=\r\n" +
	"Message-ID: <hostile.1@example.org>\r\n\r\n--B--\r\n"

// explain's text output writes no control character but newline and tab,
// whatever the bounce carries; --json escapes them.
func TestExplainTextWritesNoTerminalEscapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.eml")
	if err := os.WriteFile(path, []byte(hostileBounce), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if rc := explainMain([]string{path}, nil, &out, &errOut); rc != exitOK {
		t.Fatalf("explain: exit %d: %s", rc, errOut.String())
	}
	text := out.String()
	if !strings.Contains(text, "user unknown") || !strings.Contains(text, "quarterly") {
		t.Fatalf("the diagnostic or the Subject is missing from the output:\n%s", text)
	}
	for i, r := range text {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("control character %U at byte %d of the text output:\n%q", r, i, text)
		}
	}
	out.Reset()
	if rc := explainMain([]string{"--json", path}, nil, &out, &errOut); rc != exitOK {
		t.Fatalf("explain --json: exit %d: %s", rc, errOut.String())
	}
	if bytes.ContainsAny(out.Bytes(), "\x1b\x07") {
		t.Fatalf("--json wrote a raw escape: %q", out.String())
	}
	var rec map[string]any
	if err := json.Unmarshal(bytes.SplitN(out.Bytes(), []byte("\n"), 2)[0], &rec); err != nil {
		t.Fatalf("--json: %v", err)
	}
}
