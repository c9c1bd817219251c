package batv

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

var (
	secret1 = []byte("0123456789abcdef0123-key-one")
	secret2 = []byte("fedcba9876543210fedc-key-two")
)

func signer(at time.Time) *Signer {
	return &Signer{Keys: []Key{{ID: 1, Secret: secret1}, {ID: 2, Secret: secret2}}, SignKey: 1,
		Now: func() time.Time { return at }}
}

// The tag is the draft's: key digit, the expiry day modulo 1000, and the
// first three bytes of HMAC-SHA1 over "KDDD" and the address, in hex.
func TestSignFollowsTheDraft(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) // day 20,787
	s := signer(at)
	got := s.Sign("Alice@Example.org")
	day := (20787 + 7) % 1000
	if day != 794 {
		t.Fatalf("test's own arithmetic: day %d", day)
	}
	m := hmac.New(sha1.New, secret1)
	m.Write([]byte("1794alice@example.org"))
	want := "prvs=1794" + hex.EncodeToString(m.Sum(nil)[:3]) + "=Alice@Example.org"
	if got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
	for _, a := range []string{"", "prvs=1794abcdef=alice@example.org", "no-domain"} {
		if got := s.Sign(a); got != a {
			t.Errorf("Sign(%q) = %q, want it unchanged", a, got)
		}
	}
}

func TestVerify(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := signer(at)
	signed := s.Sign("alice@example.org")
	tag, _, _ := Split(signed)
	flipped := tag[:9] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", tag[9])+1)%16])
	rotated := &Signer{Keys: s.Keys, SignKey: 2, Now: s.Now}
	for _, tc := range []struct {
		name, addr string
		at         time.Time
		v          *Signer
		want       Result
	}{
		{"valid", signed, at, s, Valid},
		{"upper case on the way back", strings.ToUpper(signed), at, s, Valid},
		{"valid on its last day", signed, at.Add(7 * 24 * time.Hour), s, Valid},
		{"expired the day after", signed, at.Add(8 * 24 * time.Hour), s, Expired},
		{"expired long ago (the day wraps at 1000)", signed, at.Add(500 * 24 * time.Hour), s, Expired},
		{"a tag from the future is not valid", signed, at.Add(-2 * 24 * time.Hour), s, Expired},
		{"one hex digit changed", "prvs=" + flipped + "=alice@example.org", at, s, Invalid},
		{"another address under the tag", strings.Replace(signed, "alice", "bob", 1), at, s, Invalid},
		{"a key we do not have", "prvs=7" + tag[1:] + "=alice@example.org", at, s, Invalid},
		{"the old key still verifies after a rotation", signed, at, rotated, Valid},
		{"unsigned", "alice@example.org", at, s, Unsigned},
		{"not a tag: letters in the day", "prvs=1abcabcdef=alice@example.org", at, s, Unsigned},
		{"not a tag: too short", "prvs=179abcdef=alice@example.org", at, s, Unsigned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := *tc.v
			when := tc.at
			v.Now = func() time.Time { return when }
			plain, r := v.Verify(tc.addr)
			if r != tc.want {
				t.Fatalf("Verify(%q) = %s, want %s", tc.addr, r, tc.want)
			}
			if r != Unsigned && !strings.EqualFold(plain, strings.SplitN(tc.addr, "=", 3)[2]) {
				t.Fatalf("Verify(%q) plain = %q", tc.addr, plain)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Signer
		ok   bool
	}{
		{"good", Signer{Keys: []Key{{ID: 0, Secret: secret1}}, SignKey: 0}, true},
		{"no keys", Signer{}, false},
		{"id 10", Signer{Keys: []Key{{ID: 10, Secret: secret1}}, SignKey: 10}, false},
		{"short secret", Signer{Keys: []Key{{ID: 1, Secret: []byte("short")}}, SignKey: 1}, false},
		{"signing key missing", Signer{Keys: []Key{{ID: 1, Secret: secret1}}, SignKey: 2}, false},
		{"same id twice", Signer{Keys: []Key{{ID: 1, Secret: secret1}, {ID: 1, Secret: secret2}}, SignKey: 1}, false},
		{"lifetime of 1000 days", Signer{Keys: []Key{{ID: 1, Secret: secret1}}, SignKey: 1, Lifetime: 1000 * 24 * time.Hour}, false},
	} {
		if err := tc.s.Check(); (err == nil) != tc.ok {
			t.Errorf("%s: Check = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func FuzzVerify(f *testing.F) {
	f.Add("prvs=1794abcdef=alice@example.org")
	f.Add("prvs==@")
	s := signer(time.Now())
	f.Fuzz(func(t *testing.T, a string) {
		plain, r := s.Verify(a)
		if r == Unsigned && plain != a {
			t.Fatalf("unsigned %q came back as %q", a, plain)
		}
	})
}
