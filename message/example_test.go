package message_test

import (
	"fmt"

	"github.com/ndrmilter/ndrmilter/message"
)

func ExampleRead() {
	raw := []byte("From: MAILER-DAEMON@mx.example.org\r\n" +
		"Subject: =?utf-8?Q?Unzustellbar=3A_Pr=C3=BCfbericht?=\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n" +
		"\r\n" +
		"--b\r\n" +
		"Content-Type: text/plain; charset=iso-8859-1\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n" +
		"\r\n" +
		"Die Nachricht an j=F6rg@example.net konnte nicht zugestellt werden.\r\n" +
		"--b\r\n" +
		"Content-Type: message/delivery-status\r\n" +
		"\r\n" +
		"Final-Recipient: rfc822; jorg@example.net\r\n" +
		"Status: 5.1.1\r\n" +
		"--b--\r\n")

	m := message.Read(raw)
	fmt.Println(message.DecodeWords(m.Header.GetString("Subject")))
	for _, p := range m.Parts {
		fmt.Printf("%s (charset %q)\n", p.MediaType, p.Charset)
	}
	text, _ := m.Parts[0].Decode(1 << 20)
	fmt.Printf("%s\n", text)
	// Output:
	// Unzustellbar: Prüfbericht
	// text/plain (charset "iso-8859-1")
	// message/delivery-status (charset "")
	// Die Nachricht an jörg@example.net konnte nicht zugestellt werden.
}
