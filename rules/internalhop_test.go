package rules

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

func TestAGatewayOfTheRecipientsDomainThatCannotReachItsInternalServerIsTheRecipientOrganisationsFailure(t *testing.T) {
	e := builtin(t)
	for file, hop := range map[string]string{
		"gateway-internal-hop-01.eml": "exch01.nordwerk.local",              // Postfix, .local, RFC 1918
		"gateway-internal-hop-02.eml": "exch2016.lindqvist.lan",             // Exim, .lan
		"gateway-internal-hop-03.eml": "exchange.harbour-logistics.example", // Sendmail, a host of the recipient's domain
		"gateway-internal-hop-04.eml": "10.1.1.20",                          // Exchange Edge, RFC 1918
		"gateway-internal-hop-06.eml": "10.0.5.12",                          // MDaemon, RFC 1918
	} {
		rd := explainFixture(t, e, file)
		if got := rd.Facts.Get(FactInternalHop); got != hop {
			t.Errorf("%s: internal_hop %q, want %q", file, got, hop)
		}
		if rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: owner %s, want the recipient's admin", file, rd.Owner)
		}
		if !strings.Contains(rd.Explanation, "reached the recipient's organization") || !strings.Contains(rd.Explanation, "internal mail server "+hop) ||
			strings.Contains(rd.Explanation, "The sending server gave up") {
			t.Errorf("%s: explanation %q, want the recipient's gateway that could not reach %s", file, rd.Explanation, hop)
		}
		if !strings.Contains(rd.Fix, "Tell the recipient by other means") || !strings.Contains(rd.Fix, "once they confirm") ||
			strings.Contains(rd.Fix, "Check the address") || strings.Contains(rd.Fix, "Your email admin") {
			t.Errorf("%s: fix %q, want to tell the recipient and resend once mail flows, nothing on the sender's side", file, rd.Fix)
		}
	}
}

func TestAGatewayStillRetryingItsInternalServerSaysTheDelayIsInsideTheRecipientsOrganisation(t *testing.T) {
	e := builtin(t)
	for file, hop := range map[string]string{
		"gateway-internal-hop-05.eml": "srv-exch.auer.corp",     // Exchange, .corp
		"gateway-internal-hop-09.eml": "buzones.vidal.internal", // Postfix, .internal and RFC 4193
	} {
		rd := explainFixture(t, e, file)
		// Nothing to do yet (the fix says so), but if it persists the
		// recipient's admin acts (delay.go, delayedOwner).
		if rd.Kind != dsn.KindDelay || rd.Owner != OwnerRecipientAdmin || rd.Facts.Get(FactInternalHop) != hop {
			t.Errorf("%s: kind %s, owner %s, internal_hop %q: want a delay the recipient's admin acts on if it persists, at %s", file, rd.Kind, rd.Owner, rd.Facts.Get(FactInternalHop), hop)
		}
		if !strings.Contains(rd.Explanation, "delayed inside the recipient's organization") || strings.Contains(rd.Explanation, "gave up") {
			t.Errorf("%s: explanation %q, want a delay inside the recipient's organization, not a given-up delivery", file, rd.Explanation)
		}
		if !strings.Contains(rd.Fix, "Nothing to do yet") {
			t.Errorf("%s: fix %q, want nothing to do yet", file, rd.Fix)
		}
	}
}

func TestAPrivateOrPublicNextHopNotShownInternalToTheRecipientKeepsTheReceivingServerReading(t *testing.T) {
	e := builtin(t)
	for _, file := range []string{
		"gateway-internal-hop-07.eml", // the sender's own server and its own private relay
		"gateway-internal-hop-08.eml", // Exchange Online to a public host: maybe the sender's tenant
	} {
		rd := explainFixture(t, e, file)
		if rd.Facts.Get(FactInternalHop) != "" || strings.Contains(rd.Explanation, "recipient's organization") {
			t.Errorf("%s: internal_hop %q, explanation %q: want today's reading, the hop is not shown internal", file, rd.Facts.Get(FactInternalHop), rd.Explanation)
		}
	}
}

func TestAnInternalHopNeedsTheRecipientsGatewayAndAnInternalHost(t *testing.T) {
	for name, tc := range map[string]struct {
		in   Input
		want string
	}{
		"private IPv4 from the recipient's gateway": {Input{Recipient: "a@corp.example", ReportingMTA: "mx1.corp.example", RemoteMTA: "10.2.3.4"}, "10.2.3.4"},
		"unique local IPv6 (RFC 4193)":              {Input{Recipient: "a@corp.example", ReportingMTA: "dns; mx1.corp.example", Diagnostic: "connect to [fd12:3456::25]:25: Connection refused"}, "fd12:3456::25"},
		"name under .internal":                      {Input{Recipient: "a@corp.example", ReportingMTA: "gw.corp.example", RemoteMTA: "dns; mbx.corp.internal"}, "mbx.corp.internal"},
		"endpoint with its port in the diagnostic": {Input{Recipient: "a@corp.example", ReportingMTA: "edge.corp.example",
			Diagnostic: "451 4.4.0 Primary target IP address responded with: \"421 4.2.1 Unable to connect.\" The last endpoint attempted was 192.168.7.9:25"}, "192.168.7.9"},
		"a gateway of the parent domain":        {Input{Recipient: "a@sales.corp.example", ReportingMTA: "mx.corp.example", RemoteMTA: "exch.corp.example"}, "exch.corp.example"},
		"public address":                        {Input{Recipient: "a@corp.example", ReportingMTA: "mx1.corp.example", RemoteMTA: "203.0.113.5"}, ""},
		"private hop reported from outside":     {Input{Recipient: "a@corp.example", ReportingMTA: "mail.sender.example", RemoteMTA: "10.2.3.4"}, ""},
		"no reporting MTA":                      {Input{Recipient: "a@corp.example", RemoteMTA: "10.2.3.4"}, ""},
		"the gateway itself is no internal hop": {Input{Recipient: "a@corp.example", ReportingMTA: "mx1.corp.example", RemoteMTA: "mx1.corp.example"}, ""},
		"a help page of the domain in the text": {Input{Recipient: "a@corp.example", ReportingMTA: "mx1.corp.example",
			Diagnostic: "Connection timed out, see https://help.corp.example/mail"}, ""},
	} {
		if got := internalHop(&tc.in, tc.in.Diagnostic, ""); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

func TestAnInternalServersOwnRefusalRelayedByTheGatewayKeepsItsReason(t *testing.T) {
	v := builtin(t).Classify(Input{Action: "failed", Status: "5.1.1", Diagnostic: "550 5.1.1 <a@corp.example>: Recipient address rejected: User unknown",
		Recipient: "a@corp.example", ReportingMTA: "mx1.corp.example", RemoteMTA: "exch01.corp.local"})
	if v.Reason != ReasonUserUnknown || strings.Contains(v.Explanation, "internal mail server") {
		t.Errorf("reason %s, explanation %q: want the unknown user, which the internal server said", v.Reason, v.Explanation)
	}
}

func TestAMailLoopBetweenTheRecipientsServersStaysALoop(t *testing.T) {
	v := builtin(t).Classify(Input{Action: "failed", Status: "5.4.6", Diagnostic: "554 5.4.6 Hop count exceeded - possible mail loop",
		Recipient: "a@corp.example", ReportingMTA: "relay2.corp.example", RemoteMTA: "mbx2.corp.example"})
	if v.Facts.Get(FactLoop) == "" || v.Facts.Get(FactInternalHop) != "" || !strings.Contains(v.Explanation, "loop") {
		t.Errorf("loop %q, internal_hop %q, explanation %q: want the loop's reading", v.Facts.Get(FactLoop), v.Facts.Get(FactInternalHop), v.Explanation)
	}
}

func TestWhyNamesWhereTheInternalHopWasRead(t *testing.T) {
	tr := builtin(t).Trace(Input{Action: "failed", Status: "4.4.1", Diagnostic: "connect to exch01.corp.local[10.0.0.5]:25: Connection timed out",
		Recipient: "a@corp.example", ReportingMTA: "mx1.corp.example", RemoteMTA: "exch01.corp.local"})
	for _, f := range tr.Facts {
		if f.Fact == FactInternalHop {
			if f.Value != "exch01.corp.local" || !strings.Contains(f.From, "Reporting-MTA") {
				t.Errorf("internal_hop %q from %q, want exch01.corp.local from the Reporting-MTA and Remote-MTA", f.Value, f.From)
			}
			return
		}
	}
	t.Errorf("facts %+v: no internal_hop", tr.Facts)
}

// TestMayBeAddrPassesEveryAddress: every text netip reads as an address,
// with or without a port, passes mayBeAddr, which spares host names
// netip's error: written addresses and random texts of the bytes of
// addresses and names.
func TestMayBeAddrPassesEveryAddress(t *testing.T) {
	texts := []string{"192.0.2.1", "192.0.2.1:25", "[2001:db8::1]:25", "2001:DB8::1", "::ffff:192.0.2.1", "fe80::1%eth0", "[fe80::1%eth0]:25", "::"}
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "0129afAF.:[]%gxz-"
	for range 200000 {
		b := make([]byte, 1+rng.IntN(16))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	parsed := 0
	for _, s := range texts {
		_, errAddr := netip.ParseAddr(s)
		_, errPort := netip.ParseAddrPort(s)
		if errAddr != nil && errPort != nil {
			continue
		}
		parsed++
		if !mayBeAddr(s) {
			t.Fatalf("mayBeAddr(%q) = false, netip reads it", s)
		}
	}
	if parsed < 50 {
		t.Fatalf("only %d texts were addresses", parsed)
	}
	for _, name := range []string{"mx.example.com", "localhost", "mail-relay.internal"} {
		if mayBeAddr(name) {
			t.Errorf("mayBeAddr(%q) = true, want false for a host name", name)
		}
	}
}

// A host named by its address is written as netip writes the address, with
// or without a port, in brackets or not.
func TestHostNameWritesAnAddressAsNetipDoes(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.1":              "192.0.2.1",
		"[192.0.2.1]":            "192.0.2.1",
		"192.0.2.1:25":           "192.0.2.1",
		"2001:DB8:0:0::1":        "2001:db8::1",
		"2001:db8::1":            "2001:db8::1",
		"dns; [2001:0db8::0001]": "2001:db8::1",
		"fe80::1%eth0":           "fe80::1%eth0",
		"mx.example.org:25":      "mx.example.org",
	} {
		if got := hostName(in); got != want {
			t.Errorf("hostName(%q) = %q, want %q", in, got, want)
		}
	}
}
