//go:build e2e

package main

// The mail the end-to-end tests send, and deploy/ndr.sieve run on what
// arrives.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// aliceMessage is an ordinary message alice sends to to, with Message-ID <id>.
func aliceMessage(id, to, subject string) string {
	return fmt.Sprintf("From: Alice <%s>\nTo: <%s>\nSubject: %s\nDate: %s\nMessage-ID: <%s>\nMIME-Version: 1.0\nContent-Type: text/plain\n\nHello, this is %s.\n",
		alice, to, subject, time.Now().Format(time.RFC1123Z), id, subject)
}

// remoteDSN is an RFC 3464 bounce from remote.test's MTA to alice, about
// the message origID she sent (or did not send) to rcpt; its own Message-ID
// is <dsn.origID>. extraHeader, if not empty, is one more header line
// ("Name: value\n") at the top, e.g. a forged X-NDR-* field.
func remoteDSN(origID, rcpt, status, diag, extraHeader string) string {
	boundary := "dsn-boundary-" + fmt.Sprint(time.Now().UnixNano())
	return fmt.Sprintf(`From: Mail Delivery System <MAILER-DAEMON@mx.remote.test>
To: <%[1]s>
Subject: Undelivered Mail Returned to Sender
Date: %[2]s
Message-ID: <dsn.%[3]s>
Auto-Submitted: auto-replied
%[8]sMIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="%[4]s"

--%[4]s
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.remote.test.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<%[5]s>: host mx.remote.test[192.0.2.10] said: %[7]s

--%[4]s
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.remote.test
Arrival-Date: %[2]s

Final-Recipient: rfc822; %[5]s
Original-Recipient: rfc822; %[5]s
Action: failed
Status: %[6]s
Remote-MTA: dns; mx.remote.test
Diagnostic-Code: smtp; %[7]s

--%[4]s
Content-Type: text/rfc822-headers

From: Alice <%[1]s>
To: <%[5]s>
Subject: report
Date: %[2]s
Message-ID: <%[3]s>

--%[4]s--
`, alice, time.Now().Format(time.RFC1123Z), origID, boundary, rcpt, status, diag, extraHeader)
}

// smtpError returns err as an *smtp.SMTPError, or nil.
func smtpError(err error) *smtp.SMTPError {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

// isPermanentRefusal reports whether err is a 5xx reply.
func isPermanentRefusal(err error) bool {
	se := smtpError(err)
	return se != nil && se.Code/100 == 5
}

// sieveFolder runs deploy/ndr.sieve on msg with Pigeonhole's sieve-test and
// returns the folder it files the message into ("" for the inbox). It
// fails the test when sieve-test is missing: "make deps" installs it
// (Debian package dovecot-sieve).
func sieveFolder(t *testing.T, msg []byte) string {
	t.Helper()
	bin, err := exec.LookPath("sieve-test")
	if err != nil {
		t.Fatalf("sieve-test not found (%v): deploy/ndr.sieve is checked with Pigeonhole's sieve-test, from Debian's dovecot-sieve; run \"make deps\" as root", err)
	}
	// sieve-test drops to nobody: every parent must be traversable, which
	// t.TempDir's 0700 directories are not.
	dir, err := os.MkdirTemp("", "ndrmilter-e2e-sieve-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	script, eml := filepath.Join(dir, "ndr.sieve"), filepath.Join(dir, "m.eml")
	src, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ndr.sieve"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{script: src, eml: msg} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-o", "mail_uid=nobody", "-o", "mail_gid=nogroup", script, eml).CombinedOutput()
	if err != nil {
		t.Fatalf("sieve-test: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`store message in folder: (\S+)`).FindSubmatch(out)
	if m == nil {
		return ""
	}
	return string(m[1])
}
