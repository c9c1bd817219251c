//go:build e2e

package main

import "testing"

// With ndrmilter down, mail flows both ways, unchanged: Postfix applies the
// deploy kit's milter_default_action = accept, and its only complaint is
// that it cannot connect to the milter.
func TestE2EMailFlowsWhileTheMilterIsDown(t *testing.T) {
	t.Parallel()
	env := newE2EEnv(t, withTrustedHost())
	env.StopMilter()
	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("milter-down")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "milter down")); err != nil {
		t.Fatalf("send with the milter down: %v", err)
	}
	s.Quit()
	in := env.Postfix.Dial(t, internetIP)
	if err := in.Send("", []string{alice}, remoteDSN(id, "bob@remote.test", "5.1.1", "550 5.1.1 unknown", "")); err != nil {
		t.Fatalf("send a bounce with the milter down: %v", err)
	}
	in.Quit()
	env.Await("<"+id+">", withMessageID(id))
	m := env.Await("the bounce of <"+id+">", withMessageID("dsn."+id))
	if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 0 {
		t.Errorf("with ndrmilter down the bounce has X-NDR-Backscatter %q", bs)
	}
	// newE2EEnv's check at the end allows only "cannot connect" complaints
	// once the milter was stopped.
}
