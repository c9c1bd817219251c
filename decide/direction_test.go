package decide

import (
	"net/netip"
	"reflect"
	"testing"
)

var testSite = NewSite([]string{" Example.ORG. ", ""}, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")})

func TestSiteOurs(t *testing.T) {
	if len(testSite.Domains) != 1 || testSite.Domains[0] != "example.org" {
		t.Fatalf("NewSite domains = %q, want [example.org]", testSite.Domains)
	}
	for addr, want := range map[string]bool{
		"alice@example.org":      true,
		"<Alice@EXAMPLE.org>":    true,
		"bob@mail.example.org":   true,
		"eve@badexample.org":     false,
		"eve@example.org.evil":   false,
		"postmaster":             false,
		"someone@remote.example": false,
	} {
		if got := testSite.Ours(addr); got != want {
			t.Errorf("Ours(%q) = %v, want %v", addr, got, want)
		}
	}
	if !(Site{}).Ours("anyone@anywhere.example") || (Site{}).JudgeOurs() != nil {
		t.Error("a Site without domains must own every address, and give Judge a nil predicate")
	}
	if testSite.AllOurs(nil) || !testSite.AllOurs([]string{"a@example.org", "b@x.example.org"}) ||
		testSite.AllOurs([]string{"a@example.org", "b@remote.example"}) {
		t.Error("AllOurs: want false for none, true when every one is ours, false when one is not")
	}
	if !testSite.Trusted(netip.MustParseAddr("::ffff:10.1.2.3")) || testSite.Trusted(netip.MustParseAddr("192.0.2.1")) {
		t.Error("Trusted: a v4-mapped address in 10/8 is trusted, 192.0.2.1 is not")
	}
}

func TestClassifyAndWithRecipients(t *testing.T) {
	trusted, outside := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("203.0.113.25")
	ours, mixed := []string{"alice@example.org"}, []string{"alice@example.org", "bob@remote.example"}
	for _, tc := range []struct {
		name     string
		o        Origin
		from     string
		rcpts    []string
		want     Route
		outbound bool
	}{
		{"authenticated", Origin{Authenticated: true, Addr: outside}, "alice@example.org", mixed, Route{Why: WhyAuth}, true},
		{"authenticated null sender is not read", Origin{Authenticated: true}, "", ours, Route{Why: WhyAuth}, true},
		{"trusted network", Origin{Addr: trusted}, "alice@example.org", mixed, Route{Why: WhyTrustedNetwork}, true},
		{"local socket", Origin{Local: true}, "alice@example.org", mixed, Route{Why: WhyLocal}, true},
		{"local flag ignored with an address", Origin{Local: true, Addr: outside}, "x@remote.example", ours, Route{}, false},
		{"submission listener", Origin{Submission: true, Addr: outside}, "alice@example.org", mixed, Route{Why: WhySubmission}, true},
		{"outside", Origin{Addr: outside}, "x@remote.example", ours, Route{}, false},
		{"unknown origin is inbound", Origin{}, "x@remote.example", ours, Route{}, false},
		{"bounce from outside", Origin{Addr: outside}, "", ours, Route{Candidate: true, NullSender: true}, false},
		{"MTA's own bounce to our users", Origin{Local: true}, "", ours, Route{Why: WhyLocal, Candidate: true, Inside: true, NullSender: true}, false},
		{"internal relay's bounce to our users", Origin{Addr: trusted}, "MAILER-DAEMON@relay.example.org", ours,
			Route{Why: WhyTrustedNetwork, Candidate: true, Inside: true}, false},
		{"inside bounce to someone else stays outbound", Origin{Addr: trusted}, "", mixed, Route{Why: WhyTrustedNetwork, Candidate: true, NullSender: true}, true},
		{"bounce from postmaster outside: read, not null", Origin{Addr: outside}, "postmaster@partner.example", ours, Route{Candidate: true}, false},
		{"bounce through a submission listener to our users", Origin{Submission: true}, "", ours,
			Route{Why: WhySubmission, Candidate: true, Inside: true, NullSender: true}, false},
	} {
		got := testSite.Classify(tc.o, tc.from).WithRecipients(testSite, tc.rcpts)
		if got != tc.want || got.Outbound() != tc.outbound {
			t.Errorf("%s: route %+v (outbound %v), want %+v (outbound %v)", tc.name, got, got.Outbound(), tc.want, tc.outbound)
		}
	}
}

func TestOutboundLosesNDRFieldsOnlyToOurUsers(t *testing.T) {
	incoming := []Header{{Name: "X-NDR-Owner", Index: 1}, {Name: "X-NDR-Backscatter", Index: 1}, {Name: "X-NDR-Owner", Index: 2}}
	last := []Header{{Name: "X-NDR-Owner", Index: 2}, {Name: "X-NDR-Backscatter", Index: 1}, {Name: "X-NDR-Owner", Index: 1}}
	for _, tc := range []struct {
		name  string
		rcpts []string
		want  []Header
	}{
		{"to our user", []string{"bob@example.org"}, last},
		{"to a subdomain of ours and outside", []string{"x@remote.example", "bob@mail.example.org"}, last},
		{"outside only", []string{"x@remote.example"}, nil},
	} {
		out := Outbound(testSite, Facts{Recipients: tc.rcpts, Incoming: incoming})
		if out.Action != ActionNone || out.Event != nil || out.Add != nil || !reflect.DeepEqual(out.Delete, tc.want) {
			t.Errorf("%s: %+v, want deletions %v (last first) and nothing else", tc.name, out, tc.want)
		}
	}
	if out := Outbound(NewSite(nil, nil), Facts{Recipients: []string{"x@remote.example"}, Incoming: incoming}); len(out.Delete) != 3 {
		t.Errorf("with every domain ours: %+v, want the 3 fields deleted", out.Delete)
	}
}
