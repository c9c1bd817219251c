package rules

import (
	"strings"
	"testing"
)

// TestYahooPermanentDeferralIsTheSendingServersReputation: Yahoo's [TSS09]
// and [TSS11] "All messages from IP will be permanently deferred" under
// 5.7.2 is the sending server refused for its reputation (Sisimai
// rhost.YahooInc: rejected), not RFC 3463's mailing list expansion that
// rfc3463-x.7.2 reads: the sender's admin acts, the IP is named.
func TestYahooPermanentDeferralIsTheSendingServersReputation(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"553 5.7.2 [TSS09] All messages from 192.0.2.25 will be permanently deferred; Retrying will NOT succeed. See https://postmaster.yahooinc.com/error-codes",
		"553 5.7.2 [TSS11] All messages from 192.0.2.25 permanently deferred; Retrying will NOT succeed. See https://postmaster.yahooinc.com/error-codes",
	} {
		v := e.Classify(Input{Status: "5.7.2", Diagnostic: diag, Command: "MAIL", RemoteMTA: "mta5.am0.yahoodns.net"})
		if v.Rule != "yahoo-permanently-deferred" || v.Reason != ReasonRejected || v.Owner != OwnerSenderAdmin ||
			!strings.Contains(v.Explanation, "(192.0.2.25)") || strings.Contains(v.Explanation, "mailing list") {
			t.Errorf("%q: rule %s reason %s owner %s explanation %q: want yahoo-permanently-deferred, rejected, the sender's admin, the IP named, no mailing list",
				diag, v.Rule, v.Reason, v.Owner, v.Explanation)
		}
	}
}
