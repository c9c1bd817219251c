//go:build e2e

package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// "ndrmilter ledger import" reads a real Postfix log into a fresh ledger:
// the mail that left is found with its sender, recipient and queue id; a
// bounce that came in is not; importing the same log again adds nothing.
func TestE2ELedgerImportReadsThePostfixLog(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	sent := map[string]string{} // Message-ID -> recipient
	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("by-login")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "sent after a login")); err != nil {
		t.Fatalf("send after a login: %v", err)
	}
	sent[id] = "bob@remote.test"
	// Mail to a local ghost puts local(8)'s delivery and Postfix's own
	// bounce in the log too.
	ghost := "ghost@" + localDomain
	if err := s.Send(alice, []string{ghost}, aliceMessage(uniqueID("to-ghost"), ghost, "to a ghost")); err != nil {
		t.Fatalf("send to %s: %v", ghost, err)
	}
	s.Quit()
	tr := env.Postfix.Dial(t, trustedIP)
	idTrusted := uniqueID("by-trusted-host")
	if err := tr.Send(alice, []string{"carol@remote.test"}, aliceMessage(idTrusted, "carol@remote.test", "sent by a trusted host")); err != nil {
		t.Fatalf("send from the trusted host: %v", err)
	}
	tr.Quit()
	sent[idTrusted] = "carol@remote.test"
	in := env.Postfix.Dial(t, internetIP)
	if err := in.Send("", []string{alice}, remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 unknown", "")); err != nil {
		t.Fatalf("send a bounce in: %v", err)
	}
	in.Quit()
	env.Await("the bounce of <"+id+">", withMessageID("dsn."+id))
	for id, rcpt := range sent {
		env.Await("<"+id+">", withMessageID(id))
		// Postfix logs the delivery after the sink's answer.
		if _, ok := env.Postfix.AwaitLog(10*time.Second, regexp.MustCompile(`to=<`+regexp.QuoteMeta(rcpt)+`>.*status=sent`)); !ok {
			t.Fatalf("Postfix did not log the delivery to %s\n%s", rcpt, env.Postfix.LogTail(30))
		}
	}

	data := t.TempDir()
	importLog := func() postfixlog.Summary {
		t.Helper()
		out, err := exec.Command(ndrmilterBinary(t), "ledger", "import", "--data", data, "--domain", postfixtest.Domain, "--json", env.Postfix.LogPath()).CombinedOutput()
		if err != nil {
			t.Fatalf("ledger import: %v\n%s", err, out)
		}
		var sum postfixlog.Summary
		if err := json.Unmarshal(out, &sum); err != nil {
			t.Fatalf("ledger import --json: %v\n%s", err, out)
		}
		return sum
	}
	if sum := importLog(); sum.Malformed != 0 || sum.Errors != 0 || sum.New < len(sent) {
		t.Errorf("import of the Postfix log: %+v, want no malformed line, no error, at least %d new", sum, len(sent))
	}
	for id, rcpt := range sent {
		if lr := ledgerLookup(t, data, id); !lr.Found || lr.Sender != alice || len(lr.Recipients) != 1 || lr.Recipients[0] != rcpt || lr.QueueID == "" {
			t.Errorf("imported <%s>: %+v, want alice -> %s with a queue id", id, lr, rcpt)
		}
	}
	if lr := ledgerLookup(t, data, "dsn."+id); lr.Found {
		t.Errorf("the inbound bounce dsn.%s was imported as mail that left: %+v", id, lr)
	}
	if sum := importLog(); sum.New != 0 || sum.Updated != 0 {
		t.Errorf("second import of the same log: %+v, want nothing new or updated", sum)
	}
}
