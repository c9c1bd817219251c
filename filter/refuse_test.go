package filter

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/decide"
)

// A person's message from postmaster@ (a non-null envelope sender) quoting
// a bounce is delivered, tagged at most, whatever backscatter action is
// configured; so is a null-sender bounce judged on recipient pairs only.
// Only a null-sender report whose Message-ID we never sent is refused.
func TestOnlyNullSenderReportsWithPositiveEvidenceAreRefused(t *testing.T) {
	person := strings.ReplaceAll("From: Partner Postmaster <postmaster@partner.example>\nTo: alice@example.org\n"+
		"Subject: Re: your message to bob\nMessage-ID: <reply.77@partner.example>\n\nHello Alice,\n\n"+
		"Your message to <bob@partner.example> could not be delivered:\n550 5.2.2 <bob@partner.example>: mailbox full\n\n"+
		"Final-Recipient: rfc822; bob@partner.example\nAction: failed\nStatus: 5.2.2\n\nRegards\n", "\n", "\r\n")
	for _, action := range []decide.Action{decide.ActionReject, decide.ActionDiscard} {
		t.Run(string(action), func(t *testing.T) {
			k := startSink(t, nil)
			_, addr := startFilter(t, Config{Next: k.addr, BackscatterAction: action}, openLedger(t))
			r := dialRaw(t, addr)
			r.must(250, "EHLO mx.example.org")
			send := func(from string, msg []byte) int {
				r.must(250, "XFORWARD ADDR=203.0.113.25")
				r.must(250, "MAIL FROM:<%s>", from)
				r.must(250, "RCPT TO:<alice@example.org>")
				code, _ := r.data(msg)
				return code
			}
			if code := send("postmaster@partner.example", []byte(person)); code != 250 || len(k.messages()) != 1 {
				t.Fatalf("a person's mail from postmaster@: %d, %d delivered; want 250 and delivered", code, len(k.messages()))
			}
			// No Message-ID, no queue id: judged on the pair only.
			pairOnly := strings.Replace(string(report("x@example.org", "alice@example.org", "ghost@remote.example", "5.1.1", "550 5.1.1 unknown")),
				"Message-ID: <x@example.org>\r\n", "", 1)
			if code := send("", []byte(pairOnly)); code != 250 || len(k.messages()) != 2 {
				t.Fatalf("a bounce judged on a recipient pair only: %d, %d delivered; want 250 and delivered", code, len(k.messages()))
			}
			if got := headerLines(k.messages()[1].data, "X-NDR-Backscatter"); len(got) != 1 || got[0] != "X-NDR-Backscatter: yes; evidence=recipient-match" {
				t.Fatalf("pair-only bounce: %q", got)
			}
			code := send("", report("never.1@example.org", "alice@example.org", "ghost@remote.example", "5.1.1", "550 5.1.1 unknown"))
			if n := len(k.messages()); n != 2 || (action == decide.ActionReject && code != 550) || (action == decide.ActionDiscard && code != 250) {
				t.Fatalf("a null-sender bounce for a Message-ID never sent, %s: %d, %d delivered", action, code, n)
			}
		})
	}
}
