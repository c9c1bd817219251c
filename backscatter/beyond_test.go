package backscatter

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/dsn"
)

// later is a clock a retention period and a day ahead: a ledger opened now
// covers the retention period by then, and the records put now are still
// found (the ledger keeps its own clock).
func later() time.Time { return time.Now().Add(31 * 24 * time.Hour) }

// autoReply is a vacation reply from bob@remote.example to alice that
// answers inReplyTo, as raw text and as dsn reads it.
func autoReply(t *testing.T, inReplyTo, references string) Input {
	t.Helper()
	h := "From: bob@remote.example\r\nTo: alice@example.org\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n"
	if inReplyTo != "" {
		h += "In-Reply-To: " + inReplyTo + "\r\n"
	}
	if references != "" {
		h += "References: " + references + "\r\n"
	}
	raw := []byte(h + "\r\nI am away until Monday.\r\n")
	rep, err := dsn.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != dsn.KindAutoreply {
		t.Fatalf("the test's auto-reply reads as %s", rep.Kind)
	}
	return Input{Report: rep, Recipients: []string{"alice@example.org"}, Raw: raw, AutoReply: true}
}

func TestAutoReplyIsJudgedByTheMessageIDsItAnswers(t *testing.T) {
	l := sentLedger(t)
	covered := Judge{Ledger: l, Ours: ourDomain, Retention: 30 * 24 * time.Hour, Now: later}
	young := Judge{Ledger: l, Ours: ourDomain, Retention: 30 * 24 * time.Hour}
	for _, tc := range []struct {
		name  string
		judge Judge
		in    Input
		want  string
	}{
		{"answers a message we never sent", covered, autoReply(t, "<never.sent@example.org>", ""), "yes; evidence=in-reply-to"},
		{"answers a message we sent", covered, autoReply(t, "<SENT.1@example.org>", ""), "no; evidence=in-reply-to"},
		{"one of its references is ours and recorded", covered, autoReply(t, "<never.sent@example.org>", "<a@example.org> <sent.1@example.org>"), "no; evidence=in-reply-to"},
		{"a reference of another domain: cannot tell", covered, autoReply(t, "<never.sent@example.org>", "<x@elsewhere.example>"), "unknown; evidence=not-our-domain"},
		{"a ledger younger than the retention: cannot tell", young, autoReply(t, "<never.sent@example.org>", ""), "unknown; evidence=ledger-young"},
		{"answers nothing it names", covered, autoReply(t, "", ""), "unknown; evidence=none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.judge.Judge(context.Background(), tc.in).String(); got != tc.want {
				t.Fatalf("Judge = %q, want %q", got, tc.want)
			}
		})
	}
}

// The quoted original of a challenge-response request counts as a
// reference.
func TestAutoReplyQuotingTheOriginal(t *testing.T) {
	raw := []byte("From: confirm@remote.example\r\nTo: alice@example.org\r\nSubject: Please confirm your message\r\n" +
		"Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nReply to this message to confirm that you are a person.\r\n" +
		"--b\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: alice@example.org\r\nTo: carol@remote.example\r\n" +
		"Message-ID: <forged.9@example.org>\r\nSubject: hello\r\n\r\n--b--\r\n")
	rep, _ := dsn.Parse(raw)
	if rep.Kind != dsn.KindAutoreply || rep.Original.MessageID == "" {
		t.Fatalf("dsn reads the challenge as %s with original %q", rep.Kind, rep.Original.MessageID)
	}
	j := Judge{Ledger: sentLedger(t), Ours: ourDomain, Retention: 30 * 24 * time.Hour, Now: later}
	in := Input{Report: rep, Recipients: []string{"alice@example.org"}, Raw: raw, AutoReply: true}
	if got := j.Judge(context.Background(), in).String(); got != "yes; evidence=in-reply-to" {
		t.Fatalf("Judge = %q, want yes; evidence=in-reply-to", got)
	}
}

func TestReceiveOnly(t *testing.T) {
	l := sentLedger(t)
	listed := func(a string) bool { return a == "noreply@example.org" }
	none := &dsn.Report{Kind: dsn.KindBounce}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		judge   Judge
		rcpt    string
		want    string
		learned bool
	}{
		{"listed", Judge{Ledger: l, Ours: ourDomain, ReceiveOnly: ReceiveOnly{Listed: listed}}, "noreply@example.org", "yes; evidence=never-sends", false},
		{"listed, no ledger", Judge{Ours: ourDomain, ReceiveOnly: ReceiveOnly{Listed: listed}}, "noreply@example.org", "yes; evidence=never-sends", false},
		{"not listed", Judge{Ledger: l, Ours: ourDomain, ReceiveOnly: ReceiveOnly{Listed: listed}}, "alice@example.org", "unknown; evidence=none", false},
		{"learned: sent nothing, the ledger covers the retention", Judge{Ledger: l, Ours: ourDomain, Retention: 30 * 24 * time.Hour, Now: later, ReceiveOnly: ReceiveOnly{Learn: true}}, "info@example.org", "yes; evidence=never-sends", true},
		{"learned: but it sends", Judge{Ledger: l, Ours: ourDomain, Retention: 30 * 24 * time.Hour, Now: later, ReceiveOnly: ReceiveOnly{Learn: true}}, "alice@example.org", "unknown; evidence=none", false},
		{"learned: not while the ledger is young", Judge{Ledger: l, Ours: ourDomain, Retention: 30 * 24 * time.Hour, ReceiveOnly: ReceiveOnly{Learn: true}}, "info@example.org", "unknown; evidence=none", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.judge.Judge(ctx, Input{Report: none, Recipients: []string{tc.rcpt}})
			if j.String() != tc.want || j.Learned != tc.learned {
				t.Fatalf("Judge = %q (learned %v), want %q (learned %v)", j, j.Learned, tc.want, tc.learned)
			}
		})
	}
	// A reference looked up and not found is named before never-sends; one
	// found still wins.
	j := Judge{Ledger: l, Ours: ourDomain, ReceiveOnly: ReceiveOnly{Listed: listed}}
	if got := j.Report(ctx, bounceFor("never.sent@example.org", ""), []string{"noreply@example.org"}).String(); got != "yes; evidence=message-id" {
		t.Fatalf("Report = %q, want yes; evidence=message-id", got)
	}
	if got := j.Report(ctx, bounceFor("sent.1@example.org", ""), []string{"noreply@example.org"}).String(); got != "no; evidence=message-id" {
		t.Fatalf("Report = %q, want no; evidence=message-id", got)
	}
}

func TestBATVEvidence(t *testing.T) {
	now := time.Now()
	s := &batv.Signer{Keys: []batv.Key{{ID: 1, Secret: []byte("a secret of twenty bytes or more")}}, SignKey: 1}
	signed := s.Sign("alice@example.org")
	tag, _, _ := batv.Split(signed)
	forged := "prvs=1" + tag[1:4] + "000000=alice@example.org"
	l := sentLedger(t)
	signs := func(a string) bool { return a == "alice@example.org" }
	on := &BATV{Signer: s, Signs: signs, MissingAfter: now.Add(-time.Hour)}
	notYet := &BATV{Signer: s, Signs: signs, MissingAfter: now.Add(time.Hour)}
	exempt := &BATV{Signer: s, Signs: signs, MissingAfter: now.Add(-time.Hour),
		ExemptDestination: func(a string) bool { return strings.HasSuffix(a, "@lists.example") }}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		b    *BATV
		rep  *dsn.Report
		rcpt string
		want string
	}{
		{"a valid tag: no, even for a Message-ID the ledger lacks", on, bounceFor("never.sent@example.org", ""), signed, "no; evidence=batv"},
		{"a forged tag", on, bounceFor("", ""), forged, "yes; evidence=batv"},
		{"a forged tag on a recorded message: the ledger wins", on, bounceFor("sent.1@example.org", ""), forged, "no; evidence=message-id"},
		{"no tag, signing long enough: batv-missing", on, bounceFor("", ""), "alice@example.org", "yes; evidence=batv-missing"},
		{"no tag, a stronger reference missed", on, bounceFor("never.sent@example.org", ""), "alice@example.org", "yes; evidence=message-id"},
		{"no tag, a pair we sent", on, bounceFor("", "", "bob@remote.example"), "alice@example.org", "no; evidence=recipient-match"},
		{"no tag, signing too recent", notYet, bounceFor("", ""), "alice@example.org", "unknown; evidence=none"},
		{"no tag, a sender that is not signed", on, bounceFor("", ""), "bob@example.org", "unknown; evidence=none"},
		{"no tag, an exempt destination failed", exempt, bounceFor("", "", "x@lists.example"), "alice@example.org", "yes; evidence=recipient-match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Judge{Ledger: l, Ours: ourDomain, BATV: tc.b}
			if got := j.Report(ctx, tc.rep, []string{tc.rcpt}).String(); got != tc.want {
				t.Fatalf("Report = %q, want %q", got, tc.want)
			}
		})
	}
	// An expired tag.
	old := &batv.Signer{Keys: s.Keys, SignKey: 1, Now: func() time.Time { return now.Add(-30 * 24 * time.Hour) }}
	j := Judge{Ledger: l, Ours: ourDomain, BATV: &BATV{Signer: s}}
	if got := j.Report(ctx, bounceFor("", ""), []string{old.Sign("alice@example.org")}).String(); got != "yes; evidence=batv-expired" {
		t.Fatalf("Report for an expired tag = %q, want yes; evidence=batv-expired", got)
	}
}

// signedOriginal is a message from alice, signed by go-msgauth's signer
// with key, selector s1 of example.org.
func signedOriginal(t *testing.T, key crypto.Signer, canon dkim.Canonicalization) []byte {
	t.Helper()
	msg := "From: Alice <alice@example.org>\r\nTo: carol@remote.example\r\nSubject: Q4   figures\r\n" +
		"Date: Mon, 30 Nov 2026 10:00:00 +0000\r\nMessage-ID: <unrecorded.7@example.org>\r\n\r\nThe figures.\r\n"
	var b bytes.Buffer
	err := dkim.Sign(&b, strings.NewReader(msg), &dkim.SignOptions{Domain: "example.org", Selector: "s1", Signer: key,
		HeaderCanonicalization: canon, BodyCanonicalization: canon,
		HeaderKeys: []string{"From", "To", "Subject", "Date", "Message-ID"}})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bounceQuoting is a bounce whose text/rfc822-headers part is the header
// of original, as the reporting server may refold it.
func bounceQuoting(original []byte, edit func(string) string) []byte {
	head, _, _ := bytes.Cut(original, []byte("\r\n\r\n"))
	h := string(head)
	if edit != nil {
		h = edit(h)
	}
	return []byte("From: MAILER-DAEMON@remote.example\r\nTo: alice@example.org\r\nSubject: Undelivered\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
		"--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; remote.example\r\n\r\n" +
		"Final-Recipient: rfc822; carol@remote.example\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n" +
		"--b\r\nContent-Type: text/rfc822-headers\r\n\r\n" + h + "\r\n\r\n--b--\r\n")
}

func TestDKIMEvidence(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	rsaPub, err := ParseDKIMRecord("v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der))
	if err != nil {
		t.Fatal(err)
	}
	edParsed, err := ParseDKIMRecord("v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(edPub))
	if err != nil {
		t.Fatal(err)
	}
	keysRSA := []DKIMKey{{Domain: "example.org", Selector: "s1", Public: rsaPub}}
	keysEd := []DKIMKey{{Domain: "example.org", Selector: "s1", Public: edParsed}}
	l := sentLedger(t)
	refold := func(h string) string {
		return strings.Replace(h, "Subject: Q4   figures", "Subject:\r\n Q4 figures", 1)
	}
	for _, tc := range []struct {
		name string
		keys []DKIMKey
		raw  []byte
		want string
	}{
		{"relaxed, quoted as signed", keysRSA, bounceQuoting(signedOriginal(t, rsaKey, dkim.CanonicalizationRelaxed), nil), "no; evidence=dkim"},
		{"relaxed, refolded on the way", keysRSA, bounceQuoting(signedOriginal(t, rsaKey, dkim.CanonicalizationRelaxed), refold), "no; evidence=dkim"},
		{"simple, quoted as signed", keysRSA, bounceQuoting(signedOriginal(t, rsaKey, dkim.CanonicalizationSimple), nil), "no; evidence=dkim"},
		{"ed25519", keysEd, bounceQuoting(signedOriginal(t, edKey, dkim.CanonicalizationRelaxed), nil), "no; evidence=dkim"},
		{"a signed field changed", keysRSA, bounceQuoting(signedOriginal(t, rsaKey, dkim.CanonicalizationRelaxed),
			func(h string) string { return strings.Replace(h, "carol@", "dave@", 1) }), "yes; evidence=message-id"},
		{"another selector", []DKIMKey{{Domain: "example.org", Selector: "s2", Public: rsaPub}},
			bounceQuoting(signedOriginal(t, rsaKey, dkim.CanonicalizationRelaxed), nil), "yes; evidence=message-id"},
		{"another key", keysEd, bounceQuoting(signedOriginal(t, rsaKey, dkim.CanonicalizationRelaxed), nil), "yes; evidence=message-id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := dsn.Parse(tc.raw)
			j := Judge{Ledger: l, Ours: ourDomain, DKIM: tc.keys}
			got := j.Judge(context.Background(), Input{Report: rep, Recipients: []string{"alice@example.org"}, Raw: tc.raw})
			if got.String() != tc.want {
				t.Fatalf("Judge = %q, want %q", got, tc.want)
			}
		})
	}
}

// A ledger that fails is never a yes, whatever else an automatic reply or
// a learned receive-only address would say.
func TestLedgerErrorIsNeverYesBeyondBounces(t *testing.T) {
	f := &faultyLedger{Ledger: sentLedger(t)}
	j := Judge{Ledger: f, Ours: ourDomain, Retention: 30 * 24 * time.Hour, Now: later, ReceiveOnly: ReceiveOnly{Learn: true}}
	got := j.Judge(context.Background(), autoReply(t, "<never.sent@example.org>", ""))
	if got.Verdict != Unknown || got.Evidence != EvidenceLedgerError {
		t.Fatalf("auto-reply on a failing ledger: %q, want unknown; evidence=ledger-error", got)
	}
}

// A bounce quoting the whole original (message/rfc822) is verified by
// go-msgauth, body hash included; a body changed on the way fails there,
// and the header hash alone still proves the header was ours.
func TestDKIMWholeQuotedMessage(t *testing.T) {
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	j := Judge{Ledger: sentLedger(t), Ours: ourDomain, DKIM: []DKIMKey{{Domain: "example.org", Selector: "s1", Public: edPub}}}
	original := signedOriginal(t, edKey, dkim.CanonicalizationRelaxed)
	if !j.verifiedWhole(original) {
		t.Fatal("go-msgauth does not verify the signed original with our key record")
	}
	changed := bytes.Replace(original, []byte("The figures."), []byte("Other figures."), 1)
	if j.verifiedWhole(changed) {
		t.Fatal("go-msgauth verifies an original whose body changed")
	}
	for name, orig := range map[string][]byte{"as sent": original, "body changed": changed} {
		raw := []byte(strings.Replace(string(bounceQuoting(orig, nil)), "Content-Type: text/rfc822-headers\r\n\r\n",
			"Content-Type: message/rfc822\r\n\r\n", 1))
		raw = bytes.Replace(raw, []byte("\r\n\r\n--b--"), append(append([]byte("\r\n\r\n"), orig[bytes.Index(orig, []byte("\r\n\r\n"))+4:]...), []byte("\r\n--b--")...), 1)
		rep, _ := dsn.Parse(raw)
		if got := j.Judge(context.Background(), Input{Report: rep, Recipients: []string{"alice@example.org"}, Raw: raw}).String(); got != "no; evidence=dkim" {
			t.Errorf("%s: Judge = %q, want no; evidence=dkim", name, got)
		}
	}
}
