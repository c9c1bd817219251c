package dsn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantRecipient is what a fixture's recipient record must say. Empty
// strings are asserted too: a field the report does not give must stay empty.
type wantRecipient struct {
	address, action, status, reply, remote, command string
	diagContains                                    string
}

// fixtures are messages written for these tests, one or more per format
// family the parser must read (see testdata/).
var fixtures = []struct {
	file         string
	kind         Kind
	format       string
	reportingMTA string
	messageID    string
	from         string
	subject      string
	sender       string
	recipients   []wantRecipient
}{
	{
		file: "postfix.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "mail.example.org",
		messageID: "quarterly-7731@example.org", from: "alice@example.org", subject: "Quarterly report – draft", sender: "alice@example.org",
		recipients: []wantRecipient{
			{"bob@example.net", "failed", "5.1.1", "550", "mx1.example.net", "RCPT", "User unknown in virtual mailbox table"},
			{"carol@example.net", "delayed", "4.2.2", "452", "mx1.example.net", "RCPT", "Mailbox full"},
		},
	},
	{
		file: "postfix-crlf.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "mail.example.org",
		messageID: "quarterly-7731@example.org", from: "alice@example.org", subject: "Quarterly report – draft", sender: "alice@example.org",
		recipients: []wantRecipient{
			{"bob@example.net", "failed", "5.1.1", "550", "mx1.example.net", "RCPT", "User unknown in virtual mailbox table"},
			{"carol@example.net", "delayed", "4.2.2", "452", "mx1.example.net", "RCPT", "Mailbox full"},
		},
	},
	{
		// Status 5.0.0 with the precise code in the diagnostic.
		file: "sendmail.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "relay.example.com",
		messageID: "inv-2026-0311@example.com", from: "dave@example.com", subject: "Invoice 2026-0311", sender: "dave@example.com",
		recipients: []wantRecipient{
			{"erin@example.org", "failed", "5.7.1", "550", "mx.example.org", "DATA", "blocked using a DNS block list"},
		},
	},
	{
		file: "exim.eml", kind: KindBounce, format: "exim", reportingMTA: "smtp.example.com",
		messageID: "5f1c2a9e-team-lunch@example.com", from: "frank@example.com", subject: "Team lunch", sender: "frank@example.com",
		recipients: []wantRecipient{
			{"grace@example.net", "failed", "5.2.2", "552", "mx.example.net", "RCPT", "mailbox is over quota"},
		},
	},
	{
		file: "qmail.eml", kind: KindBounce, format: "qmail",
		messageID: "20260505120001.30110.qmail@mail.example.jp", from: "henry@example.jp", subject: "meeting notes", sender: "henry@example.jp",
		recipients: []wantRecipient{
			{"ivy@example.org", "failed", "5.1.1", "550", "192.0.2.61", "RCPT", "No such user here"},
			{"jack@gone.example", "failed", "5.1.2", "", "", "", "couldn't find any host named gone.example"},
		},
	},
	{
		file: "courier.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "mx.example.com",
		messageID: "reunion-55@example.com", from: "kate@example.com", subject: "Réunion",
		recipients: []wantRecipient{
			{"leo@example.net", "failed", "5.7.1", "554", "mx.example.net", "RCPT", "Relay access denied"},
		},
	},
	{
		file: "opensmtpd.eml", kind: KindBounce, format: "opensmtpd", reportingMTA: "mail.example.org",
		messageID: "photos-1@example.org", from: "mia@example.org", subject: "photos",
		recipients: []wantRecipient{
			{"noah@example.net", "failed", "5.1.1", "550", "", "", "does not exist"},
		},
	},
	{
		file: "exchange2003.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "mail.example.com",
		messageID: "BUDGET0001@example.com", from: "olivia@example.com", subject: "budget",
		recipients: []wantRecipient{
			{"paul@example.jp", "failed", "5.0.0", "550", "", "", "mailbox unavailable"},
		},
	},
	{
		file: "exchange2003-text.eml", kind: KindBounce, format: "exchange2003",
		recipients: []wantRecipient{
			{"rose@example.org", "failed", "5.1.1", "", "", "", "does not exist at the organization"},
		},
	},
	{
		file: "office365.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "AM0PR01MB0002.eurprd01.prod.example.com",
		messageID: "AM0PR01MB00029A@AM0PR01MB0002.eurprd01.prod.example.com", from: "sam@contoso.example.com", subject: "Project kickoff",
		recipients: []wantRecipient{
			{"tina@fabrikam.example", "failed", "5.1.10", "550", "", "", "RESOLVER.ADR.RecipientNotFound"},
		},
	},
	{
		file: "gmail.eml", kind: KindBounce, format: "gmail",
		messageID: "CAB1cde2F3gh@mail.gmail.example", from: "victor@gmail.example", subject: "hello again",
		recipients: []wantRecipient{
			{"uma@example.org", "failed", "5.2.1", "550", "mx.example.org", "", "account that you tried to reach is disabled"},
		},
	},
	{
		file: "yahoo.eml", kind: KindBounce, format: "yahoo",
		messageID: "987654321.123.1778554797000@mail.yahoo.example.com", from: "wendy@yahoo.example.com", subject: "lunch?",
		recipients: []wantRecipient{
			{"xavier@example.net", "failed", "", "554", "", "", "This mailbox is disabled"},
		},
	},
	{
		file: "amazonses.eml", kind: KindBounce, format: "amazonses", reportingMTA: "a1-2.smtp-out.amazonses.example.com",
		messageID: "news-42@example.com", from: "yara@example.com", subject: "Newsletter 42", sender: "yara@example.com",
		recipients: []wantRecipient{
			{"zane@example.net", "failed", "5.1.1", "550", "", "", "user unknown"},
		},
	},
	{
		// The SES notification inside an SNS envelope, as a JSON string.
		file: "amazonses-sns.eml", kind: KindDelay, format: "amazonses", reportingMTA: "b2-3.smtp-out.amazonses.example.com",
		messageID: "promo-7@example.com", from: "yara@example.com", subject: "Spring promo", sender: "yara@example.com",
		recipients: []wantRecipient{
			{"abel@example.org", "delayed", "4.2.2", "452", "", "", "mailbox full"},
		},
	},
	{
		// The reason stands above the address.
		file: "notes.eml", kind: KindBounce, format: "notes",
		messageID: "ask-ben-77@example.co.jp", from: "amy@example.co.jp", subject: "question",
		recipients: []wantRecipient{
			{"ben@notes.example.co.jp", "failed", "", "", "", "", "User not listed in public Name & Address Book"},
		},
	},
	{
		file: "messagingserver.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "ims.example.edu",
		messageID: "lab-results-9@example.edu", from: "carl@example.edu", subject: "lab results", sender: "carl@example.edu",
		recipients: []wantRecipient{
			{"dana@example.org", "failed", "5.1.1", "550", "mx.example.org", "", "unknown or illegal alias"},
		},
	},
	{
		// RFC 6533: utf-8 address type, global delivery status and headers.
		file: "global.eml", kind: KindBounce, format: "rfc3464", reportingMTA: "mx.example.com",
		messageID: "privet-1@example.com", from: "ivan@example.com", subject: "Привет",
		recipients: []wantRecipient{
			{"用户@example.org", "failed", "5.1.1", "550", "mx.example.org", "", "mailbox unavailable"},
		},
	},
	{
		// ISO-2022-JP text in base64, RFC 2047 subject in ISO-2022-JP.
		file: "iso2022jp.eml", kind: KindBounce, format: "text",
		messageID: "konnichiwa-1@example.jp", from: "oscar@example.jp", subject: "こんにちは",
		recipients: []wantRecipient{
			{"nana@example.ne.jp", "failed", "5.2.2", "550", "", "", "メールボックスが一杯です"},
		},
	},
	{
		// HTML only, base64: the details for admins carry the reply.
		file: "html-only.eml", kind: KindBounce, format: "exchange2007", reportingMTA: "EX01.example.com",
		recipients: []wantRecipient{
			{"otto@example.org", "failed", "5.2.2", "552", "", "", "mailbox is full"},
		},
	},
	{
		// Success: the report's kind is its most significant record.
		file: "delivered.eml", kind: KindDelivered, format: "rfc3464", reportingMTA: "mx.example.com",
		messageID: "signed-9@example.com", from: "rita@example.com", subject: "contract signed",
		recipients: []wantRecipient{
			{"sven@example.net", "delivered", "2.0.0", "250", "mx.example.net", "", "queued as"},
			{"tom@legacy.example", "relayed", "2.0.0", "250", "relay.legacy.example", "", "does not report"},
		},
	},
	{
		// X-Postfix diagnostic type, folded; the host from "connect to".
		file: "delay.eml", kind: KindDelay, format: "rfc3464", reportingMTA: "mail.example.org",
		messageID: "minutes-3@example.org", from: "ursula@example.org", subject: "minutes",
		recipients: []wantRecipient{
			{"victor@slow.example", "delayed", "4.4.1", "", "mx.slow.example", "", "connect to mx.slow.example[192.0.2.150]:25: Connection timed out"},
		},
	},
	{
		file: "arf.eml", kind: KindFeedback, format: "arf", reportingMTA: "mx.isp.example.net",
		messageID: "sale-2026@example.com", from: "news@example.com", subject: "Summer sale", sender: "news@example.com",
		recipients: []wantRecipient{{address: "gina@isp.example.net"}},
	},
	{
		file: "mdn.eml", kind: KindReceipt, format: "mdn", reportingMTA: "mail.example.org",
		recipients: []wantRecipient{{address: "hugo@example.org"}},
	},
	{
		file: "autoreply.eml", kind: KindAutoreply, format: "rfc3834", sender: "kim@example.com",
		recipients: []wantRecipient{{address: "jonas@example.net"}},
	},
	{
		// Bounce words and an address at the start of a line, from a
		// no-reply sender: still not a bounce.
		file: "newsletter.eml", kind: KindNone,
	},
	{
		// A message/rfc822 attachment alone does not make a bounce.
		file: "not-bounce.eml", kind: KindNone,
		messageID: "rollout-3@example.com", from: "lena@example.com", subject: "rollout",
	},
}

func TestParseFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(raw)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if r.Kind != f.kind {
				t.Errorf("kind %q, want %q", r.Kind, f.kind)
			}
			if r.Format != f.format {
				t.Errorf("format %q, want %q", r.Format, f.format)
			}
			if r.ReportingMTA != f.reportingMTA {
				t.Errorf("reporting MTA %q, want %q", r.ReportingMTA, f.reportingMTA)
			}
			if r.Original.MessageID != f.messageID {
				t.Errorf("original Message-ID %q, want %q", r.Original.MessageID, f.messageID)
			}
			if r.Original.From != f.from {
				t.Errorf("original From %q, want %q", r.Original.From, f.from)
			}
			if r.Original.Subject != f.subject {
				t.Errorf("original Subject %q, want %q", r.Original.Subject, f.subject)
			}
			if f.sender != "" && r.Original.Sender != f.sender {
				t.Errorf("original sender %q, want %q", r.Original.Sender, f.sender)
			}
			if r.Truncated {
				t.Errorf("Truncated set on a well-formed message")
			}
			if len(r.Recipients) != len(f.recipients) {
				t.Fatalf("%d recipients %+v, want %d", len(r.Recipients), r.Recipients, len(f.recipients))
			}
			for i, w := range f.recipients {
				g := r.Recipients[i]
				if g.Address != w.address {
					t.Errorf("recipient %d: address %q, want %q", i, g.Address, w.address)
				}
				if f.kind == KindFeedback || f.kind == KindReceipt || f.kind == KindAutoreply {
					continue
				}
				check := func(what, got, want string) {
					if got != want {
						t.Errorf("recipient %d (%s): %s %q, want %q", i, w.address, what, got, want)
					}
				}
				check("action", string(g.Action), w.action)
				check("status", g.Status, w.status)
				check("reply code", g.ReplyCode, w.reply)
				check("remote MTA", g.RemoteMTA, w.remote)
				check("command", g.Command, w.command)
				if !strings.Contains(g.Diagnostic, w.diagContains) {
					t.Errorf("recipient %d (%s): diagnostic %q does not contain %q", i, w.address, g.Diagnostic, w.diagContains)
				}
			}
		})
	}
}

func TestJoinReplyLinesInsideADiagnostic(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"host mx.example.com[192.0.2.1] said: 550-5.1.1 The email account that you tried to reach does not exist. 550-5.1.1 Please double-check the recipient's email address 550 5.1.1 https://support.example.com x1si (in reply to RCPT TO command)",
			"host mx.example.com[192.0.2.1] said: 550 5.1.1 The email account that you tried to reach does not exist. Please double-check the recipient's email address https://support.example.com x1si (in reply to RCPT TO command)"},
		{"SMTP error from remote mail server after RCPT TO:<a@example.com>: 552-5.2.2 The recipient's inbox is out of storage space. 552 5.2.2 Please direct the recipient", "SMTP error from remote mail server after RCPT TO:<a@example.com>: 552 5.2.2 The recipient's inbox is out of storage space. Please direct the recipient"},
		{"code 550-5.1.1 alone, its last line cut", "code 550 5.1.1 alone, its last line cut"},
		{"id 12550-4.4.1 not a reply", "id 12550-4.4.1 not a reply"},
	} {
		if got := joinReplyLines(nil, c.in); got != c.want {
			t.Errorf("joinReplyLines(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}
