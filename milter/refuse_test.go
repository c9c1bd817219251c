package milter

import (
	"context"
	"strings"
	"testing"

	gomilter "github.com/emersion/go-milter"

	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// personFromPostmaster is what a person at a partner writes from the
// postmaster address (an ordinary, non-null envelope sender): a bounce
// quoted in a text, with the headers of a message we never sent.
func personFromPostmaster() []byte {
	return []byte(strings.ReplaceAll(`From: Partner Postmaster <postmaster@partner.example>
To: alice@example.org
Subject: Re: your message to bob
Date: Mon, 2 Nov 2026 10:00:00 +0000
Message-ID: <reply.77@partner.example>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii

Hello Alice,

our server logged this about a message that looks like it came from you:

Your message to <bob@partner.example> could not be delivered:
550 5.2.2 <bob@partner.example>: mailbox full

Final-Recipient: rfc822; bob@partner.example
Action: failed
Status: 5.2.2

Message-ID: <forged.77@example.org>
From: alice@example.org

Can you tell me whether it was you? Bob is back next week.

Regards,
the partner's postmaster
`, "\n", "\r\n"))
}

// forwardedReport is the real bounce of a message alice sent to
// info@remote.test, which forwarded it to bob@other.test, where it failed:
// Original-Recipient is the address alice wrote to, Final-Recipient the one
// the forwarding led to, and the original is not attached.
func forwardedReport() []byte {
	return []byte(strings.ReplaceAll(`Return-Path: <>
From: MAILER-DAEMON@mx.other.test (Mail Delivery System)
To: alice@example.org
Subject: Undelivered Mail Returned to Sender
Date: Mon, 2 Nov 2026 10:00:01 +0000
Message-ID: <20261102100001.4FWD1@mx.other.test>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B1"

--B1
Content-Type: text/plain; charset=us-ascii

Your message could not be delivered to one or more recipients.

--B1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.other.test

Original-Recipient: rfc822;info@remote.test
Final-Recipient: rfc822;bob@other.test
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <bob@other.test>: user unknown

--B1--
`, "\n", "\r\n"))
}

// A person's message from postmaster@ with an ordinary envelope sender
// that quotes a bounce, even one naming a Message-ID we never sent, is
// never rejected or discarded: it is tagged at most.
func TestPersonFromPostmasterIsNeverRefused(t *testing.T) {
	for _, action := range []decide.Action{decide.ActionReject, decide.ActionDiscard, decide.ActionQuarantine} {
		t.Run(string(action), func(t *testing.T) {
			l := openLedger(t, t.TempDir())
			defer l.Close()
			_, addr := startServer(t, Config{BackscatterAction: action}, l)
			mx := dial(t, newClient(addr), "203.0.113.25")
			defer mx.close()
			raw := personFromPostmaster()
			r, err := mx.send(envelope{from: "postmaster@partner.example", rcpts: []string{"alice@example.org"}, raw: raw})
			if err != nil {
				t.Fatal(err)
			}
			if r.act.Code != gomilter.ActContinue {
				t.Fatalf("a person's mail from postmaster@ with %s configured: action %+v, want it delivered", action, r.act)
			}
			if q := apply(raw, r.mods).quarantine; q != "" {
				t.Fatalf("a person's mail from postmaster@ was held: %q", q)
			}
		})
	}
}

// A bounce for a forwarded message is matched on every address it gives
// for the recipient: the Original-Recipient alice wrote to is in the
// ledger, so it is not backscatter, and nothing is refused.
func TestForwardedBounceMatchesTheOriginalRecipient(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	err := l.Put(context.Background(), ledger.Record{MessageID: "to-info.1@example.org", QueueID: "4QINFO1",
		Sender: "alice@example.org", Recipients: []string{"info@remote.test"}})
	if err != nil {
		t.Fatal(err)
	}
	_, addr := startServer(t, Config{BackscatterAction: decide.ActionReject}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := forwardedReport()
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if r.act.Code != gomilter.ActContinue {
		t.Fatalf("bounce of a forwarded message we sent: action %+v, want it delivered", r.act)
	}
	if got := checkNDRHeaders(t, raw, r).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "no; evidence=recipient-match" {
		t.Fatalf("X-NDR-Backscatter = %q, want no; evidence=recipient-match (alice wrote to info@remote.test)", got)
	}
}

// A real bounce that names nothing but recipients never written to is
// tagged, not refused, even with reject configured: pairs alone do not
// prove that the original never left here.
func TestBounceJudgedOnPairsOnlyIsTaggedNotRefused(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{BackscatterAction: decide.ActionReject}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := forwardedReport() // nothing of it is in this ledger
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	if r.act.Code != gomilter.ActContinue {
		t.Fatalf("bounce judged on pairs only: action %+v, want tagged and delivered", r.act)
	}
	if got := apply(raw, r.mods).get("X-NDR-Backscatter"); len(got) != 1 || got[0] != "yes; evidence=recipient-match" {
		t.Fatalf("X-NDR-Backscatter = %q, want yes; evidence=recipient-match", got)
	}
}
