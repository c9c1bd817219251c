package rules

import (
	"strings"
	"testing"
)

// TestDelayCausedByTLSDoesNotFixItself: a delay whose cause is the
// receiving side's TLS configuration (a certificate that fails
// verification, STARTTLS refused) keeps the recipient's admin as owner and
// says that waiting will likely not help.
func TestDelayCausedByTLSDoesNotFixItself(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{"delay-tls-cert-01.eml", "delay-tls-refused-01.eml"} {
		rd := explainFixture(t, e, file)
		if rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: owner %s, want %s", file, rd.Owner, OwnerRecipientAdmin)
		}
		if !strings.Contains(rd.Fix, "will likely not fix itself") || strings.Contains(rd.Fix, "Nothing to do yet") {
			t.Errorf("%s: the fix does not say the delay will not fix itself: %s", file, rd.Fix)
		}
		if !strings.Contains(rd.Explanation, "keeps trying") {
			t.Errorf("%s: the explanation does not say it is a delay: %s", file, rd.Explanation)
		}
	}
}

// TestRelayDeniedDelayDoesNotFixItself: a temporary relay refusal
// (Postfix defer_unauth_destination: 454 4.7.1) is the receiving server's
// configuration, which retries do not change.
func TestRelayDeniedDelayDoesNotFixItself(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.7.1", RemoteMTA: "mx.example.net", Command: "RCPT",
		Diagnostic: "454 4.7.1 <bo@example.net>: Relay access denied"})
	if v.Reason != ReasonNoRelaying || v.Owner != OwnerRecipientAdmin || !strings.Contains(v.Fix, "will likely not fix itself") {
		t.Errorf("reason %s owner %s fix %q: want norelaying, the recipient's admin, and a fix saying waiting will not help", v.Reason, v.Owner, v.Fix)
	}
}

// TestOrdinaryDelayStaysTemporary: a delay for a cause that can pass (a
// connection timeout, a full mailbox) stays nobody's, with nothing to do
// yet.
func TestOrdinaryDelayStaysTemporary(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "delay-warning-01.eml")
	if rd.Owner != OwnerNone || !strings.Contains(rd.Fix, "Nothing to do yet") {
		t.Errorf("delay-warning-01.eml: owner %s fix %q: want nobody and nothing to do yet", rd.Owner, rd.Fix)
	}
	v := e.Classify(Input{Action: "delayed", Status: "4.2.2", RemoteMTA: "mx.example.net",
		Diagnostic: "452 4.2.2 <bo@example.net>: Mailbox full"})
	if v.Owner != OwnerNone || !strings.Contains(v.Fix, "Nothing to do yet") {
		t.Errorf("mailbox full delay: owner %s fix %q: want nobody and nothing to do yet", v.Owner, v.Fix)
	}
}

// TestRelayDeniedDelayFromTheSendersOwnServerIsNotTheRecipients: with no
// remote server named, a temporary relay refusal may be the sender's own
// server's: it is not said to need the recipient's admin.
func TestRelayDeniedDelayFromTheSendersOwnServerIsNotTheRecipients(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "delayed", Status: "4.7.1", Diagnostic: "454 4.7.1 <bo@example.net>: Relay access denied"})
	if strings.Contains(v.Fix, "will likely not fix itself") {
		t.Errorf("owner %s fix %q: want no lasting-delay fix for a refusal of unknown origin", v.Owner, v.Fix)
	}
}
