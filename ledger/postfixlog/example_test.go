package postfixlog_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// Import a Postfix log into a ledger: one message left from example.org,
// one was delivered here.
func ExampleImport() {
	dir, err := os.MkdirTemp("", "ledger")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	led, err := ledger.OpenBolt(filepath.Join(dir, "ledger.db"), ledger.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer led.Close()

	ts := time.Now().Add(-time.Hour).Format(time.RFC3339)
	maillog := strings.NewReplacer("TS", ts).Replace(`TS mx postfix/cleanup[1]: 3B7D4984286: message-id=<1501.0005@example.org>
TS mx postfix/qmgr[2]: 3B7D4984286: from=<alice@example.org>, size=2285, nrcpt=1 (queue active)
TS mx postfix/smtp[3]: 3B7D4984286: to=<bob@remote.test>, relay=mx.remote.test[192.0.2.1]:25, dsn=2.0.0, status=sent (250 2.0.0 Ok)
TS mx postfix/qmgr[2]: 3B7D4984286: removed
TS mx postfix/cleanup[1]: 4C8E5A95397: message-id=<in.1@remote.test>
TS mx postfix/qmgr[2]: 4C8E5A95397: from=<carol@remote.test>, size=1200, nrcpt=1 (queue active)
TS mx postfix/local[4]: 4C8E5A95397: to=<alice@example.org>, relay=local, dsn=2.0.0, status=sent (delivered to mailbox)
TS mx postfix/qmgr[2]: 4C8E5A95397: removed
`)
	sum, err := postfixlog.Import(context.Background(), led, strings.NewReader(maillog), postfixlog.ImportOptions{
		Domains: []string{"example.org"},
		Cutoff:  time.Now().Add(-30 * 24 * time.Hour),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d new, %d skipped (did not leave), %d lines\n", sum.New, sum.Skipped, sum.Lines)
	r, err := led.ByMessageID(context.Background(), "1501.0005@example.org")
	fmt.Println(r.Sender, r.Recipients, r.QueueID, err)
	// Output:
	// 1 new, 1 skipped (did not leave), 8 lines
	// alice@example.org [bob@remote.test] 3B7D4984286 <nil>
}
