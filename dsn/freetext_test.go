package dsn

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// notice builds a free-text report: a mailer daemon's message with the
// given subject and body, and header fields after the first three.
func notice(subject, body string, fields ...string) []byte {
	h := "From: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.org>\n" +
		"To: <sender@example.com>\n" +
		"Subject: " + subject + "\n"
	for _, f := range fields {
		h += f + "\n"
	}
	return []byte(h + "\n" + body)
}

// addresses returns the recipients' addresses of a report.
func addresses(r *Report) []string {
	var out []string
	for _, rc := range r.Recipients {
		out = append(out, rc.Address)
	}
	return out
}

func TestSendmailSummaryLinesNameEachFailedRecipient(t *testing.T) {
	r := mustParse(t, notice("Returned mail: Host unknown", `   ----- Transcript of session follows -----
550 k.ohara@nohost.example... Host unknown (Name server: nohost.example: host not found)
... while talking to mx.example.net.:
>>> RCPT To:<lmartin@example.net>
<<< 550 <lmartin@example.net>... User unknown
550 lmartin@example.net... User unknown
... while talking to mx.example.com.:
>>> DATA
<<< 552 Requested mail action aborted: exceeded storage allocation
554 dpierce@example.com... Service unavailable
554 tfoley@example.com... Service unavailable

   ----- Unsent message follows -----
From: Diane Rose <sender@example.com>
To: k.ohara@nohost.example, lmartin@example.net, dpierce@example.com, tfoley@example.com
`))
	want := []struct{ address, command, reply, diag string }{
		{"k.ohara@nohost.example", "", "550", "Host unknown"},
		{"lmartin@example.net", "RCPT", "550", "User unknown"},
		{"dpierce@example.com", "DATA", "552", "exceeded storage allocation"},
		{"tfoley@example.com", "DATA", "552", "exceeded storage allocation"},
	}
	if r.Kind != KindBounce || len(r.Recipients) != len(want) {
		t.Fatalf("kind %s, recipients %q, want a bounce for %d", r.Kind, addresses(r), len(want))
	}
	for i, w := range want {
		rc := r.Recipients[i]
		if rc.Address != w.address || rc.Command != w.command || rc.ReplyCode != w.reply || !strings.Contains(rc.Diagnostic, w.diag) {
			t.Errorf("record %d: %q command %q reply %q diagnostic %q, want %q %q %q containing %q", i, rc.Address, rc.Command, rc.ReplyCode, rc.Diagnostic, w.address, w.command, w.reply, w.diag)
		}
		if strings.Contains(rc.Diagnostic, "<<<") || strings.Contains(rc.Diagnostic, ">>>") {
			t.Errorf("record %d: transcript marks left in the diagnostic %q", i, rc.Diagnostic)
		}
	}
	if d := r.Recipients[1].Diagnostic; strings.Contains(d, "storage") {
		t.Errorf("the DATA failure of the next dialogue leaked into lmartin's diagnostic: %q", d)
	}
}

func TestPipelinedRepliesThatNameTheRecipientAreItsRCPT(t *testing.T) {
	r := mustParse(t, notice("Returned mail: see transcript for details", `   ----- Transcript of session follows -----
... while talking to mx.example.org.:
>>> DATA
<<< 550 5.2.1 <one@example.org>... Mailbox disabled
550 5.2.1 <one@example.org>... Mailbox disabled
<<< 550 5.1.1 <two@example.org>... User unknown
550 5.1.1 <two@example.org>... User unknown
<<< 503 5.0.0 Need RCPT (recipient)
`))
	if got := fmt.Sprint(addresses(r)); got != "[one@example.org two@example.org]" {
		t.Fatalf("recipients %s", got)
	}
	for i, st := range []string{"5.2.1", "5.1.1"} {
		if rc := r.Recipients[i]; rc.Command != "RCPT" || rc.Status != st {
			t.Errorf("%s: command %q status %q, want RCPT %s (the reply names it: a pipelined RCPT's)", rc.Address, rc.Command, rc.Status, st)
		}
	}
}

func TestATimeStampedTranscriptGivesTheErrorReply(t *testing.T) {
	// MDaemon: the whole session, 2xx replies included, after a time stamp.
	r := mustParse(t, notice("Permanent Delivery Failure", `The attached message had PERMANENT fatal delivery errors!

--- Session Transcript ---
 Tue 2024-07-02 09:05:15.326: <-- 220 store.example.net ESMTP
 Tue 2024-07-02 09:05:15.330: --> MAIL From:<sender@example.com> SIZE=2281
 Tue 2024-07-02 09:05:15.333: <-- 250 2.1.0 Ok
 Tue 2024-07-02 09:05:15.334: --> RCPT To:<h.quinn@example.net>
 Tue 2024-07-02 09:05:15.338: <-- 550 5.1.1 <h.quinn@example.net>: Recipient address rejected: User unknown
 Tue 2024-07-02 09:05:15.339: --> QUIT
--- End Transcript ---
`))
	if len(r.Recipients) != 1 {
		t.Fatalf("recipients %q, want h.quinn@example.net alone", addresses(r))
	}
	rc := r.Recipients[0]
	if r.Kind != KindBounce || rc.Address != "h.quinn@example.net" || rc.Status != "5.1.1" || rc.ReplyCode != "550" || rc.Command != "RCPT" ||
		!strings.HasPrefix(rc.Diagnostic, "550 5.1.1 <h.quinn@example.net>") {
		t.Errorf("got %s %+v, want a bounce, 5.1.1 550 at RCPT, the reply without its time stamp", r.Kind, rc)
	}
}

func TestRecipientsAcceptedBeforeAFailedDATAFailWithIt(t *testing.T) {
	// Postfix's notice to the postmaster: "In:" is the client's command.
	r := mustParse(t, notice("Postmaster Copy: Undelivered Mail", `Transcript of session follows.

 Out: 220 mx.example.com ESMTP
 In:  MAIL FROM:<sender@example.com>
 Out: 250 2.1.0 Ok
 In:  RCPT TO:<a@example.com>
 Out: 250 2.1.5 Ok
 In:  RCPT TO:<b@example.com>
 Out: 250 2.1.5 Ok
 In:  DATA
 Out: 354 End data with <CR><LF>.<CR><LF>
 Out: 451 4.3.0 Error: queue file write error
 In:  QUIT
 Out: 221 2.0.0 Bye
`))
	if got := fmt.Sprint(addresses(r)); got != "[a@example.com b@example.com]" {
		t.Fatalf("recipients %s, want both accepted recipients", got)
	}
	for _, rc := range r.Recipients {
		if rc.Command != "DATA" || rc.Status != "4.3.0" || rc.ReplyCode != "451" {
			t.Errorf("%s: command %q status %q reply %q, want DATA 4.3.0 451", rc.Address, rc.Command, rc.Status, rc.ReplyCode)
		}
	}
}

func TestALocalPartIsCompletedOnlyWhenItsDomainIsCertain(t *testing.T) {
	transcript := "   ----- Transcript of session follows -----\n550 5.1.1 info... User unknown\n\n   ----- Original message follows -----\n\n"
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"the returned message went to one address with that local part",
			notice("Returned mail: see transcript for details", transcript+"From: sender@example.com\nTo: Info <info@one.example>, boss@two.example\nSubject: x\n\nhi\n"),
			"info@one.example"},
		{"it went to two: either may be the one",
			notice("Returned mail: see transcript for details", transcript+"From: sender@example.com\nTo: info@one.example, info@two.example\nSubject: x\n\nhi\n"),
			""},
		{"it went to none",
			notice("Returned mail: see transcript for details", transcript+"From: sender@example.com\nTo: sales@one.example\nSubject: x\n\nhi\n"),
			""},
		{"no returned message, the report of a host: example.net or mx.example.org?",
			notice("Returned mail: see transcript for details", "   ----- Transcript of session follows -----\n550 5.1.1 info... User unknown\n", "Message-Id: <1@mx.example.org>"),
			""},
		{"no returned message, the daemon of a registered domain writes under its own name",
			[]byte("From: Mail Delivery Subsystem <MAILER-DAEMON@aol.example>\nTo: sender@example.com\nMessage-Id: <201203201908.9.7b3@imo-d04.mx.aol.example>\nSubject: Returned mail: Mail not accepted\n\n" +
				"Your mail to the following recipients could not be delivered because they are not accepting mail from sender@example.com:\n\trosebud1962\n"),
			"rosebud1962@aol.example"},
		{"a Message-ID from elsewhere makes the domain uncertain",
			[]byte("From: Mail Delivery Subsystem <MAILER-DAEMON@aol.example>\nTo: sender@example.com\nMessage-Id: <1@relay.example.net>\nSubject: Returned mail: Mail not accepted\n\n" +
				"Your mail to the following recipients could not be delivered because they are not accepting mail from sender@example.com:\n\trosebud1962\n"),
			""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, c.raw)
			if r.Kind != KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != c.want {
				t.Errorf("kind %s recipients %q, want a bounce for %q", r.Kind, addresses(r), c.want)
			}
		})
	}
}

func TestHelpTextAndSenderAddressesAreNeverTheRecipient(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"an example and a contact in the help text",
			notice("Mail delivery failed", `Your message could not be delivered.

Most of the time this is caused by a typing mistake. Check that it is
written as name@domain, for example
jane.doe@example.org, without spaces or a trailing dot.

If you need help, write to helpdesk@example.org and attach this report.

<m.bauer@example.net>: host mx1.example.net[198.51.100.20] said: 550 5.1.1 User unknown
`), "m.bauer@example.net"},
		{"the help text alone names no recipient",
			notice("Undeliverable message", "Your message could not be delivered: the mailbox is full.\n\nFor help, contact support@example.org or write to the\naddress helpdesk@example.org.\n"), ""},
		{"the sender the remote server refuses",
			notice("Returned mail", "Your mail to rosa@example.net could not be delivered because the server is not accepting mail from sender@example.com.\n"),
			"rosa@example.net"},
		{"only the sender is named",
			notice("Returned mail", "The message could not be delivered because they are not accepting mail from sender@example.com.\n"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, c.raw)
			if r.Kind != KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != c.want {
				t.Errorf("kind %s recipients %q, want a bounce for %q", r.Kind, addresses(r), c.want)
			}
		})
	}
}

func TestTheOriginalsToIsTakenOnlyWhenItIsOnePersonsAddress(t *testing.T) {
	body := "Your message could not be delivered. The mailbox of the recipient is full.\n\n----- Original message headers -----\n\n"
	for _, c := range []struct {
		name, original, want string
	}{
		{"one address", "From: sender@example.com\nTo: Pierre <p.lefebvre@example.org>\nSubject: x\nMessage-ID: <1@example.com>\n", "p.lefebvre@example.org"},
		{"two addresses", "From: sender@example.com\nTo: p.lefebvre@example.org, c.dubois@example.org\nSubject: x\nMessage-ID: <1@example.com>\n", ""},
		{"a list's own address", "From: sender@example.com\nTo: team@lists.example.org\nList-Post: <mailto:team@lists.example.org>\nSubject: [Team] x\nMessage-ID: <1@example.com>\n", ""},
		{"a newsletter to one reader", "From: news@example.com\nTo: reader@example.org\nList-Unsubscribe: <mailto:u@example.com>\nPrecedence: bulk\nSubject: x\nMessage-ID: <1@example.com>\n", "reader@example.org"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, notice("Delivery failure", body+c.original))
			if r.Kind != KindBounce || len(r.Recipients) != 1 || r.Recipients[0].Address != c.want {
				t.Errorf("kind %s recipients %q, want a bounce for %q", r.Kind, addresses(r), c.want)
			}
		})
	}
}

func TestARecordGivesAllTheAddressesOfItsRecipient(t *testing.T) {
	r := mustParse(t, []byte(`From: MAILER-DAEMON@ms.example.org
Subject: Delivery Notification: Delivery has failed
Content-Type: multipart/report; report-type=delivery-status; boundary="b"

--b
Content-Type: message/delivery-status

Reporting-MTA: dns;ms.example.org

Action: failed
Status: 5.1.1
Final-recipient: rfc822;@mx.relay.example.org,@gw.example.org:v.rossi@example.net
Original-recipient: rfc822;valerio@example.net
X-Actual-Recipient: rfc822; vrossi@store.example.net
Diagnostic-code: smtp;550 5.1.1 <v.rossi@example.net>: User unknown

Action: failed
Status: 5.3.0
Final-Recipient: rfc822; backup@srv7.example.org
Diagnostic-Code: X-Unix; /usr/local/bin/store: exit 75
--b--
`))
	if len(r.Recipients) != 2 {
		t.Fatalf("recipients %q", addresses(r))
	}
	rc := r.Recipients[0]
	if rc.Address != "v.rossi@example.net" || rc.OriginalRecipient != "valerio@example.net" || fmt.Sprint(rc.Aliases) != "[vrossi@store.example.net]" || rc.DiagnosticType != DiagnosticSMTP {
		t.Errorf("got %q original %q aliases %q type %q, want the route stripped, the original, the actual recipient and smtp", rc.Address, rc.OriginalRecipient, rc.Aliases, rc.DiagnosticType)
	}
	if rc := r.Recipients[1]; rc.DiagnosticType != "x-unix" || rc.OriginalRecipient != "" || rc.Aliases != nil || rc.Diagnostic != "/usr/local/bin/store: exit 75" {
		// The second record gives no other address.
		t.Errorf("got type %q original %q aliases %q diagnostic %q, want x-unix and no other address", rc.DiagnosticType, rc.OriginalRecipient, rc.Aliases, rc.Diagnostic)
	}
}

func TestTheNoticeSaysWhetherTheServerGaveUp(t *testing.T) {
	for _, c := range []struct {
		text string
		want smtpcode.Action
	}{
		{"This is a permanent error; I've given up. Sorry it didn't work out.", smtpcode.ActionFailed},
		{"I'm not going to try again; this message has been in the queue too\nlong.", smtpcode.ActionFailed},
		{"  a@example.net\n    retry timeout exceeded", smtpcode.ActionFailed},
		{"all hosts for 'example.net' have been failing for a long time (and retry time not reached)", smtpcode.ActionFailed},
		{"# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\nIt will be retried until it is 5 day(s) old.", smtpcode.ActionDelayed},
		{"A message that you sent has not yet been delivered to one or more of its\nrecipients. Eventually the mail delivery software will give up.", smtpcode.ActionDelayed},
		{"Delivery to the following recipients has been delayed.", smtpcode.ActionDelayed},
		{"Warning: message still undelivered after 4 hours\nWill keep trying until message is 5 days old", smtpcode.ActionDelayed},
		{"Microsoft Exchange will not try to redeliver this message for you.", smtpcode.ActionFailed},
		{"Your message could not be delivered. You can try again later.", ""},
		{"Delivery to the following recipients was successful.\n\n  jdoe@example.net", smtpcode.ActionDelivered},
		{"Your message has been successfully relayed to the following recipients, but the requested delivery status notifications may not be generated by the destination.", smtpcode.ActionRelayed},
		{"Your message cannot be delivered to the following recipients:\n\n  Recipient address: a@example.net", ""},
	} {
		if got := retryState(lowerBytes(c.text)); got != c.want {
			t.Errorf("retryState(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func lowerBytes(s string) []byte { return []byte(strings.ToLower(s)) }

func TestPhrasesMatchAcrossLineBreaks(t *testing.T) {
	l := newPhraseList([]string{"not going to try again", "i am away"})
	for text, want := range map[string]bool{
		"i'm not going to\r\n   try again;": true, "i am\naway": true, "not going to try": false, "i am a way": false,
	} {
		if got := l.in([]byte(text)); got != want {
			t.Errorf("in(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestKindFollowsTheText(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  string
		want Kind
	}{
		{"a warning is a delay, whatever its subject", "From: MAILER-DAEMON@mx.example.org\nSubject: Mail delivery failed\n\n" +
			"THIS IS A WARNING MESSAGE ONLY.\nDelivery to the following recipients has been delayed.\n\n       jdoe@example.net\n", KindDelay},
		{"a failure marked auto-replied is a bounce", "From: \"Delivery Service\" <no-reply@mailhost.example>\nSubject: Delivery failure: Minutes\nAuto-Submitted: auto-replied\n\n" +
			"We could not deliver your message to ivana@mailhost.example: user not found.\n", KindBounce},
		{"a challenge is an auto-reply", "From: Marco <verify@mx.example.net>\nSubject: Please verify your message\nAuto-Submitted: auto-replied\n\n" +
			"I use a spam filter that requires senders to verify their address. Your message\nis being held and has not been delivered yet.\n", KindAutoreply},
		{"a challenge without the header is one too", "From: \"Boxbe\" <notify@boxbe.example>\nReturn-Path: <>\nSubject: Request to join my Guest List\n\n" +
			"Your message about \"Visit\" was waitlisted. Please add yourself to my Guest List so your\nmessages will be delivered to my Inbox.\n", KindAutoreply},
		{"a vacation text with a null sender is an auto-reply", "From: Claudia <c.wagner@example.net>\nReturn-Path: <>\nSubject: Re: Rechnung\n\n" +
			"Thank you for your e-mail. I am on holiday until 8 July.\n", KindAutoreply},
		{"an ordinary message quoting a bounce is none", "From: Carla <c.mendes@example.com>\nReturn-Path: <c.mendes@example.com>\nSubject: Emails keep coming back\n\n" +
			"I get \"550 5.1.1 <b.wong@example.net>: User unknown\" every time. Could you look?\n", KindNone},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := mustParse(t, []byte(c.raw)); r.Kind != c.want {
				t.Errorf("kind %s (%s, recipients %q), want %s", r.Kind, r.Format, addresses(r), c.want)
			}
		})
	}
}

func TestAFailureTakesNoSuccessCodeFromItsText(t *testing.T) {
	r := mustParse(t, notice("Undeliverable", `Delivery failed for the following recipient:

<r.alvarez@example.com>
    250 2.1.0 sender ok, then: User not listed in the directory

--------------------------------------------------------------
X-Mailman-Version: 2.1.12
Precedence: list
`))
	if len(r.Recipients) != 1 || r.Kind != KindBounce || r.Recipients[0].Status != "" || r.Recipients[0].ReplyCode != "" {
		t.Errorf("kind %s records %+v, want a bounce without a status or reply code", r.Kind, r.Recipients)
	}
}

func TestEximAddressesListedTogetherShareTheirError(t *testing.T) {
	r := mustParse(t, notice("Mail delivery failed: returning message to sender", `This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  a@example.net
  b@example.net
    host mx.example.net [192.0.2.1]
    SMTP error from remote mail server after end of data:
    550 5.7.1 Message rejected as spam
  c@example.net
    Unrouteable address
`))
	if got := fmt.Sprint(addresses(r)); got != "[a@example.net b@example.net c@example.net]" {
		t.Fatalf("recipients %s", got)
	}
	for i, want := range []string{"5.7.1", "5.7.1", ""} {
		if rc := r.Recipients[i]; rc.Status != want || (want != "" && rc.Command != "DATA") {
			t.Errorf("%s: status %q command %q, want %q", rc.Address, rc.Status, rc.Command, want)
		}
	}
}

func TestCommandWords(t *testing.T) {
	for _, c := range []struct{ diag, want string }{
		{"Remote host said: 550 5.1.1 no mailbox here; most progress was RCPT TO", "RCPT"},
		{"Connected to 192.0.2.77 but sender was rejected. Remote host said: 553 5.1.8 bad sender", "MAIL"},
		{"192.0.2.5 failed on DATA command. Remote host said: 554 rejected", "DATA"},
		{"SMTP error from remote mail server after pipelined RCPT TO:<a@example.net>: 550 no", "RCPT"},
		{"Connected to 192.0.2.9 but greeting failed. Remote host said: 554 go away", "CONN"},
		{"550 user unknown", ""},
		{"SMTP error from remote server for RCPT TO command, host: mx.example.de reason: 550 mailbox unavailable", "RCPT"},
		{"Delivery to bob@example.net failed: this mailbox does not exist", ""},
		{"550 rejected after database lookup: unknown user", ""},
		{"the sendmail command failed: unknown user", ""},
		{"SMTP error from remote mail server after end of data: 550 spam", "DATA"},
	} {
		if got := findCommand(c.diag); got != c.want {
			t.Errorf("findCommand(%q) = %q, want %q", c.diag, got, c.want)
		}
	}
}

func TestParseAllYieldsEachMessageOfAnMbox(t *testing.T) {
	one := "From MAILER-DAEMON Tue Jul  9 08:01:12 2024\nFrom: MAILER-DAEMON@mx.example.org\nSubject: Mail delivery failed\nX-Failed-Recipients: a@example.net\n\nThe following address(es) failed:\n\n  a@example.net\n    Mailbox quota exceeded\n\n"
	two := "From c@example.net Tue Jul  9 08:03:40 2024\nFrom: c@example.net\nSubject: Auto: hello\nAuto-Submitted: auto-replied (vacation)\n\nThank you for your e-mail. I am on holiday.\n\n"
	three := "From MAILER-DAEMON Tue Jul  9 08:05:02 2024\nFrom: MAILER-DAEMON@mx.example.org\nSubject: failure notice\n\nHi. This is the qmail-send program at mx.example.org.\n\n<b@example.net>:\nSorry, no mailbox here by that name. (#5.1.1)\n"
	var kinds, rcpts []string
	for r, err := range ParseAll([]byte(one + two + three)) {
		if err != nil {
			t.Errorf("ParseAll: %v", err)
		}
		kinds = append(kinds, string(r.Kind))
		rcpts = append(rcpts, addresses(r)...)
	}
	if fmt.Sprint(kinds) != "[bounce autoreply bounce]" || fmt.Sprint(rcpts) != "[a@example.net c@example.net b@example.net]" {
		t.Errorf("kinds %v recipients %v, want each message read", kinds, rcpts)
	}
	// A message alone is one report; so is one with a blank line on top.
	n := 0
	for r := range ParseAll([]byte("   \r\n" + strings.ReplaceAll(three[strings.Index(three, "\n")+1:], "\n", "\r\n"))) {
		n++
		if r.Kind != KindBounce || fmt.Sprint(addresses(r)) != "[b@example.net]" {
			t.Errorf("a message with a blank line on top: kind %s recipients %q", r.Kind, addresses(r))
		}
	}
	if n != 1 {
		t.Errorf("%d reports of one message", n)
	}
}

func TestRegisteredDomain(t *testing.T) {
	for d, want := range map[string]bool{
		"aol.com": true, "example.co.uk": true, "example.ne.jp": true, "example.com.br": true,
		"mail.example.net": false, "mx.aol.com": false, "example.museum.xx": false, "com": false, "a..b": false,
	} {
		if got := registeredDomain(d); got != want {
			t.Errorf("registeredDomain(%q) = %v, want %v", d, got, want)
		}
	}
}

func TestARuleOnlyCutsTheNoticeWhereItIsARule(t *testing.T) {
	text := lowerBytes("Please include this problem report. You can\ndelete your own text from the attached returned message.\n\n<a@example.net>: 550 no\n\n--- Returned Message ---\nFrom: x@example.com\n")
	seps := separatorLines(text)
	if len(seps) != 1 || !strings.HasPrefix(string(text[seps[0]:]), "--- returned message ---") {
		t.Errorf("separators at %v, want the rule alone", seps)
	}
}

func TestTheAddressARecipientWasExpandedFromIsItsOriginal(t *testing.T) {
	r := mustParse(t, notice("Undelivered Mail Returned to Sender", `This is the mail system at host relay.example.org.

<soto@example.com> (expanded from
    <neko@example.ne.jp>): delivery temporarily suspended: host
    mx.example.com[192.0.2.127] refused to talk to me: 421 Service not available
`))
	if len(r.Recipients) != 1 || r.Recipients[0].Address != "soto@example.com" || r.Recipients[0].OriginalRecipient != "neko@example.ne.jp" {
		t.Errorf("records %+v, want soto@example.com expanded from neko@example.ne.jp", r.Recipients)
	}
}

func TestCodelessSummaryLinesCountOnlyUnderATranscriptHeading(t *testing.T) {
	r := mustParse(t, notice("Returned mail: User unknown", `   ----- Transcript of session follows -----
mkowalski... User unknown
tnguyen... User unknown

   ----- Unsent message follows -----
Date: Fri, 5 Jul 2024 13:05:44 +0000
From: Rachel Hale <sender@example.com>
Message-Id: <1@example.com>
To: mkowalski@physics.example.edu, tnguyen@physics.example.edu, lsato@physics.example.edu
Subject: seminar
`))
	if got, want := strings.Join(addresses(r), " "), "mkowalski@physics.example.edu tnguyen@physics.example.edu"; got != want {
		t.Errorf("recipients %q, want %q", got, want)
	}
	// The same lines as prose of a notice, under no transcript heading:
	// "word... text" names nobody.
	r = mustParse(t, notice("Undelivered Mail", `Your message could not be delivered.
Well... the server said no.
mkowalski... User unknown

----- Original message -----
From: Rachel Hale <sender@example.com>
To: mkowalski@physics.example.edu, tnguyen@physics.example.edu
Subject: seminar
`))
	for _, a := range addresses(r) {
		if a != "" {
			t.Errorf("a code-less line outside a transcript named %q", a)
		}
	}
}

func TestACommandTheReportDoesNotStateIsLeftEmpty(t *testing.T) {
	for name, raw := range map[string][]byte{
		"sentence": notice("Undelivered Mail", "Delivery to bob@example.net failed: this mailbox does not exist.\n\nPlease check the address.\n"),
		"exchange list": notice("Undeliverable: Hello", `Your message did not reach some or all of the intended recipients.

The following recipient(s) cannot be reached:

      alice@corp.example.net on 7/1/2024 5:40 PM
            The e-mail address you entered couldn't be found.
            <mail.corp.example.net #5.1.1 smtp;550 5.1.1 Unknown user>
`),
		"nested report": []byte(`From: MAILER-DAEMON@relay.example.org
To: sender@example.com
Subject: failure notice
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/plain

A report about your message follows.

--b1
Content-Type: message/rfc822

From: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.net>
To: sender@example.com
Subject: Returned mail
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b2"

--b2
Content-Type: text/plain

Your message could not be delivered to carol@example.net: Unknown user.

--b2
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; carol@example.net
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 Unknown user

--b2--
--b1--
`),
	} {
		r := mustParse(t, raw)
		if r.Kind != KindBounce || len(r.Recipients) != 1 {
			t.Fatalf("%s: kind %q with %d recipients, want a bounce of one", name, r.Kind, len(r.Recipients))
		}
		if c := r.Recipients[0].Command; c != "" {
			t.Errorf("%s: command %q, want none: the report does not state it", name, c)
		}
	}
}

// TestAChallengeIsMarkedAsOne: a challenge-response filter's challenge is an
// auto-reply whose Format says it is a challenge, with or without the RFC
// 3834 header; an out-of-office notice is not marked.
func TestAChallengeIsMarkedAsOne(t *testing.T) {
	for _, c := range []struct {
		name, raw, want string
	}{
		{"a challenge with the header", "From: Marco <verify@mx.example.net>\nSubject: Please verify your message\nAuto-Submitted: auto-replied\n\n" +
			"I use a spam filter that requires senders to verify their address. Your message\nis being held and has not been delivered yet.\n", FormatChallengeResponse},
		{"a challenge without the header", "From: \"Boxbe\" <notify@boxbe.example>\nReturn-Path: <>\nSubject: Request to join my Guest List\n\n" +
			"Your message about \"Visit\" was waitlisted. Please add yourself to my Guest List so your\nmessages will be delivered to my Inbox.\n", FormatChallengeResponse},
		{"an out-of-office notice", "From: Claudia <c.wagner@example.net>\nAuto-Submitted: auto-replied\nSubject: Out of office: Rechnung\n\n" +
			"Thank you for your e-mail. I am on holiday until 8 July.\n", "rfc3834"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, []byte(c.raw))
			if r.Kind != KindAutoreply || r.Format != c.want {
				t.Errorf("kind %s format %q, want autoreply %q", r.Kind, r.Format, c.want)
			}
		})
	}
}
