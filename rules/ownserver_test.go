package rules

import (
	"strings"
	"testing"
)

// ownServerClause is the relay fix's clause for the sender's own server.
const ownServerClause = "your own organization's server"

// TestRelayFixSpeaksOfTheRecipientsSideWhenTheirServerRefused: a relay
// refusal that a remote server gave (Remote-MTA, "host X said") gets a fix
// about the recipient's side only.
func TestRelayFixSpeaksOfTheRecipientsSideWhenTheirServerRefused(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "relay-denied-remote-01.eml")
	if rd.Reason != ReasonNoRelaying || strings.Contains(rd.Fix, ownServerClause) || !strings.Contains(rd.Fix, "their email admin") {
		t.Errorf("relay-denied-remote-01.eml: reason %s fix %q: want norelaying and the recipient's side only", rd.Reason, rd.Fix)
	}
	for _, in := range []Input{
		{Action: "failed", Status: "5.7.1", Diagnostic: "host mx.example.net[192.0.2.8] said: 554 5.7.1 <bo@example.net>: Relay access denied (in reply to RCPT TO command)"},
		{Action: "failed", Status: "5.7.1", Diagnostic: "Remote server returned '550 5.7.1 Unable to relay'"},
	} {
		if v := e.Classify(in); v.Reason != ReasonNoRelaying || strings.Contains(v.Fix, ownServerClause) {
			t.Errorf("%q: reason %s fix %q: want norelaying without the own-server clause", in.Diagnostic, v.Reason, v.Fix)
		}
	}
}

// TestRelayFixNamesTheSendersServerWhenNoRemoteServerRefused: with no
// remote server named, the refusal may be the sender's own server's, and
// the fix says what to do then: for a report whose server's side cannot
// be told, the words name that server as possibly the sender's own
// outgoing server (relayside.go); a pasted reply, whose origin is not
// known, keeps the own-server clause.
func TestRelayFixNamesTheSendersServerWhenNoRemoteServerRefused(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.7.1", ReportingMTA: "smtp.example.org", Diagnostic: "550 5.7.1 Relaying denied"})
	if v.Reason != ReasonNoRelaying || !strings.Contains(v.Fix, "If the server smtp.example.org is your own or your provider's outgoing server") {
		t.Errorf("reason %s fix %q: want norelaying naming smtp.example.org as possibly the sender's outgoing server", v.Reason, v.Fix)
	}
	if v := e.Lookup("554 5.7.1 Relay access denied"); !strings.Contains(v.Fix, ownServerClause) {
		t.Errorf("pasted reply: fix %q: want the own-server clause", v.Fix)
	}
}
