package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Issue 8, grading: the words must keep what the server said. These tests
// cover the families of a temporary DNS failure, of TLS failures by what
// the server said, of the last error of an expiry, and of a temporary
// refusal retried until the sending server gave up.

// TestTemporaryDNSFailureIsNotAMissingDomain checks that the try-again
// wordings of each MTA (Postfix TRY_AGAIN and EAI_AGAIN, Exim DNS_AGAIN,
// Sendmail TRY_AGAIN and timeouts, SERVFAIL) set dns_tempfail, never
// no_domain or no_mx, and are explained as a lookup that failed for now.
func TestTemporaryDNSFailureIsNotAMissingDomain(t *testing.T) {
	e := builtin(t)
	tests := []struct{ name, diag string }{
		{"postfix mx try again", "Host or domain name not found. Name service error for name=example.at type=MX: Host not found, try again"},
		{"postfix a try again", "delivery temporarily suspended: Host or domain name not found. Name service error for name=mx.example.at type=A: Host not found, try again"},
		{"postfix getaddrinfo", "unable to look up host mx.example.at: Temporary failure in name resolution"},
		{"exim router", "host lookup did not complete"},
		{"sendmail try again", "Deferred: Name server: example.at.: host name lookup failure"},
		{"sendmail timeout", "Deferred: Name server timeout"},
		{"servfail", "DNS lookup for example.at returned SERVFAIL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "4.4.3", Diagnostic: tt.diag, Recipient: "office@example.at"})
			if c.Facts.Get(FactDNSTempFail) == "" {
				t.Errorf("dns_tempfail not captured from %q (facts %v)", tt.diag, c.Facts)
			}
			for _, f := range []Fact{FactNoDomain, FactNoMX} {
				if v := c.Facts.Get(f); v != "" {
					t.Errorf("%s = %q: the server did not say the domain or its MX is missing", f, v)
				}
			}
			if !strings.Contains(c.Explanation, "failed temporarily") && !strings.Contains(c.Explanation, "name servers did not answer") {
				t.Errorf("explanation does not say the lookup failed for now: %q", c.Explanation)
			}
			if strings.Contains(c.Explanation, "no mail server could be found") || strings.Contains(c.Explanation, "does not exist or") {
				t.Errorf("explanation reads a temporary failure as a missing domain: %q", c.Explanation)
			}
		})
	}
}

// TestNXDOMAINStaysAMissingDomain checks that the wordings without "try
// again" keep their reading: the domain does not exist.
func TestNXDOMAINStaysAMissingDomain(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"Host or domain name not found. Name service error for name=example.at type=A: Host not found",
		"Domain not found",
		"DNS lookup returned NXDOMAIN for example.at",
		// Postfix DNS_INVAL, 5.4.4: the name servers answered, badly; no
		// temporary failure.
		"Host or domain name not found. Name service error for name=example.at type=MX: Malformed or unexpected name server reply",
	} {
		c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "5.4.4", Diagnostic: diag})
		if c.Facts.Get(FactDNSTempFail) != "" {
			t.Errorf("%q: dns_tempfail = %q, want none", diag, c.Facts.Get(FactDNSTempFail))
		}
		if c.Facts.Get(FactNoDomain) == "" {
			t.Errorf("%q: no_domain not captured", diag)
		}
	}
}

// TestTLSFailureWordsFollowWhatTheServerSaid checks that each TLS failure
// gets its own condition, owner and fix: the receiving server demanding
// TLS is the sending side's to fix; no STARTTLS offered, a refused start
// and a bad certificate are the recipient's side's.
func TestTLSFailureWordsFollowWhatTheServerSaid(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		name, status, diag string
		fact               Fact
		owner              Owner
		explains, fixes    string
	}{
		{"rfc 3207 530", "5.7.0", "530 5.7.0 Must issue a STARTTLS command first", FactTLSRequired, OwnerSenderAdmin,
			"accepts mail only over an encrypted connection", "enable encryption (TLS) for outgoing mail"},
		{"rfc 4954 538", "5.7.11", "538 5.7.11 Encryption required for requested authentication mechanism", FactTLSRequired, OwnerSenderAdmin,
			"accepts mail only over an encrypted connection", "enable encryption"},
		{"postfix not offered", "4.7.4", "TLS is required, but was not offered by host mx.example.at[192.0.2.1]", FactTLSNotOffered, OwnerRecipientAdmin,
			"does not offer encryption at all", "relax the sending server's TLS policy"},
		{"exim not offered", "", "a TLS session is required, but the server did not offer TLS support", FactTLSNotOffered, OwnerRecipientAdmin,
			"does not offer encryption at all", "enable encryption (TLS) on their mail server"},
		{"postfix refused", "4.7.0", "TLS is required, but host mx.example.at[192.0.2.1] refused to start TLS: 454 4.7.0 TLS not available due to local problem", FactTLSRefused, OwnerRecipientAdmin,
			"refused or failed to start it", "must fix the encryption (TLS) set-up"},
		{"postfix certificate", "4.7.5", "Server certificate not verified", FactTLSCert, OwnerRecipientAdmin,
			"did not pass the sending server's verification", "fix their mail server's certificate"},
		{"openssl verify", "", "TLS handshake failed: certificate verify failed (unable to get local issuer certificate)", FactTLSCert, OwnerRecipientAdmin,
			"did not pass the sending server's verification", "fix their mail server's certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: tt.status, Diagnostic: tt.diag, Recipient: "office@example.at"})
			if c.Reason != ReasonFailedSTARTTLS {
				t.Errorf("reason %s (rule %s), want failedstarttls", c.Reason, c.Rule)
			}
			if c.Facts.Get(tt.fact) == "" {
				t.Errorf("%s not captured (facts %v)", tt.fact, c.Facts)
			}
			if c.Owner != tt.owner {
				t.Errorf("owner %s, want %s", c.Owner, tt.owner)
			}
			if !strings.Contains(c.Explanation, tt.explains) {
				t.Errorf("explanation %q lacks %q", c.Explanation, tt.explains)
			}
			if !strings.Contains(c.Fix, tt.fixes) {
				t.Errorf("fix %q lacks %q", c.Fix, tt.fixes)
			}
		})
	}
}

// TestExpiryNamesTheLastError checks that an expiry whose notice states the
// last error (Exim's retry timeout, Postfix's last deferral reason) names
// it, from the notice when the diagnostic does not, without the notice
// changing the reason.
func TestExpiryNamesTheLastError(t *testing.T) {
	e := builtin(t)
	tests := []struct{ name, diag, notice, want string }{
		{"exim host line in the notice", "retry timeout exceeded",
			"The following address(es) failed:\n\n  a@example.at\n    retry timeout exceeded\n    host mail.example.at [192.0.2.140]: Connection timed out\n", "Connection timed out"},
		{"exim error before the timeout", "retry timeout exceeded",
			"  a@example.at\n    host lookup did not complete: retry timeout exceeded\n", "host lookup did not complete"},
		{"postfix lost connection", "retry timeout exceeded",
			"<a@example.at>: delivery temporarily suspended: lost connection with mx.example.at[192.0.2.9] while receiving the initial server greeting", "lost connection with mx.example.at[192.0.2.9] while receiving the initial server greeting"},
		{"postfix reply", "retry timeout exceeded",
			"<a@example.at>: delivery temporarily suspended: host mx.example.at[192.0.2.9] said: 421 4.3.2 Service shutting down, try again later (in reply to MAIL FROM command)", "421 4.3.2 Service shutting down, try again later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Action: smtpcode.ActionFailed, Diagnostic: tt.diag, Notice: tt.notice, Recipient: "a@example.at"}
			c := e.Classify(in)
			if got := c.Facts.Get(FactLastError); got != tt.want {
				t.Errorf("last_error = %q, want %q", got, tt.want)
			}
			if c.Reason != ReasonExpired {
				t.Errorf("reason %s, want expired", c.Reason)
			}
			if !strings.Contains(c.Explanation, "gave up") || !strings.Contains(c.Explanation, tt.want) {
				t.Errorf("explanation does not name the last error %q: %q", tt.want, c.Explanation)
			}
			in.Notice = ""
			if without := e.Classify(in); without.Reason != c.Reason || without.Rule != c.Rule {
				t.Errorf("the notice changed the reading: %s/%s, without it %s/%s", c.Reason, c.Rule, without.Reason, without.Rule)
			}
		})
	}
}

// TestTemporaryRefusalGivenUpSaysSo checks the one place where a class-4
// failure that the sending server gave up on is explained as such: the
// receiving server refused temporarily on every attempt, and the fix does
// not claim that sending again must fail; a permanent refusal of the same
// kind keeps that claim, and a delay gets neither.
func TestTemporaryRefusalGivenUpSaysSo(t *testing.T) {
	e := builtin(t)
	const diag = "421 mwinf5c70 ME Service refuse. Veuillez essayer plus tard. Service refused, please try later. OFR_999 [203]"
	gaveUp := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "4.0.0", ReplyCode: "421", Diagnostic: diag, RemoteMTA: "smtp-in.orange.fr"})
	if gaveUp.Reason != ReasonBlocked {
		t.Fatalf("reason %s (rule %s), want blocked", gaveUp.Reason, gaveUp.Rule)
	}
	if !strings.Contains(gaveUp.Explanation, "temporary") || !strings.Contains(gaveUp.Explanation, "on every attempt, until the sending server gave up") {
		t.Errorf("explanation does not say the refusal was temporary and retried until given up: %q", gaveUp.Explanation)
	}
	if strings.Contains(gaveUp.Fix, "will fail the same way") {
		t.Errorf("fix claims a new attempt must fail, for a temporary refusal: %q", gaveUp.Fix)
	}
	if !strings.Contains(gaveUp.Fix, "postmaster.orange.fr") {
		t.Errorf("fix lost its reputation steps: %q", gaveUp.Fix)
	}

	final := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "5.7.1", ReplyCode: "550",
		Diagnostic: "550 5.7.1 Service refuse. Veuillez essayer plus tard. service refused, please try later. LPN007_510", RemoteMTA: "smtp-in.orange.fr"})
	if !strings.Contains(final.Fix, "will fail the same way") {
		t.Errorf("a permanent refusal lost 'will fail the same way': %q", final.Fix)
	}
	if strings.Contains(final.Explanation, "gave up") {
		t.Errorf("a permanent refusal reads as given up: %q", final.Explanation)
	}

	delayed := e.Classify(Input{Action: smtpcode.ActionDelayed, Status: "4.0.0", ReplyCode: "421", Diagnostic: diag})
	if strings.Contains(delayed.Explanation, "gave up") {
		t.Errorf("a delay reads as given up: %q", delayed.Explanation)
	}

	// A failure without a reply (DNS, TLS): given up, in the words of a
	// failure, not of a refusal.
	tls := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "4.7.4", Diagnostic: "TLS is required, but was not offered by host mx.example.at[192.0.2.1]"})
	if !strings.Contains(tls.Explanation, "The failure was temporary") || !strings.Contains(tls.Explanation, "gave up") {
		t.Errorf("a TLS failure given up does not say it was retried and given up: %q", tls.Explanation)
	}

	// The expired reason says it in its own words, once.
	exp := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "4.4.7", Diagnostic: "retry timeout exceeded"})
	if n := strings.Count(exp.Explanation, "gave up"); n != 1 {
		t.Errorf("an expiry says 'gave up' %d times: %q", n, exp.Explanation)
	}
}

// TestWillFailTheSameWayOnlyForPermanentRefusals checks the {?final} test
// of the fixes that say a new attempt must fail: shown for a class-5
// refusal, left out for a class-4 one that the sending server gave up on.
func TestWillFailTheSameWayOnlyForPermanentRefusals(t *testing.T) {
	e := builtin(t)
	const text = " Unauthenticated email from example.com is not accepted due to domain's DMARC policy"
	for _, tt := range []struct {
		status, reply string
		want          bool
	}{
		{"5.7.26", "550", true},
		{"4.7.26", "451", false},
	} {
		c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: tt.status, ReplyCode: tt.reply, Diagnostic: tt.reply + " " + tt.status + text})
		if c.Reason != ReasonAuthFailure {
			t.Fatalf("%s: reason %s (rule %s), want authfailure", tt.status, c.Reason, c.Rule)
		}
		if got := strings.Contains(c.Fix, "will fail the same way"); got != tt.want {
			t.Errorf("%s: 'will fail the same way' shown %v, want %v: %q", tt.status, got, tt.want, c.Fix)
		}
	}
}
