package frontend

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Privacy is how log lines show the addresses and Message-IDs of the mail
// that passes: the people who write and receive it have not asked for their
// names in a log. Queue ids, which tie a line to the MTA's own log, are
// shown as they are.
type Privacy string

// Privacy settings (the configuration key log_addresses).
const (
	// PrivacyHash (the default, also "") shows a short hash of the local
	// part with the domain: hello@example.org is
	// "h:2cf24dba5fb0@example.org". The same address gives the same line,
	// and sha256 of the lower-cased local part tells an admin which one
	// it is, without the log listing them.
	PrivacyHash Privacy = "hash"
	// PrivacyDomain shows the domain only, "@example.org".
	PrivacyDomain Privacy = "domain"
	// PrivacyFull shows addresses and Message-IDs as they are.
	PrivacyFull Privacy = "full"
)

// ParsePrivacy returns the Privacy s names: hash, domain or full, in any
// case; "" is hash.
func ParsePrivacy(s string) (Privacy, error) {
	switch p := Privacy(strings.ToLower(strings.TrimSpace(s))); p {
	case PrivacyHash, PrivacyDomain, PrivacyFull:
		return p, nil
	case "":
		return PrivacyHash, nil
	}
	return "", fmt.Errorf("log_addresses %q: expected hash, domain or full", s)
}

// Address is an address as a log line shows it.
func (p Privacy) Address(a string) string {
	if a == "" || p == PrivacyFull {
		return a
	}
	local, domain, ok := cutLast(a, "@")
	if !ok {
		local, domain = a, ""
	}
	if p == PrivacyDomain {
		return "@" + domain
	}
	sum := sha256.Sum256([]byte(strings.ToLower(local)))
	out := "h:" + hex.EncodeToString(sum[:6])
	if ok {
		out += "@" + domain
	}
	return out
}

// Addresses is Address of each.
func (p Privacy) Addresses(as []string) []string {
	if p == PrivacyFull {
		return as
	}
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = p.Address(a)
	}
	return out
}

// MessageID is a Message-ID as a log line shows it: as an address (its left
// part may name the sender; its right part is a host).
func (p Privacy) MessageID(id string) string { return p.Address(id) }

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
