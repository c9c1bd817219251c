//go:build e2e

package main

// The hardening of issue 9 through a real Postfix: no real mail refused as
// backscatter, no forged X-NDR-* field delivered, a 2 MB body summary.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
)

// personFromPostmaster is a person's message from the postmaster address of
// a partner (an ordinary envelope sender) that quotes a bounce of a message
// that was never sent from here, Message-ID and all.
func personFromPostmaster(id string) string {
	return fmt.Sprintf(`From: Partner Postmaster <postmaster@partner.test>
To: <%[1]s>
Subject: Re: your message to bob
Date: %[2]s
Message-ID: <%[3]s>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Hello Alice,

our server logged this about a message that looks like it came from you:

Your message to <bob@partner.test> could not be delivered:
550 5.2.2 <bob@partner.test>: mailbox full

Final-Recipient: rfc822; bob@partner.test
Action: failed
Status: 5.2.2

Can you tell me whether it was you?

Regards,
the partner's postmaster
`, alice, time.Now().Format(time.RFC1123Z), id)
}

// forwardedDSN is the bounce of a message alice sent to info@remote.test,
// which forwarded it to bob@other.test, where it failed: Original-Recipient
// is the address alice wrote to, Final-Recipient the one it was forwarded
// to, and the original is not attached.
func forwardedDSN(id string) string {
	return fmt.Sprintf(`From: Mail Delivery System <MAILER-DAEMON@mx.other.test>
To: <%[1]s>
Subject: Undelivered Mail Returned to Sender
Date: %[2]s
Message-ID: <%[3]s>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="fwd-b"

--fwd-b
Content-Type: text/plain; charset=us-ascii

Your message could not be delivered to one or more recipients.

--fwd-b
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.other.test

Original-Recipient: rfc822;info@remote.test
Final-Recipient: rfc822;bob@other.test
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <bob@other.test>: user unknown

--fwd-b--
`, alice, time.Now().Format(time.RFC1123Z), id)
}

// With --backscatter-action reject, real mail is never refused: a person's
// message from postmaster@ with an ordinary sender, quoting a bounce, is
// delivered (tagged at most); a bounce for a message alice sent to an
// address that forwarded it is delivered and judged "no" on the
// Original-Recipient; a forged bounce naming a Message-ID never sent is
// still refused.
func TestE2ERejectNeverRefusesRealMail(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost("--backscatter-action", "reject"))

	person := uniqueID("person")
	s := env.Postfix.Dial(t, internetIP)
	if err := s.Send("postmaster@partner.test", []string{alice}, personFromPostmaster(person)); err != nil {
		t.Fatalf("a person's mail from postmaster@ with reject configured: %v, want accepted", err)
	}
	s.Quit()
	env.Await("the person's mail from postmaster@", withMessageID(person))

	sent := uniqueID("to-info")
	out := env.Postfix.Dial(t, internetIP)
	out.Login()
	if err := out.Send(alice, []string{"info@remote.test"}, aliceMessage(sent, "info@remote.test", "to info")); err != nil {
		t.Fatalf("send: %v", err)
	}
	out.Quit()
	env.Await("<"+sent+">", withMessageID(sent))
	fwd := uniqueID("fwd-dsn")
	in := env.Postfix.Dial(t, internetIP)
	if err := in.Send("", []string{alice}, forwardedDSN(fwd)); err != nil {
		t.Fatalf("the bounce of a forwarded message alice sent: %v, want accepted", err)
	}
	in.Quit()
	m := env.Await("the bounce of the forwarded message", withMessageID(fwd))
	if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || bs[0] != "no; evidence=recipient-match" {
		t.Errorf("forwarded bounce: X-NDR-Backscatter = %q, want no; evidence=recipient-match (alice wrote to info@remote.test)", bs)
	}

	never := uniqueID("never-sent")
	f := env.Postfix.Dial(t, internetIP)
	if err := f.Send("", []string{alice}, remoteDSN(never, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", "")); !isPermanentRefusal(err) {
		t.Errorf("a forged bounce naming a Message-ID never sent: %v, want refused", err)
	}
	f.Quit()
}

// However many X-NDR-* fields a bounce brings from outside (101 here, the
// forged one first), only ndrmilter's own are delivered, after the others;
// more than the milter deletes get a temporary failure, never a delivery.
// Mail from a logged-in user to one of our users loses its X-NDR-* fields.
func TestE2EForgedNDRFieldsNeverDelivered(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	for _, n := range []int{101, 1000} {
		id := uniqueID(fmt.Sprintf("forged%d", n))
		forged := strings.Repeat("X-NDR-Owner: sender\n", n)
		s := env.Postfix.Dial(t, internetIP)
		start := time.Now()
		if err := s.Send("", []string{alice}, remoteDSN(id, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", forged)); err != nil {
			t.Fatalf("a bounce with %d forged fields: %v", n, err)
		}
		t.Logf("%d forged fields removed by Postfix for the milter in %v", n, time.Since(start).Round(time.Millisecond))
		s.Quit()
		m := env.Await(fmt.Sprintf("the bounce with %d forged fields", n), withMessageID("dsn."+id))
		var ndr []string
		for _, line := range strings.Split(strings.SplitN(string(m.Data), "\r\n\r\n", 2)[0], "\r\n") {
			if strings.HasPrefix(strings.ToLower(line), "x-ndr-") {
				ndr = append(ndr, line)
			}
		}
		if len(m.HeaderValues("X-NDR-Owner")) != 1 || len(ndr) < 4 || !strings.HasPrefix(ndr[0], "X-NDR-Backscatter: yes") {
			t.Errorf("%d forged fields: the delivered X-NDR fields are %d, the first %q; want only ndrmilter's four, X-NDR-Backscatter first",
				n, len(ndr), ndr[:min(2, len(ndr))])
		}
	}

	many := uniqueID("forged-too-many")
	s := env.Postfix.Dial(t, internetIP)
	err := s.Send("", []string{alice}, remoteDSN(many, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", strings.Repeat("X-NDR-Owner: sender\n", 1001)))
	if se := smtpError(err); se == nil || se.Code/100 != 4 {
		t.Errorf("a bounce with 1001 forged fields: %v, want a 4xx", err)
	}
	s.Quit()
	if _, ok := env.Postfix.Sink.Await(2*time.Second, withMessageID("dsn."+many)); ok {
		t.Error("the bounce with 1001 forged fields was delivered")
	}

	internal := uniqueID("internal")
	u := env.Postfix.Dial(t, internetIP)
	u.Login()
	msg := strings.Replace(aliceMessage(internal, "bob@"+postfixtest.Domain, "to bob"), "MIME-Version:",
		"X-NDR-Backscatter: no; evidence=message-id\nX-NDR-Owner: none\nMIME-Version:", 1)
	if err := u.Send(alice, []string{"bob@" + postfixtest.Domain}, msg); err != nil {
		t.Fatalf("send: %v", err)
	}
	u.Quit()
	m := env.Await("alice's message to bob, our user", withMessageID(internal))
	if strings.Contains(strings.ToLower(strings.SplitN(string(m.Data), "\r\n\r\n", 2)[0]), "x-ndr-") {
		t.Errorf("a logged-in user's mail to our user was delivered with X-NDR fields")
	}
}

// bigDSN is remoteDSN with a large plain-text part (the remote session's
// transcript) at its end: about size bytes.
func bigDSN(id string, size int) string {
	msg := remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 <bob@remote.test>: user unknown", "")
	last := strings.LastIndex(msg, "--dsn-boundary-")
	boundary := strings.TrimSuffix(strings.TrimPrefix(msg[last:], "--"), "--\n")
	var part strings.Builder
	part.WriteString("--" + boundary + "\nContent-Type: text/plain; charset=us-ascii\nContent-Description: Transcript\n\n")
	for i := 0; len(msg)+part.Len() < size; i++ {
		fmt.Fprintf(&part, "%08d transcript line of the remote session, kept for the admins to read later\n", i)
	}
	return msg[:last] + part.String() + msg[last:]
}

// With --body-summary, a 2 MB bounce gets its summary through Postfix: the
// new body goes to Postfix in packets of at most 64 KiB, and the bounce
// arrives whole, explained, the summary on top.
func TestE2EBodySummaryOfA2MBBounce(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost("--body-summary"))
	id := uniqueID("big")
	msg := bigDSN(id, 1_950_000)
	s := env.Postfix.Dial(t, internetIP)
	if err := s.Send("", []string{alice}, msg); err != nil {
		t.Fatalf("a %d-byte bounce: %v", len(msg), err)
	}
	s.Quit()
	m := env.Await("the 2 MB bounce", withMessageID("dsn."+id))
	body := string(m.Data[strings.Index(string(m.Data), "\r\n\r\n"):])
	if len(m.HeaderValues("X-NDR-Explanation")) == 0 {
		t.Errorf("the 2 MB bounce was not explained: %q", m.HeaderValues("X-NDR-Backscatter"))
	}
	i := strings.Index(body, "[ndrmilter] What this bounce means:")
	j := strings.Index(body, "This is the mail system at host")
	if i < 0 || j < i {
		t.Errorf("the summary is not at the top of the text (summary at %d, text at %d)", i, j)
	}
	if !strings.Contains(body, "the remote session, kept for the admins to read later\r\n--dsn-boundary-") {
		t.Errorf("the end of the bounce was lost: %d bytes delivered of %d", len(m.Data), len(msg))
	}
}
