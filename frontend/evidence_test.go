package frontend

import (
	"testing"

	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/decide"
)

func TestBATVSignsOurSendersUnlessExempt(t *testing.T) {
	site := decide.NewSite([]string{"example.org"}, nil)
	b := &BATV{Signer: &batv.Signer{Keys: []batv.Key{{ID: 2, Secret: []byte("twenty bytes and then some more")}}, SignKey: 2},
		ExemptSenders: []string{"list-owner@example.org", "@lists.example.org"}, ExemptDestinations: []string{"@lists.remote.example", "dev@other.example"}}
	for _, tc := range []struct {
		sender string
		rcpts  []string
		signed bool
	}{
		{"Alice@Example.org", []string{"bob@remote.example"}, true},
		{"alice@example.org", []string{"bob@remote.example", "x@LISTS.remote.example"}, false},
		{"alice@example.org", []string{"dev@other.example"}, false},
		{"list-owner@example.org", []string{"bob@remote.example"}, false},
		{"anyone@lists.example.org", []string{"bob@remote.example"}, false},
		{"someone@elsewhere.example", []string{"bob@remote.example"}, false},
		{"", []string{"bob@remote.example"}, false},
	} {
		got, ok := b.SignedSender(site, tc.sender, tc.rcpts)
		if ok != tc.signed {
			t.Errorf("SignedSender(%q, %q) = %q, %v; want signed %v", tc.sender, tc.rcpts, got, ok, tc.signed)
			continue
		}
		if ok {
			if plain, res := b.Signer.Verify(got); res != batv.Valid || plain != tc.sender {
				t.Errorf("SignedSender(%q) = %q, which verifies as %s for %q", tc.sender, got, res, plain)
			}
			if p, ok := b.PlainRecipient(site, got); !ok || p != tc.sender {
				t.Errorf("PlainRecipient(%q) = %q, %v", got, p, ok)
			}
		}
	}
	if _, ok := b.PlainRecipient(site, "prvs=2000abcdef=alice@example.org"); ok {
		t.Error("PlainRecipient rewrites a forged tag")
	}
}
