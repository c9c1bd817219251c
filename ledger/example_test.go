package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Record the mail that leaves, then ask about the message a bounce names.
func Example() {
	dir, err := os.MkdirTemp("", "ledger-example")
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

	// The milter records a message as it leaves (a zero Time means now)...
	err = l.Put(ctx, ledger.Record{MessageID: "<42@mail.example.org>", QueueID: "4Xyz1",
		Sender: "alice@example.org", Recipients: []string{"bob@example.net"}})
	if err != nil {
		log.Fatal(err)
	}
	// ...and Postfix's log, imported later, shows a second queue file of
	// the same message: it joins the record of the Message-ID.
	err = l.Put(ctx, ledger.Record{MessageID: "42@mail.example.org", QueueID: "4Xyz2",
		Sender: "alice@example.org", Recipients: []string{"Carol@Example.com"}})
	if err != nil {
		log.Fatal(err)
	}

	// A bounce names the message: it is about mail that left.
	r, err := l.ByMessageID(ctx, "<42@Mail.Example.org>")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.MessageID, r.Sender, r.Recipients)
	// A bounce for a message that never left, a sign of backscatter.
	_, err = l.ByMessageID(ctx, "<forged.1@example.org>")
	fmt.Println(errors.Is(err, ledger.ErrNotFound))
	// Output:
	// 42@mail.example.org alice@example.org [bob@example.net carol@example.com]
	// true
}

func ExampleInDomains() {
	ours := []string{"example.org"}
	fmt.Println(ledger.InDomains("<Alice@Mail.Example.org>", ours))
	fmt.Println(ledger.InDomains("mallory@badexample.org", ours))
	// Output:
	// true
	// false
}
