//go:build e2e

package main

import (
	"fmt"
	"strings"
	"testing"
)

// Mail that leaves through Postfix, from a client that logged in or from a
// trusted host, passes unchanged and is recorded in the ledger with its
// sender, recipient and queue id.
func TestE2EOutboundMailIsRecorded(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	sent := map[string]string{} // Message-ID -> recipient

	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("by-login")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "sent after a login")); err != nil {
		t.Fatalf("send after a login: %v", err)
	}
	s.Quit()
	sent[id] = "bob@remote.test"

	tr := env.Postfix.Dial(t, trustedIP)
	id = uniqueID("by-trusted-host")
	if err := tr.Send(alice, []string{"carol@remote.test"}, aliceMessage(id, "carol@remote.test", "sent by a trusted host")); err != nil {
		t.Fatalf("send from the trusted host: %v", err)
	}
	tr.Quit()
	sent[id] = "carol@remote.test"

	for id, rcpt := range sent {
		m := env.Await("<"+id+">", withMessageID(id))
		if len(m.To) != 1 || m.To[0] != rcpt {
			t.Errorf("<%s> reached the sink for %v, want %s", id, m.To, rcpt)
		}
		if v := m.HeaderValues("X-NDR-Backscatter"); len(v) != 0 {
			t.Errorf("outbound mail <%s> got X-NDR headers: %v", id, v)
		}
	}
	env.StopMilter()
	for id, rcpt := range sent {
		lr := ledgerLookup(t, env.Data, id)
		if !lr.Found || lr.Sender != alice || strings.Join(lr.Recipients, ",") != rcpt || lr.QueueID == "" {
			t.Errorf("ledger lookup <%s>: %+v, want found, sender %s, recipient %s, a queue id", id, lr, alice, rcpt)
		}
	}
}

// Several messages on one SMTP connection are each judged on their own: a
// rejected bounce does not make the next message of the connection lose
// its client's address or login, and every outbound message of a logged-in
// connection is recorded with its own recipient.
func TestE2EEachMessageOfAConnectionIsJudgedOnItsOwn(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost("--backscatter-action", "reject"))
	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	ids := []string{uniqueID("first"), uniqueID("second"), uniqueID("third")}
	for i, id := range ids {
		rcpt := fmt.Sprintf("e%d@remote.test", i)
		if err := s.Send(alice, []string{rcpt}, aliceMessage(id, rcpt, "one of three")); err != nil {
			t.Fatalf("outbound message %d of the connection: %v", i, err)
		}
	}
	s.Quit()

	in := env.Postfix.Dial(t, internetIP)
	if err := in.Send("", []string{alice}, remoteDSN(uniqueID("forged1"), "x@remote.test", "5.1.1", "550 5.1.1 unknown", "")); !isPermanentRefusal(err) {
		t.Errorf("first forged bounce on the connection: %v, want 5xx", err)
	}
	// The real bounce after a reject on the same connection: still inbound
	// (the client is not trusted), explained, not backscatter.
	if err := in.Send("", []string{alice}, remoteDSN(ids[0], "e0@remote.test", "5.2.2", "552 5.2.2 mailbox full", "")); err != nil {
		t.Fatalf("real bounce after a reject on the same connection: %v", err)
	}
	if err := in.Send("", []string{alice}, remoteDSN(uniqueID("forged2"), "y@remote.test", "5.1.1", "550 5.1.1 unknown", "")); !isPermanentRefusal(err) {
		t.Errorf("second forged bounce on the connection: %v, want 5xx", err)
	}
	in.Quit()

	for _, id := range ids {
		if m := env.Await("<"+id+">", withMessageID(id)); len(m.HeaderValues("X-NDR-Backscatter")) != 0 {
			t.Errorf("outbound <%s> got X-NDR headers", id)
		}
	}
	m := env.Await("the bounce of <"+ids[0]+">", withMessageID("dsn."+ids[0]))
	if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") {
		t.Errorf("bounce of the first of three messages sent on one connection: X-NDR-Backscatter = %q, want no", bs)
	}
	if own := m.HeaderValues("X-NDR-Owner"); len(own) != 1 || own[0] == "" {
		t.Errorf("X-NDR-Owner = %q, want one", own)
	}
	env.StopMilter()
	for i, id := range ids {
		lr := ledgerLookup(t, env.Data, id)
		if !lr.Found || lr.Sender != alice || len(lr.Recipients) != 1 || lr.Recipients[0] != fmt.Sprintf("e%d@remote.test", i) {
			t.Errorf("ledger <%s>: %+v, want alice -> e%d@remote.test", id, lr, i)
		}
	}
}
