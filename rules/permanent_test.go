package rules

import "testing"

// TestPermanentMeansTheMessageWillNotBeDelivered checks the one meaning of
// Classification.Permanent and HardBounce, whatever the format: permanent
// when the report says the sending server gave up (Action failed, an
// expiry's 4.4.7 too), not while it retries; hard only for a reason that
// makes the address itself bad, for good.
func TestPermanentMeansTheMessageWillNotBeDelivered(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		name       string
		in         Input
		perm, hard bool
	}{
		{"an expiry the server gave up on", Input{Action: "failed", Status: "4.4.7", Diagnostic: "Message expired: 421 4.4.2 connection timed out"}, true, false},
		{"a temporary refusal retried until the queue lifetime", Input{Action: "failed", Status: "4.4.1", Diagnostic: "connect to mx.example.net[192.0.2.1]:25: Connection timed out"}, true, false},
		{"the same, still retried", Input{Action: "delayed", Status: "4.4.1", Diagnostic: "connect to mx.example.net[192.0.2.1]:25: Connection timed out"}, false, false},
		{"a 4.4.7 delay warning", Input{Action: "delayed", Status: "4.4.7", Diagnostic: "Message delayed"}, false, false},
		{"a user unknown still retried is no hard bounce yet", Input{Action: "delayed", Status: "5.1.1", Diagnostic: "550 5.1.1 user unknown"}, false, false},
		{"a user unknown", Input{Action: "failed", Status: "5.1.1", Diagnostic: "550 5.1.1 user unknown"}, true, true},
		{"a full mailbox is permanent for this message, not a hard bounce", Input{Action: "failed", Status: "5.2.2", Diagnostic: "552 5.2.2 mailbox full"}, true, false},
		{"a success", Input{Action: "delivered", Status: "2.0.0", Diagnostic: "250 2.0.0 OK"}, false, false},
		{"a bare permanent code", Input{Status: "5.1.1"}, true, true},
		{"a bare temporary code", Input{Status: "4.4.7"}, false, false},
		{"a bare permanent reply", Input{ReplyCode: "552", Diagnostic: "552 mailbox full"}, true, false},
		{"a bare temporary reply", Input{ReplyCode: "452", Diagnostic: "452 mailbox full"}, false, false},
	} {
		v := e.Classify(c.in)
		if v.Permanent != c.perm || v.HardBounce != c.hard {
			t.Errorf("%s: permanent %v hard %v (reason %s, rule %s), want %v %v", c.name, v.Permanent, v.HardBounce, v.Reason, v.Rule, c.perm, c.hard)
		}
	}
}
