package ledger

import "testing"

// The probes on which the milter's and the log importer's own domain
// checks used to disagree, and the cases both must keep.
func TestInDomains(t *testing.T) {
	ours := []string{"Example.org.", " .lists.example.com ", ""}
	for _, c := range []struct {
		addr string
		want bool
	}{
		{"alice@example.org", true},
		{"<Alice@EXAMPLE.ORG>", true},          // case, angle brackets
		{"alice@example.org.", true},           // trailing root dot on the address
		{"alice@mail.example.org", true},       // subdomain
		{"alice@deep.mail.example.org", true},  // deeper subdomain
		{"owner@lists.example.com", true},      // a domain written with a leading dot and spaces
		{"owner@a.lists.example.com", true},    // and its subdomain
		{"alice@example.com", false},           // the parent of a listed subdomain is not ours
		{"alice@badexample.org", false},        // a suffix that is not a label boundary
		{"alice@example.org.evil.test", false}, // our name as a prefix
		{"alice", false},                       // no domain
		{"alice@", false},                      // empty domain
		{"alice@.", false},                     // only a dot
		{"", false},                            // nothing
		{"alice@[192.0.2.1]", false},           // address literal
		{"\"a@example.org\"@evil.test", false}, // the last @ counts
	} {
		if got := InDomains(c.addr, ours); got != c.want {
			t.Errorf("InDomains(%q, %q) = %v, want %v", c.addr, ours, got, c.want)
		}
	}
	if InDomains("alice@example.org", nil) {
		t.Error("InDomains with no domains = true, want false: no address is in an empty list")
	}
}
