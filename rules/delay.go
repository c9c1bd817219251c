package rules

// A delay (RFC 3464 section 2.3.3, Action: delayed) is read as temporary:
// nobody needs to act yet, the sending server keeps trying. Some causes of
// a delay do not go away with retries, though: they are a configuration of
// the recipient's side, and the sending server keeps failing until that
// configuration changes. Those keep the reading's owner, and their fix says
// that waiting will likely not help.

// lastingDelayConditions are the conditions (facts) of a delay that retries
// cannot fix:
//   - the receiving server's certificate fails verification: a sender that
//     enforces an MTA-STS policy "MUST NOT deliver the message" to a host
//     that fails it (RFC 8461 sections 5 and 6), and under DANE a TLSA
//     mismatch makes delivery to that host fail (RFC 7672 section 2.2); the
//     sender's retries meet the same certificate;
//   - the receiving server does not offer STARTTLS, or refuses to start it,
//     where the sender's policy (MTA-STS enforce, DANE, Postfix
//     smtp_tls_security_level encrypt and higher) requires TLS: the same
//     sections.
//
// FactTLSRequired is not one: there the receiving server requires TLS
// that the sending server did not start, the sender's own configuration,
// whose rule already names its admin.
var lastingDelayConditions = [...]Fact{FactTLSCert, FactTLSNotOffered, FactTLSRefused}

// lastingDelayReasons are the reasons of a delay that retries cannot fix: a
// refusal to relay, which Postfix's defer_unauth_destination and
// soft_bounce turn into a 4xx reply ("454 4.7.1 Relay access denied",
// postconf(5)), is the receiving server's configuration for the domain.
var lastingDelayReasons = [...]Reason{ReasonNoRelaying}

// lastingDelay says whether a delay read as v does not fix itself: its
// cause is one of lastingDelayConditions or lastingDelayReasons, and its
// owner is the recipient's email admin (whose configuration it is, and
// whom the fix asks the sender to reach). A reason of lastingDelayReasons
// counts only when a remote server gave it (in): from the sender's own
// server, a relay refusal is not the recipient's side's.
func lastingDelay(v *Classification, in *Input) bool {
	if v.Owner != OwnerRecipientAdmin {
		return false
	}
	for _, r := range lastingDelayReasons {
		if v.Reason == r && !ownServerRefusal(in) {
			return true
		}
	}
	for _, f := range lastingDelayConditions {
		if v.Facts.Get(f) != "" {
			return true
		}
	}
	return false
}
