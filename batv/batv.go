// Package batv signs and verifies envelope senders with the "prvs" scheme of
// Bounce Address Tag Validation (BATV, draft-levine-smtp-batv-01, section
// 4.1): the MAIL FROM of outbound mail local@domain becomes
//
//	prvs=KDDDSSSSSS=local@domain
//
// where K is the number of the key that signed (one decimal digit, so that
// keys can be rotated), DDD the day the tag expires (days since 1970-01-01,
// modulo 1000, three decimal digits) and SSSSSS the first three bytes, in
// hexadecimal, of the HMAC-SHA1 (RFC 2104) under key K of the string "KDDD"
// followed by the original address. A bounce (null sender) comes back to the
// signed address; a valid, unexpired tag proves that the message it reports
// on left here, and a bounce to an address with a bad tag, or to one of ours
// without a tag once every message leaves signed, is backscatter.
//
// The address is hashed in lower case: mail systems are known to change the
// case of the local part on the way back, and a tag must survive that (the
// hexadecimal digits are compared in any case too). Verification accepts a
// tag while its day is from today to Lifetime days ahead (modulo 1000, as
// the draft's three digits wrap); a day outside that window has passed.
//
// The package is pure: no I/O; the clock is a field.
package batv

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Prefix starts every signed address.
const Prefix = "prvs="

// DefaultLifetime is how long a tag is valid when Signer.Lifetime is 0: a
// week, longer than any MTA keeps a message in its queue (Postfix's
// maximal_queue_lifetime is 5 days), so that a late bounce still finds its
// tag valid.
const DefaultLifetime = 7 * 24 * time.Hour

// Key is one signing secret.
type Key struct {
	// ID is the key's number in the tag, 0 to 9.
	ID int
	// Secret is the HMAC key; at least MinSecret bytes.
	Secret []byte
}

// MinSecret is the least number of bytes a Key.Secret may have (RFC 2104
// section 3: no shorter than the hash output, 20 bytes for SHA-1).
const MinSecret = 20

// Signer signs and verifies tags with a set of keys: Sign uses the key
// numbered SignKey, Verify any of them, so that a new key can sign while the
// old one still verifies the tags it made, for Lifetime, before it is
// dropped.
type Signer struct {
	Keys []Key
	// SignKey is the ID of the key that signs.
	SignKey int
	// Lifetime is how long a tag is valid (0: DefaultLifetime); whole days
	// count, at most 999.
	Lifetime time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Check reports whether the Signer can sign and verify: IDs 0 to 9, each
// once, secrets of at least MinSecret bytes, a signing key among them, and
// a lifetime of 1 to 999 days.
func (s *Signer) Check() error {
	if len(s.Keys) == 0 {
		return errors.New("batv: no keys")
	}
	seen := map[int]bool{}
	for _, k := range s.Keys {
		if k.ID < 0 || k.ID > 9 {
			return fmt.Errorf("batv: key id %d: expected a digit 0 to 9 (the tag has one digit for it)", k.ID)
		}
		if seen[k.ID] {
			return fmt.Errorf("batv: key id %d: given twice", k.ID)
		}
		seen[k.ID] = true
		if len(k.Secret) < MinSecret {
			return fmt.Errorf("batv: key %d: secret of %d bytes, expected at least %d", k.ID, len(k.Secret), MinSecret)
		}
	}
	if !seen[s.SignKey] {
		return fmt.Errorf("batv: the signing key %d is not among the keys", s.SignKey)
	}
	if d := s.days(); d < 1 || d > 999 {
		return fmt.Errorf("batv: lifetime of %d days: expected 1 to 999 days", d)
	}
	return nil
}

func (s *Signer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Signer) days() int {
	l := s.Lifetime
	if l == 0 {
		l = DefaultLifetime
	}
	return int(l / (24 * time.Hour))
}

// dayNumber is the draft's day: days since 1970-01-01 (UTC), modulo 1000.
func dayNumber(t time.Time) int {
	return int(t.Unix()/86400) % 1000
}

func (s *Signer) key(id int) ([]byte, bool) {
	for _, k := range s.Keys {
		if k.ID == id {
			return k.Secret, true
		}
	}
	return nil, false
}

// hash is the six hexadecimal digits of the tag of addr (lower case)
// under secret, for key id and day.
func hash(secret []byte, id, day int, addr string) string {
	m := hmac.New(sha1.New, secret)
	m.Write([]byte(strconv.Itoa(id) + fmt.Sprintf("%03d", day) + strings.ToLower(addr)))
	return hex.EncodeToString(m.Sum(nil)[:3])
}

// Sign returns addr (local@domain) signed with the signing key, expiring
// Lifetime from now. An address that is already signed, or is not
// local@domain (the null sender), comes back as it is.
func (s *Signer) Sign(addr string) string {
	if addr == "" || strings.HasPrefix(strings.ToLower(addr), Prefix) || !strings.Contains(addr, "@") {
		return addr
	}
	secret, ok := s.key(s.SignKey)
	if !ok {
		return addr
	}
	day := (dayNumber(s.now()) + s.days()) % 1000
	return fmt.Sprintf("%s%d%03d%s=%s", Prefix, s.SignKey, day, hash(secret, s.SignKey, day, addr), addr)
}

// Result is what Verify found in an address.
type Result string

// Results.
const (
	// Unsigned: the address has no prvs tag.
	Unsigned Result = "unsigned"
	// Valid: the tag is one of our keys' and has not expired.
	Valid Result = "valid"
	// Expired: the tag is one of our keys', and its day has passed.
	Expired Result = "expired"
	// Invalid: the address has a prvs tag that none of our keys made
	// (forged, or made by a key no longer configured).
	Invalid Result = "invalid"
)

// Split returns the parts of a signed address prvs=KDDDSSSSSS=local@domain:
// the tag (KDDDSSSSSS) and the address (local@domain); ok is false when addr
// is not one (the tag is not one digit, three digits and six hexadecimal
// digits, or nothing follows it).
func Split(addr string) (tag, plain string, ok bool) {
	if len(addr) < len(Prefix) || !strings.EqualFold(addr[:len(Prefix)], Prefix) {
		return "", addr, false
	}
	rest := addr[len(Prefix):]
	tag, plain, found := strings.Cut(rest, "=")
	if !found || len(tag) != 10 || !strings.Contains(plain, "@") || strings.HasPrefix(plain, "@") {
		return "", addr, false
	}
	for i := 0; i < 4; i++ {
		if tag[i] < '0' || tag[i] > '9' {
			return "", addr, false
		}
	}
	for i := 4; i < 10; i++ {
		if !isHex(tag[i]) {
			return "", addr, false
		}
	}
	return tag, plain, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Verify returns the address addr stands for (without its tag) and what its
// tag is worth: Unsigned for an address without one (plain is addr),
// Valid, Expired or Invalid.
func (s *Signer) Verify(addr string) (plain string, r Result) {
	tag, plain, ok := Split(addr)
	if !ok {
		return addr, Unsigned
	}
	id := int(tag[0] - '0')
	day, _ := strconv.Atoi(tag[1:4])
	secret, known := s.key(id)
	if !known {
		return plain, Invalid
	}
	want := hash(secret, id, day, plain)
	if !hmac.Equal([]byte(want), []byte(strings.ToLower(tag[4:]))) {
		return plain, Invalid
	}
	// Days from today to the tag's day, modulo 1000: 0 to Lifetime while
	// it is valid.
	if ahead := (day - dayNumber(s.now()) + 1000) % 1000; ahead > s.days() {
		return plain, Expired
	}
	return plain, Valid
}
