//go:build e2e

package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// A bounce from outside for mail that left here is explained (what, to
// whom, who must act), judged not backscatter on the Message-ID the ledger
// recorded, stripped of any X-NDR-* header it brought, and filed by
// deploy/ndr.sieve under Bounces/OWNER.
func TestE2EBounceOfMailSentHereIsExplained(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("to-bob")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "to bob")); err != nil {
		t.Fatalf("send: %v", err)
	}
	s.Quit()
	env.Await("<"+id+">", withMessageID(id))

	in := env.Postfix.Dial(t, internetIP)
	// A forged X-NDR-Owner from outside must not survive.
	msg := remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 <bob@remote.test>: Recipient address rejected: User unknown in virtual mailbox table", "X-NDR-Owner: none\n")
	if err := in.Send("", []string{alice}, msg); err != nil {
		t.Fatalf("send the bounce: %v", err)
	}
	in.Quit()
	m := env.Await("the bounce of <"+id+">", withMessageID("dsn."+id))
	if expl := m.HeaderValues("X-NDR-Explanation"); len(expl) == 0 || !strings.Contains(strings.Join(expl, " "), "bob@remote.test") {
		t.Errorf("X-NDR-Explanation = %q, want one naming bob@remote.test", expl)
	}
	if own := m.HeaderValues("X-NDR-Owner"); len(own) != 1 || own[0] != "sender" {
		t.Errorf("X-NDR-Owner = %q, want exactly one, \"sender\" (5.1.1: the address is wrong; the forged one removed)", own)
	}
	if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") || !strings.Contains(bs[0], "evidence=message-id") {
		t.Errorf("X-NDR-Backscatter = %q, want \"no; evidence=message-id\"", bs)
	}
	if st := m.HeaderValues("X-NDR-Status"); len(st) == 0 || !strings.Contains(st[0], "status=5.1.1") {
		t.Errorf("X-NDR-Status = %q, want status=5.1.1", st)
	}
	for _, h := range []string{"X-NDR-Backscatter", "X-NDR-Owner", "X-NDR-Status", "X-NDR-Explanation"} {
		t.Logf("%s: %s", h, strings.Join(m.HeaderValues(h), " | "))
	}
	if folder := sieveFolder(t, m.Data); folder != "Bounces/sender" {
		t.Errorf("deploy/ndr.sieve files the real bounce into %q, want Bounces/sender", folder)
	}
}

// A bounce for a message never sent from here (a forged sender) is
// delivered marked backscatter, and deploy/ndr.sieve files it into Junk.
func TestE2EForgedBounceIsMarkedBackscatter(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	never := uniqueID("never-sent")
	s := env.Postfix.Dial(t, internetIP)
	if err := s.Send("", []string{alice}, remoteDSN(never, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", "")); err != nil {
		t.Fatalf("send the forged bounce: %v", err)
	}
	s.Quit()
	m := env.Await("the forged bounce", withMessageID("dsn."+never))
	if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "yes") {
		t.Errorf("forged bounce: X-NDR-Backscatter = %q, want yes", bs)
	}
	if folder := sieveFolder(t, m.Data); folder != "Junk" {
		t.Errorf("deploy/ndr.sieve files backscatter into %q, want Junk", folder)
	}
}

// With --backscatter-action reject, a forged bounce is refused at the end
// of DATA: the client sees a 5xx with a text, Postfix logs the
// milter-reject with that text, and nothing reaches the mailbox.
func TestE2EForgedBounceIsRejectedWhenConfigured(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost("--backscatter-action", "reject"))
	never := uniqueID("never-sent")
	s := env.Postfix.Dial(t, internetIP)
	err := s.Send("", []string{alice}, remoteDSN(never, "mallory@remote.test", "5.1.1", "550 5.1.1 user unknown", ""))
	se := smtpError(err)
	if se == nil || se.Code/100 != 5 || strings.TrimSpace(se.Message) == "" {
		t.Fatalf("forged bounce with --backscatter-action reject: got %v, want a 5xx with a text", err)
	}
	t.Logf("the client saw: %d %v %s", se.Code, se.EnhancedCode, se.Message)
	s.Quit()
	if _, ok := env.Postfix.AwaitLog(5*time.Second, regexp.MustCompile(`milter-reject: END-OF-MESSAGE .*`+regexp.QuoteMeta(se.Message[:min(20, len(se.Message))]))); !ok {
		t.Errorf("Postfix did not log the milter-reject with the text %q\n%s", se.Message, env.Postfix.LogTail(20))
	}
	if _, ok := env.Postfix.Sink.Await(3*time.Second, withMessageID("dsn."+never)); ok {
		t.Errorf("the rejected bounce reached the sink")
	}
}

// A bounce Postfix writes itself (local(8) does not know the user) passes
// through non_smtpd_milters (internal_mail_filter_classes = bounce) and is
// explained and judged like one from outside, whether or not the loopback,
// from which Postfix presents it, is among ndrmilter's trusted networks.
func TestE2EPostfixOwnBounceIsExplained(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cfg  envConfig
	}{
		{"loopback trusted (the default)", envConfig{}},
		{"loopback not trusted", withTrustedHost()},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newE2EEnv(t, c.cfg)
			s := env.Postfix.Dial(t, internetIP)
			s.Login()
			id := uniqueID("to-ghost")
			ghost := "ghost@" + localDomain
			if err := s.Send(alice, []string{ghost}, aliceMessage(id, ghost, "to a ghost")); err != nil {
				t.Fatalf("send: %v", err)
			}
			s.Quit()
			m := env.Await("Postfix's bounce for <"+id+">", bounceQuoting(id))
			if expl := strings.Join(m.HeaderValues("X-NDR-Explanation"), " "); !strings.Contains(expl, ghost) {
				t.Errorf("X-NDR-Explanation = %q, want one naming %s", expl, ghost)
			}
			if own := m.HeaderValues("X-NDR-Owner"); len(own) != 1 || own[0] != "sender" {
				t.Errorf("X-NDR-Owner = %q, want sender (5.1.1, unknown user)", own)
			}
			if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "no") {
				t.Errorf("X-NDR-Backscatter = %q, want no (alice's message is in the ledger)", bs)
			}
		})
	}
}

// Postfix's own bounce for a message the ledger does not know (sent while
// ndrmilter was down) reaches the sender, marked backscatter, even with
// --backscatter-action reject: ndrmilter never refuses a bounce written
// inside, since a reject in cleanup(8) makes qmgr log "status=deferred
// (bounce failed)" and retry at every queue run while the sender is never
// told.
func TestE2EPostfixOwnBounceIsTaggedNeverRejected(t *testing.T) {
	t.Parallel()
	// Local deliveries are held until the milter is back, so that the
	// bounce is written while it runs.
	env := newE2EEnv(t, envConfig{MilterFlags: []string{"--backscatter-action", "reject"}, Postfix: []string{"defer_transports = local"}})
	env.StopMilter()
	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("unrecorded")
	ghost := "ghost@" + localDomain
	if err := s.Send(alice, []string{ghost}, aliceMessage(id, ghost, "unrecorded")); err != nil {
		t.Fatalf("send: %v", err)
	}
	s.Quit()
	env.RestartMilter("--backscatter-action", "reject")
	env.Postfix.Postconf("defer_transports =")
	env.Postfix.Flush()
	m := env.Await("Postfix's own bounce for <"+id+"> (its original unknown to the ledger)", bounceQuoting(id))
	if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || !strings.HasPrefix(bs[0], "yes") {
		t.Errorf("X-NDR-Backscatter = %q, want yes (the original is not in the ledger), tagged rather than rejected", bs)
	}
	if log := env.Postfix.Log(); strings.Contains(log, "bounce failed") || strings.Contains(log, "milter-reject") {
		t.Errorf("Postfix refused its own bounce at least once:\n%s", env.Postfix.LogTail(20))
	}
}
