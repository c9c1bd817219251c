package backscatter

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// sentLedger is a real bbolt ledger holding one message alice@example.org
// sent to bob@remote.example, Message-ID sent.1@example.org, queue id
// 4QSENT1.
func sentLedger(t *testing.T) ledger.Ledger {
	t.Helper()
	l, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	err = l.Put(context.Background(), ledger.Record{MessageID: "<sent.1@example.org>", QueueID: "4QSENT1",
		Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}, Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// faultyLedger is a real ledger whose Message-ID lookups fail, and which
// counts the (sender, recipient) lookups.
type faultyLedger struct {
	ledger.Ledger
	pairs atomic.Int32
}

var errDown = errors.New("ledger down")

func (*faultyLedger) ByMessageID(context.Context, string) (ledger.Record, error) {
	return ledger.Record{}, errDown
}

func (f *faultyLedger) SentTo(ctx context.Context, sender, recipient string) (bool, error) {
	f.pairs.Add(1)
	return f.Ledger.SentTo(ctx, sender, recipient)
}

// bounceFor is a hand-written report for a message with that Message-ID
// and Received line from alice@example.org to each failed recipient.
func bounceFor(messageID, received string, failed ...string) *dsn.Report {
	rep := &dsn.Report{Kind: dsn.KindBounce, Original: dsn.Original{MessageID: messageID, From: "alice@example.org"}}
	if received != "" {
		rep.Original.Received = []string{received}
	}
	for _, a := range failed {
		rep.Recipients = append(rep.Recipients, dsn.Recipient{Address: a, Action: "failed", Status: "5.1.1"})
	}
	return rep
}

// forwarded is a report of a message forwarded on the way, as a report
// writes it (RFC 3464 section 2.3.1): Original-Recipient is the address the
// sender wrote to, Final-Recipient the one the forwarding led to, and the
// original is not attached.
func forwarded(original, final string) *dsn.Report {
	rep := bounceFor("", "")
	rep.Recipients = []dsn.Recipient{{Address: final, OriginalRecipient: original, Action: "failed", Status: "5.1.1"}}
	return rep
}

// aliased is a report whose recipient is also named by another address,
// as Sendmail's X-Actual-Recipient names the address an alias led to.
func aliased(final, alias string) *dsn.Report {
	rep := bounceFor("", "")
	rep.Recipients = []dsn.Recipient{{Address: final, Aliases: []string{alias}, Action: "failed", Status: "5.1.1"}}
	return rep
}

func ourDomain(addr string) bool { return strings.HasSuffix(addr, "@example.org") }

func TestJudgeReport(t *testing.T) {
	l := sentLedger(t)
	alice := []string{"alice@example.org"}
	for _, tc := range []struct {
		name  string
		judge Judge
		rep   *dsn.Report
		rcpts []string
		want  string
	}{
		{"our Message-ID: no", Judge{Ledger: l}, bounceFor("<SENT.1@example.org>", "", "bob@remote.example"), alice,
			"no; evidence=message-id"},
		{"unknown Message-ID, nothing else: yes", Judge{Ledger: l}, bounceFor("never.sent@example.org", ""), alice,
			"yes; evidence=message-id"},
		{"our queue id in Received: no", Judge{Ledger: l},
			bounceFor("never.sent@example.org", "from a by mx.example.org (Postfix) with ESMTPSA id 4QSENT1 for <b@c>", "carol@remote.example"), alice,
			"no; evidence=queue-id"},
		{"yes names the strongest reference looked up", Judge{Ledger: l},
			bounceFor("never.sent@example.org", "by mx.example.org (Postfix) id 4QNEVER1", "carol@remote.example"), alice,
			"yes; evidence=message-id"},
		{"no Message-ID, unknown queue id: yes by queue id", Judge{Ledger: l},
			bounceFor("", "by mx.example.org (Postfix) id 4QNEVER1", "carol@remote.example"), alice,
			"yes; evidence=queue-id"},
		{"no references but a pair we sent: no", Judge{Ledger: l}, bounceFor("", "", "BOB@remote.example"), alice,
			"no; evidence=recipient-match"},
		{"no references, a pair we never sent: yes", Judge{Ledger: l}, bounceFor("", "", "carol@remote.example"), alice,
			"yes; evidence=recipient-match"},
		{"forwarded: the original recipient is one we sent to: no", Judge{Ledger: l}, forwarded("bob@remote.example", "bob@other.example"), alice,
			"no; evidence=recipient-match"},
		{"forwarded: neither address is one we sent to: yes", Judge{Ledger: l}, forwarded("carol@remote.example", "carol@other.example"), alice,
			"yes; evidence=recipient-match"},
		{"aliased: the alias is one we sent to: no", Judge{Ledger: l}, aliased("bob@other.example", "bob@remote.example"), alice,
			"no; evidence=recipient-match"},
		{"aliased: neither address is one we sent to: yes", Judge{Ledger: l}, aliased("carol@other.example", "carol@remote.example"), alice,
			"yes; evidence=recipient-match"},
		{"nothing to look up: unknown", Judge{Ledger: l}, &dsn.Report{Kind: dsn.KindBounce}, alice,
			"unknown; evidence=none"},
		{"no ledger: unknown", Judge{}, bounceFor("sent.1@example.org", ""), alice,
			"unknown; evidence=no-ledger"},
		{"nil report: unknown", Judge{Ledger: l}, nil, alice,
			"unknown; evidence=none"},
		{"about none of our addresses: unknown", Judge{Ledger: l, Ours: ourDomain},
			&dsn.Report{Kind: dsn.KindBounce, Original: dsn.Original{MessageID: "x@remote.example", From: "mallory@remote.example"}},
			[]string{"stranger@remote.example"}, "unknown; evidence=not-our-domain"},
		{"original From ours, envelope not: judged", Judge{Ledger: l, Ours: ourDomain}, bounceFor("sent.1@example.org", ""),
			[]string{"stranger@remote.example"}, "no; evidence=message-id"},
		{"pairs only for our senders", Judge{Ledger: l, Ours: func(a string) bool { return a == "nobody@example.org" }},
			bounceFor("", "", "bob@remote.example"), []string{"nobody@example.org"}, "yes; evidence=recipient-match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.judge.Report(context.Background(), tc.rep, tc.rcpts)
			if got := j.String(); got != tc.want {
				t.Fatalf("Report = %q, want %q", got, tc.want)
			}
			if j.Err != nil {
				t.Fatalf("Err = %v without a ledger error", j.Err)
			}
		})
	}
}

func TestLedgerErrorIsNeverYes(t *testing.T) {
	f := &faultyLedger{Ledger: sentLedger(t)}
	j := Judge{Ledger: f}.Report(context.Background(), bounceFor("never.sent@example.org", "", "carol@remote.example"), []string{"alice@example.org"})
	if j.Verdict != Unknown || j.Evidence != EvidenceLedgerError || !errors.Is(j.Err, errDown) {
		t.Fatalf("Report = %+v, want unknown; evidence=ledger-error with the error", j)
	}
	// A positive finding after the error still counts.
	j = Judge{Ledger: f}.Report(context.Background(), bounceFor("never.sent@example.org", "", "bob@remote.example"), []string{"alice@example.org"})
	if j.String() != "no; evidence=recipient-match" {
		t.Fatalf("Report = %q, want no; evidence=recipient-match despite the failed Message-ID lookup", j)
	}
	// A ledger that cannot answer in time: unknown, not yes.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	j = Judge{Ledger: sentLedger(t)}.Report(ctx, bounceFor("", "", "carol@remote.example"), []string{"alice@example.org"})
	if j.Verdict != Unknown || j.Evidence != EvidenceLedgerError {
		t.Fatalf("Report with the deadline passed = %q, want unknown; evidence=ledger-error", j)
	}
}

func TestPairLookupsBounded(t *testing.T) {
	f := &faultyLedger{Ledger: sentLedger(t)}
	var failed []string
	for i := range 50 {
		failed = append(failed, "user"+strings.Repeat("x", i)+"@remote.example")
	}
	j := Judge{Ledger: f}.Report(context.Background(), bounceFor("", "", failed...), []string{"alice@example.org", "bob@example.org"})
	if n := f.pairs.Load(); n != maxPairLookups {
		t.Fatalf("%d pair lookups for 2 senders and 50 recipients, want %d", n, maxPairLookups)
	}
	if j.String() != "yes; evidence=recipient-match" {
		t.Fatalf("Report = %q", j)
	}
}
