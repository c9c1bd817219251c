package dsn_test

import (
	"fmt"

	"github.com/ndrmilter/ndrmilter/dsn"
)

func ExampleParse() {
	raw := "From: MAILER-DAEMON@mx.example.org (Mail Delivery System)\r\n" +
		"To: ann@example.org\r\n" +
		"Subject: Undelivered Mail Returned to Sender\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n" +
		"\r\n" +
		"--b\r\n" +
		"Content-Type: text/plain\r\n" +
		"\r\n" +
		"I'm sorry to have to inform you that your message could not be delivered.\r\n" +
		"--b\r\n" +
		"Content-Type: message/delivery-status\r\n" +
		"\r\n" +
		"Reporting-MTA: dns; mx.example.org\r\n" +
		"\r\n" +
		"Final-Recipient: rfc822; bob@example.net\r\n" +
		"Action: failed\r\n" +
		"Status: 5.1.1\r\n" +
		"Remote-MTA: dns; mx.example.net\r\n" +
		"Diagnostic-Code: smtp; 550 5.1.1 <bob@example.net>: Recipient address rejected:\r\n" +
		"    User unknown in local recipient table\r\n" +
		"--b--\r\n"

	r, err := dsn.Parse([]byte(raw))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Kind, r.Format, r.ReportingMTA)
	for _, rc := range r.Recipients {
		fmt.Println(rc.Address, rc.Action, rc.Status, rc.ReplyCode, rc.RemoteMTA)
		fmt.Println(rc.Diagnostic)
	}
	// Output:
	// bounce rfc3464 mx.example.org
	// bob@example.net failed 5.1.1 550 mx.example.net
	// 550 5.1.1 <bob@example.net>: Recipient address rejected: User unknown in local recipient table
}

func ExampleParse_freeText() {
	// A qmail bounce: no report part, the recipient and the server's reply
	// are read from the text.
	raw := "From: MAILER-DAEMON@mx.example.org\n" +
		"Subject: failure notice\n" +
		"\n" +
		"Hi. This is the qmail-send program at mx.example.org.\n" +
		"I'm afraid I wasn't able to deliver your message to the following addresses.\n" +
		"This is a permanent error; I've given up. Sorry it didn't work out.\n" +
		"\n" +
		"<carol@example.net>:\n" +
		"192.0.2.7 does not like recipient.\n" +
		"Remote host said: 552 5.2.2 Mailbox full\n" +
		"Giving up on 192.0.2.7.\n"

	r, _ := dsn.Parse([]byte(raw))
	rc := r.Recipients[0]
	fmt.Println(r.Kind, r.Format)
	fmt.Println(rc.Address, rc.Status, rc.Command, rc.RemoteMTA)
	// Output:
	// bounce qmail
	// carol@example.net 5.2.2 RCPT 192.0.2.7
}

func ExampleParseAll() {
	mbox := "From MAILER-DAEMON Tue Jul  9 08:01:12 2024\n" +
		"From: Mail Delivery System <Mailer-Daemon@mx.example.org>\n" +
		"Subject: Mail delivery failed: returning message to sender\n" +
		"\n" +
		"A message that you sent could not be delivered to one or more of its\n" +
		"recipients. This is a permanent error. The following address(es) failed:\n" +
		"\n" +
		"  bob@example.net\n" +
		"    SMTP error from remote mail server after RCPT TO:<bob@example.net>:\n" +
		"    550 5.1.1 <bob@example.net>: Recipient address rejected: User unknown\n" +
		"\n" +
		"From MAILER-DAEMON Tue Jul  9 09:30:00 2024\n" +
		"From: MAILER-DAEMON@mail.example.com\n" +
		"Subject: Returned mail: see transcript for details\n" +
		"\n" +
		"   ----- Transcript of session follows -----\n" +
		"... while talking to mx.example.org.:\n" +
		">>> DATA\n" +
		"<<< 552 5.2.2 Mailbox full\n" +
		"554 5.0.0 carol@example.org... Service unavailable\n"
	for r, err := range dsn.ParseAll([]byte(mbox)) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		for _, rc := range r.Recipients {
			fmt.Println(r.Kind, rc.Address, rc.Status, rc.Command)
		}
	}
	// Output:
	// bounce bob@example.net 5.1.1 RCPT
	// bounce carol@example.org 5.2.2 DATA
}
