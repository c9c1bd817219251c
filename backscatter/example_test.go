package backscatter_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// bounce is an RFC 3464 report, as Postfix writes one, for a message with
// that Message-ID from alice@example.org to rcpt.
func bounce(messageID, rcpt string) []byte {
	return []byte(strings.ReplaceAll(`From: MAILER-DAEMON@mx.remote.example
To: alice@example.org
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b"

--b
Content-Type: text/plain

I'm sorry to have to inform you that your message could not be delivered.

--b
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.remote.example

Final-Recipient: rfc822; `+rcpt+`
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <`+rcpt+`>: User unknown

--b
Content-Type: text/rfc822-headers

From: alice@example.org
To: `+rcpt+`
Message-ID: <`+messageID+`>
Subject: Q4 figures

--b--
`, "\n", "\r\n"))
}

// A message leaves and is recorded in the ledger; its bounce comes back and
// is judged: not backscatter. A bounce for a message that never left is.
func Example() {
	dir, err := os.MkdirTemp("", "ledger")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := ledger.OpenBolt(filepath.Join(dir, "ledger.db"), ledger.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	ctx := context.Background()
	err = l.Put(ctx, ledger.Record{MessageID: "q4-figures.1234@example.org", QueueID: "4dLm2x0Q1Rz9",
		Sender: "alice@example.org", Recipients: []string{"bob@remote.example"}})
	if err != nil {
		log.Fatal(err)
	}

	judge := backscatter.Judge{
		Ledger: l,
		Ours:   func(addr string) bool { return strings.HasSuffix(addr, "@example.org") },
	}
	for _, b := range []struct{ messageID, rcpt string }{
		{"q4-figures.1234@example.org", "bob@remote.example"},
		{"forged.5678@example.org", "spamtrap@elsewhere.example"},
	} {
		rep, err := dsn.Parse(bounce(b.messageID, b.rcpt))
		if err != nil {
			log.Fatal(err)
		}
		// The bounce's envelope recipient: the original's envelope sender.
		fmt.Println(judge.Report(ctx, rep, []string{"alice@example.org"}))
	}
	// Output:
	// no; evidence=message-id
	// yes; evidence=message-id
}
