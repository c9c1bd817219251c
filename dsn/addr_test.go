package dsn

import (
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

func TestRecipientAddress(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"rfc822; user@example.com", "user@example.com"},
		{"RFC822;<User@Example.COM>", "User@Example.COM"},
		{`rfc822; "a..b"@example.org`, `"a..b"@example.org`},
		{`utf-8; \x{7528}\x{6237}@example.org`, "用户@example.org"},
		{"rfc822; user+2Btag@example.com", "user+tag@example.com"},
		{"rfc822; user+tag@example.com", "user+tag@example.com"},
		{"rfc822; user@example.com (Real Name)", "user@example.com"},
		{"rfc822; @relay.example.org:user@example.com", "user@example.com"},
		{"rfc822; <@a.example,@b.example:user@example.com>", "user@example.com"},
		{`rfc822; "user@example.com"`, "user@example.com"},
		{"rfc822; 'user@example.com'", "user@example.com"},
		{"rfc822; <<user@example.com>>", "user@example.com"},
		{"rfc822; user@example.com.", "user@example.com"},
		{"rfc822; [SMTP:user@example.com]", "user@example.com"},
		{"rfc822; mailto:user@example.com", "user@example.com"},
		{"rfc822; user@[192.0.2.1]", "user@[192.0.2.1]"},
		{`rfc822; "User Name" <user@example.com>`, "user@example.com"},
	} {
		if got := recipientAddress(c.in); got != c.want {
			t.Errorf("recipientAddress(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRecipientLine(t *testing.T) {
	for _, c := range []struct {
		line, addr, rest string
		kind             int
	}{
		{"<bob@example.net>: host mx[192.0.2.1] said: 550", "bob@example.net", "host mx[192.0.2.1] said: 550", lineAddress},
		{"bob@example.net", "bob@example.net", "", lineAddress},
		{"* bob@example.net", "bob@example.net", "", lineAddress},
		{"x@example.com <y@example.net>: malformed address", "y@example.net", "malformed address", lineAddress},
		{"Recipient address: bob@example.net", "bob@example.net", "", lineLabelled},
		{">>> RCPT To:<bob@example.net>", "bob@example.net", "", lineTranscript},
		{"Delivery failed 20 attempts: bob@example.net", "bob@example.net", "", lineSentence},
		{"Please contact <postmaster@example.net>, thank you", "", "", lineNone},
		{"jane.doe@example.org, without spaces or a trailing dot.", "", "", lineNone},
		{"l.moretti@example.org, ERROR CODE :550 - Mailbox not found", "l.moretti@example.org", "ERROR CODE :550 - Mailbox not found", lineAddress},
		{"550 5.1.1 <bob@example.net>... User unknown", "bob@example.net", "550 5.1.1 <bob@example.net>... User unknown", lineSummary},
		{"554 <bob@example.net>... 550 Host unknown", "bob@example.net", "550 Host unknown", lineSummary},
		{"550 5.1.1 jsmith... User unknown", "jsmith", "550 5.1.1 jsmith... User unknown", lineSummary},
		{"550 example.net (smtp)... 550 Host unknown", "", "", lineNone},
		{"Tue 2024-07-02 09:05:15.334: --> RCPT To:<bob@example.net>", "bob@example.net", "", lineTranscript},
		{"In:  RCPT TO:<bob@example.net> ORCPT=rfc822;bob@example.net", "bob@example.net", "", lineTranscript},
		{"Receiver not found: jsmith", "jsmith", "", lineLabelled},
		{"SMTP <bob@example.net>", "bob@example.net", "", lineLabelled},
		{"Your mail could not be delivered because they are not accepting mail from sender@example.com", "", "", lineNone},
		{"no address here", "", "", lineNone},
		{"收件人地址：zhang.wei@example.cn", "zhang.wei@example.cn", "", lineLabelled},
		{"Empfänger: hans.meier@example.de", "hans.meier@example.de", "", lineLabelled},
		{"EMPFÄNGER : hans.meier@example.de", "hans.meier@example.de", "", lineLabelled},
		{"Destinataire : marie.dupont@example.fr", "marie.dupont@example.fr", "", lineLabelled},
		{"Получатель: ivan@example.ru", "ivan@example.ru", "", lineLabelled},
		{"宛先：taro@example.jp (550 5.1.1 unknown)", "taro@example.jp", "(550 5.1.1 unknown)", lineLabelled},
		{"发件人：sender@example.cn", "", "", lineNone},
	} {
		t.Run(c.line, func(t *testing.T) {
			a, rest, kind := recipientLine([]byte(c.line), ascii.ToLower([]byte(c.line)))
			if a != c.addr || string(rest) != c.rest || kind != c.kind {
				t.Errorf("got %q %q kind %d, want %q %q kind %d", a, rest, kind, c.addr, c.rest, c.kind)
			}
		})
	}
}

// TestRecordStatus checks which code a record keeps when its Status field
// and its diagnostic text disagree: the server's own reply beats the
// reporting MTA's summary, and a precise code beats a generic one. (Which
// code a text holds is package smtpcode's, tested there.)
func TestRecordStatus(t *testing.T) {
	for _, c := range []struct{ diag, field, status string }{
		{"550 5.1.1 <a@example.com>: User unknown", "", "5.1.1"},
		{"450 4.7.1 Access denied", "4.4.7", "4.7.1"},
		{"554 4.4.7 expired <421 4.4.2 Connection timed out>", "4.4.7", "4.4.2"},
		{"5.1.0 - Unknown address error 550-'5.2.2 mailbox full'", "5.0.0", "5.2.2"},
		{"550 5.0.0 refused", "5.1.1", "5.1.1"},
		{"host 5.7.1 said 550 no", "5.1.1", "5.1.1"},
		{"550 5.0.0 refused", "4.0.0", "4.0.0"},
		{"host 192.0.2.5.1.1 said no", "", ""},
		{"engine=2.50.10432:5.13.68", "", ""},
		{"message size 552 bytes over the limit", "", ""},
		{"Sorry, no mailbox here by that name. (#5.1.1)", "", "5.1.1"},
	} {
		if s := recordStatus(c.diag, c.field); s != c.status {
			t.Errorf("status of %q (field %q) = %q, want %q", c.diag, c.field, s, c.status)
		}
	}
}

func TestJoinMultiline(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"550-5.7.26 Unauthenticated email 550-5.7.26 from example.org is 550 5.7.26 not accepted", "550 5.7.26 Unauthenticated email from example.org is not accepted"},
		{"550-Your message was rejected 550-because of 550 its content", "550 Your message was rejected because of its content"},
		{"550 5.1.1 one line", "550 5.1.1 one line"},
		{"550-5.1.1", "550-5.1.1"},
	} {
		if got := joinMultiline(nil, c.in); got != c.want {
			t.Errorf("joinMultiline(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := serverReply(nil, "Technical details: Google tried. The error that the other server returned was: 550-5.2.1 disabled 550 5.2.1 account"); got != "550 5.2.1 disabled account" {
		t.Errorf("serverReply: %q", got)
	}
}

func TestFindAddressLeavesOutLabelsInOtherLanguages(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"收件人地址：zhang.wei@example.cn", "zhang.wei@example.cn"},
		{"收件人地址： zhang.wei@example.cn。", "zhang.wei@example.cn"},
		{"«marie.dupont@example.fr»", "marie.dupont@example.fr"},
		{"Empfänger:hans.meier@example.de", "hans.meier@example.de"},
		{"用户@例子.example", "用户@例子.example"},
		{"jürgen@müller.example", "jürgen@müller.example"},
		{"收件人zhang.wei@example.cn不存在", "zhang.wei@example.cn"},
		{"用户@例子.公司", "用户@例子.公司"},
		{"Ölaf@example.de", "Ölaf@example.de"},
	} {
		if got, _ := findAddress(c.in, 0); got != c.want {
			t.Errorf("findAddress(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if plausibleAddress("地址：zhang.wei@example.cn") {
		t.Error("plausibleAddress takes a label with a full-width colon for part of the address")
	}
}
