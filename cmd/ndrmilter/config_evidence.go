package main

// The configuration of the backscatter evidence beyond bounces (issue 15):
// automatic replies, receive-only addresses, BATV and DKIM keys. Secrets
// and keys are in files named by the configuration, never in it or on the
// command line (which every user of the machine can read in ps).

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/batv"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/ledger"
)

// batvKeyItem is one batv_keys item: "ID:FILE", the key's number in the
// tag (0 to 9) and the file holding its secret.
func batvKeyItem(item string) (id int, file string, err error) {
	n, file, ok := strings.Cut(strings.TrimSpace(item), ":")
	id, err = strconv.Atoi(n)
	if !ok || err != nil || id < 0 || id > 9 || file == "" {
		return 0, "", fmt.Errorf("batv_keys %q: expected ID:FILE, a key number 0 to 9 and the file of its secret, such as 1:/etc/ndrmilter/batv-1.key", item)
	}
	return id, file, nil
}

// dkimKeyItem is one dkim_keys item: "DOMAIN:SELECTOR:FILE", the d= and
// s= of our signatures and the file of the public key.
func dkimKeyItem(item string) (domain, selector, file string, err error) {
	parts := strings.SplitN(strings.TrimSpace(item), ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", fmt.Errorf("dkim_keys %q: expected DOMAIN:SELECTOR:FILE, such as example.org:s1:/etc/ndrmilter/dkim-s1.txt", item)
	}
	return strings.ToLower(parts[0]), strings.ToLower(parts[1]), parts[2], nil
}

// readBATVSecret reads a BATV secret: the file's bytes, a final line break
// left out.
func readBATVSecret(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("batv_keys: %w", err)
	}
	b = []byte(strings.TrimRight(string(b), "\r\n"))
	if len(b) < batv.MinSecret {
		return nil, fmt.Errorf("batv_keys: %s holds %d bytes: a secret needs at least %d (head -c 32 /dev/urandom | base64 > FILE)", file, len(b), batv.MinSecret)
	}
	return b, nil
}

// readDKIMKey reads a DKIM public key file: the DNS TXT record as
// published ("v=DKIM1; k=rsa; p=MIIB..."), or a PEM public key.
func readDKIMKey(file string) (crypto.PublicKey, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("dkim_keys: %w", err)
	}
	if blk, _ := pem.Decode(b); blk != nil {
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("dkim_keys: %s: %w", file, err)
		}
		return k, nil
	}
	// A record as a zone file writes it: quoted strings to join.
	rec := strings.NewReplacer("\"", "", "\n", " ", "\r", " ").Replace(string(b))
	k, err := backscatter.ParseDKIMRecord(rec)
	if err != nil {
		return nil, fmt.Errorf("dkim_keys: %s: %w", file, err)
	}
	return k, nil
}

// signingSince reads batv_signing_since: a date (2026-12-01) or a time
// (RFC 3339); "" for none.
func signingSince(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("batv_signing_since %q: expected a date such as 2026-12-01 or a time such as 2026-12-01T08:00:00Z", s)
	}
	return t, nil
}

// addressList normalizes a list of addresses and "@domain" entries.
func addressList(items []string) []string {
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(it)
		if strings.HasPrefix(it, "@") {
			out = append(out, strings.ToLower(it))
		} else if a := ledger.NormalizeAddress(it); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// checkEvidence checks the evidence keys' values without reading files.
func (c serveConfig) checkEvidence(add func(key string, item int, format string, args ...any)) {
	if _, err := decide.ParseAutoReplyAction(c.AutoReplyBackscatterAction); err != nil {
		add("autoreply_backscatter_action", -1, "%v", err)
	}
	for i, a := range c.ReceiveOnly {
		if !strings.Contains(a, "@") {
			add("receive_only", i, "receive_only %q: expected an address such as noreply@example.org", a)
		}
	}
	ids := map[int]bool{}
	for i, it := range c.BATVKeys {
		id, _, err := batvKeyItem(it)
		if err != nil {
			add("batv_keys", i, "%v", err)
			continue
		}
		if ids[id] {
			add("batv_keys", i, "batv_keys: key %d given twice", id)
		}
		ids[id] = true
	}
	if len(c.BATVKeys) > 0 && !ids[c.BATVSignKey] {
		add("batv_sign_key", -1, "batv_sign_key %d: expected the number of one of batv_keys", c.BATVSignKey)
	}
	if d := time.Duration(c.BATVLifetime); d != 0 && (d < 24*time.Hour || d > 999*24*time.Hour) {
		add("batv_lifetime", -1, "batv_lifetime %s: expected 1d to 999d", c.BATVLifetime.String())
	}
	if _, err := signingSince(c.BATVSigningSince); err != nil {
		add("batv_signing_since", -1, "%v", err)
	}
	for i, it := range c.DKIMKeys {
		if _, _, _, err := dkimKeyItem(it); err != nil {
			add("dkim_keys", i, "%v", err)
		}
	}
}

// evidence is the frontend.Evidence of the configuration, its key files
// read.
func (c serveConfig) evidence() (*frontend.Evidence, error) {
	ev := &frontend.Evidence{
		Retention:        time.Duration(c.Retention),
		ReceiveOnly:      addressList(c.ReceiveOnly),
		LearnReceiveOnly: c.ReceiveOnlyLearn,
	}
	if len(c.BATVKeys) > 0 {
		s := &batv.Signer{SignKey: c.BATVSignKey, Lifetime: time.Duration(c.BATVLifetime)}
		for _, it := range c.BATVKeys {
			id, file, err := batvKeyItem(it)
			if err != nil {
				return nil, err
			}
			secret, err := readBATVSecret(file)
			if err != nil {
				return nil, err
			}
			s.Keys = append(s.Keys, batv.Key{ID: id, Secret: secret})
		}
		if err := s.Check(); err != nil {
			return nil, err
		}
		since, err := signingSince(c.BATVSigningSince)
		if err != nil {
			return nil, err
		}
		ev.BATV = &frontend.BATV{Signer: s, ExemptSenders: addressList(c.BATVExemptSenders),
			ExemptDestinations: addressList(c.BATVExemptDestinations), SigningSince: since}
	}
	for _, it := range c.DKIMKeys {
		d, sel, file, err := dkimKeyItem(it)
		if err != nil {
			return nil, err
		}
		k, err := readDKIMKey(file)
		if err != nil {
			return nil, err
		}
		ev.DKIM = append(ev.DKIM, backscatter.DKIMKey{Domain: d, Selector: sel, Public: k})
	}
	return ev, nil
}
