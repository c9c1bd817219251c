package backscatter

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"github.com/ndrmilter/ndrmilter/message"
)

// DKIM evidence: a report that quotes the header of the original (a
// text/rfc822-headers or message/rfc822 part, RFC 3462 and RFC 3464) may
// quote the DKIM-Signature our signer put on it (RFC 6376). A signature of
// ours whose header hash verifies against our public key proves that the
// header fields it covers (From, and usually Message-ID, Date, To and
// Subject) were signed with our private key: the message was written here,
// or by whoever holds that key. The body is not checked: a report quotes
// the header alone, or the body re-encoded (a different body hash), so the
// bh= tag is left aside, and the header hash is checked over the b= tag as
// RFC 6376 section 3.7 computes it. What this cannot prove: that the body
// was ours, nor that the message was not replayed, sent again to someone
// else with its signature intact, by whoever received it from us.
//
// A whole quoted message (message/rfc822) is verified by
// github.com/emersion/go-msgauth's dkim.VerifyWithOptions, body hash
// included, with our key records given to it instead of DNS. But it checks
// the body hash first and fails the signature when it differs, which is the
// case of a quoted header (text/rfc822-headers, or a body re-encoded), the
// common case this evidence is for; its canonicalization is not exported.
// So, when it does not verify, the header hash is computed here (RFC 6376 sections 3.4.1, 3.4.2, 3.7 and 5.4.2), for
// rsa-sha256 (RFC 6376 section 3.3.1) and ed25519-sha256 (RFC 8463).
// rsa-sha1 is not accepted (RFC 8301 section 3.1). go-msgauth signs the
// test messages: an independent signer.

// DKIMKey is one of our DKIM keys: the domain (d=) and selector (s=) its
// signatures name, and its public key.
type DKIMKey struct {
	Domain   string
	Selector string
	// Public is an *rsa.PublicKey or an ed25519.PublicKey.
	Public crypto.PublicKey
}

// ParseDKIMRecord reads the public key of a DKIM key record (RFC 6376
// section 3.6.1), as published in DNS: "v=DKIM1; k=rsa; p=MIIB...". The
// p= value is the key in base64: for RSA a SubjectPublicKeyInfo (or a bare
// PKCS#1 RSAPublicKey, as some tools write), for k=ed25519 the 32 bytes of
// the key (RFC 8463 section 4.2).
func ParseDKIMRecord(record string) (crypto.PublicKey, error) {
	tags, err := dkimTags(record)
	if err != nil {
		return nil, fmt.Errorf("dkim key record: %w", err)
	}
	p := strings.Join(strings.Fields(tags["p"]), "")
	if p == "" {
		return nil, errors.New("dkim key record: expected a p= tag with the public key, found none (or a revoked key)")
	}
	der, err := base64.StdEncoding.DecodeString(p)
	if err != nil {
		return nil, fmt.Errorf("dkim key record: p= is not base64: %w", err)
	}
	switch k := strings.ToLower(strings.TrimSpace(tags["k"])); k {
	case "", "rsa":
		if pub, err := x509.ParsePKIXPublicKey(der); err == nil {
			if rk, ok := pub.(*rsa.PublicKey); ok {
				return rk, nil
			}
			return nil, fmt.Errorf("dkim key record: k=rsa, but p= holds a %T", pub)
		}
		rk, err := x509.ParsePKCS1PublicKey(der)
		if err != nil {
			return nil, fmt.Errorf("dkim key record: p= is not an RSA public key: %w", err)
		}
		return rk, nil
	case "ed25519":
		if len(der) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("dkim key record: k=ed25519 expects a 32-byte key in p=, got %d bytes", len(der))
		}
		return ed25519.PublicKey(der), nil
	default:
		return nil, fmt.Errorf("dkim key record: key type k=%s: expected rsa or ed25519", k)
	}
}

// Bounds on what one report makes the DKIM check read and verify.
const (
	maxQuotedHeader = 256 << 10 // bytes of a quoted original's header
	maxDKIMChecks   = 5         // signatures verified per report
)

// signedByUs reports whether the original quoted in raw carries a DKIM
// signature of one of j.DKIM's keys whose header hash verifies.
func (j Judge) signedByUs(raw []byte) bool {
	m := message.Read(raw)
	checks := 0
	for i := range m.Parts {
		p := &m.Parts[i]
		switch p.MediaType {
		case "message/rfc822", "message/global", "text/rfc822-headers", "message/global-headers":
		default:
			continue
		}
		body, _ := p.Decode(maxQuotedHeader)
		if (p.MediaType == "message/rfc822" || p.MediaType == "message/global") && j.verifiedWhole(body) {
			return true
		}
		fields := headerFields(body)
		for _, sig := range fields {
			if !strings.EqualFold(sig.name, "DKIM-Signature") {
				continue
			}
			if checks++; checks > maxDKIMChecks {
				return false
			}
			if verifyHeaderSignature(fields, sig, j.DKIM, j.now()) == nil {
				return true
			}
		}
	}
	return false
}

// verifiedWhole reports whether msg, a whole quoted message (header and
// body), carries a DKIM signature of one of j.DKIM's keys that go-msgauth's
// verifier accepts, body hash included. The key records come from the
// configuration (LookupTXT), never from DNS.
func (j Judge) verifiedWhole(msg []byte) bool {
	records := make(map[string]string, len(j.DKIM))
	for _, k := range j.DKIM {
		if rec := dkimRecord(k.Public); rec != "" {
			records[strings.ToLower(k.Selector+"._domainkey."+k.Domain)] = rec
		}
	}
	lookup := func(name string) ([]string, error) {
		if rec, ok := records[strings.ToLower(strings.TrimSuffix(name, "."))]; ok {
			return []string{rec}, nil
		}
		return nil, errors.New("dkim: not one of our keys")
	}
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(msg), &dkim.VerifyOptions{LookupTXT: lookup, MaxVerifications: maxDKIMChecks})
	if err != nil {
		return false
	}
	for _, v := range vs {
		if v.Err == nil && slices.ContainsFunc(v.HeaderKeys, func(h string) bool { return strings.EqualFold(h, "From") }) {
			return true
		}
	}
	return false
}

// dkimRecord is the DNS key record (RFC 6376 section 3.6.1) of a public
// key, "" for a key of another type.
func dkimRecord(pub crypto.PublicKey) string {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			return ""
		}
		return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der)
	case ed25519.PublicKey:
		return "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(k)
	}
	return ""
}

// rawField is one header field as written: its name and the whole field,
// "Name: value" with its folding, without the final line break.
type rawField struct {
	name string
	text string
}

// headerFields splits the header block at the start of b into fields, as
// written (a line that is neither a field nor a continuation ends it).
func headerFields(b []byte) []rawField {
	var out []rawField
	for len(b) > 0 {
		end := bytes.IndexByte(b, '\n')
		line := b
		if end >= 0 {
			line, b = b[:end], b[end+1:]
		} else {
			b = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			return out
		case line[0] == ' ' || line[0] == '\t':
			if len(out) == 0 {
				return out
			}
			out[len(out)-1].text += "\r\n" + string(line)
		default:
			i := bytes.IndexByte(line, ':')
			if i <= 0 || !message.IsFieldName(bytes.TrimRight(line[:i], " \t")) {
				return out
			}
			out = append(out, rawField{name: string(bytes.TrimRight(line[:i], " \t")), text: string(line)})
		}
	}
	return out
}

// verifyHeaderSignature checks the header hash of the DKIM-Signature sig
// over fields against the key of keys its d= and s= name; nil when it
// verifies.
func verifyHeaderSignature(fields []rawField, sig rawField, keys []DKIMKey, now time.Time) error {
	_, value, _ := strings.Cut(sig.text, ":")
	tags, err := dkimTags(value)
	if err != nil {
		return err
	}
	if tags["v"] != "1" {
		return errors.New("dkim: expected v=1")
	}
	d, s := strings.ToLower(stripWS(tags["d"])), strings.ToLower(stripWS(tags["s"]))
	var key *DKIMKey
	for i := range keys {
		if strings.EqualFold(keys[i].Domain, d) && strings.EqualFold(keys[i].Selector, s) {
			key = &keys[i]
			break
		}
	}
	if key == nil {
		return fmt.Errorf("dkim: d=%s s=%s is not one of our keys", d, s)
	}
	if x := stripWS(tags["x"]); x != "" {
		if n, err := strconv.ParseInt(x, 10, 64); err != nil || now.Unix() > n {
			return errors.New("dkim: the signature has expired (x=)")
		}
	}
	h := strings.Split(stripWS(tags["h"]), ":")
	fromSigned := false
	for _, n := range h {
		fromSigned = fromSigned || strings.EqualFold(n, "from")
	}
	if !fromSigned {
		return errors.New("dkim: From is not signed (RFC 6376 section 5.4)")
	}
	relaxed := strings.HasPrefix(strings.ToLower(stripWS(tags["c"])), "relaxed")
	canon := canonSimple
	if relaxed {
		canon = canonRelaxed
	}
	sigBytes, err := base64.StdEncoding.DecodeString(stripWS(tags["b"]))
	if err != nil || len(sigBytes) == 0 {
		return errors.New("dkim: b= is not base64")
	}

	// RFC 6376 section 5.4.2: each name in h= takes the last instance not
	// yet used, from the bottom up; a name with no instance left adds
	// nothing.
	hash := sha256.New()
	used := make(map[int]bool)
	for _, name := range h {
		for i := len(fields) - 1; i >= 0; i-- {
			if !used[i] && strings.EqualFold(fields[i].name, strings.TrimSpace(name)) {
				used[i] = true
				hash.Write([]byte(canon(fields[i].text) + "\r\n"))
				break
			}
		}
	}
	// The signature field itself, its b= value emptied, without a final
	// line break (RFC 6376 section 3.7).
	hash.Write([]byte(canon(withoutB(sig.text))))
	digest := hash.Sum(nil)

	switch a := strings.ToLower(stripWS(tags["a"])); a {
	case "rsa-sha256":
		pub, ok := key.Public.(*rsa.PublicKey)
		if !ok {
			return errors.New("dkim: a=rsa-sha256 but our key is not RSA")
		}
		return rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest, sigBytes)
	case "ed25519-sha256":
		pub, ok := key.Public.(ed25519.PublicKey)
		if !ok {
			return errors.New("dkim: a=ed25519-sha256 but our key is not Ed25519")
		}
		if !ed25519.Verify(pub, digest, sigBytes) {
			return errors.New("dkim: the Ed25519 signature does not verify")
		}
		return nil
	default:
		return fmt.Errorf("dkim: algorithm a=%s: expected rsa-sha256 or ed25519-sha256", a)
	}
}

// dkimTags reads a tag list (RFC 6376 section 3.2): "t=v; t=v"; names are
// case-sensitive, the last of a repeated name is an error.
func dkimTags(v string) (map[string]string, error) {
	tags := make(map[string]string)
	for _, part := range strings.Split(v, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("expected tag=value, got %q", strings.TrimSpace(part)[:min(len(strings.TrimSpace(part)), 20)])
		}
		name = strings.TrimSpace(name)
		if _, dup := tags[name]; dup {
			return nil, fmt.Errorf("tag %s repeated", name)
		}
		tags[name] = strings.TrimSpace(val)
	}
	return tags, nil
}

// stripWS removes all white space (FWS), as tag values of base64 and lists
// may be folded.
func stripWS(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

// withoutB returns a DKIM-Signature field with the value of its b= tag
// deleted, everything else (white space included) as written.
func withoutB(field string) string {
	colon := strings.IndexByte(field, ':')
	if colon < 0 {
		return field
	}
	head, v := field[:colon+1], field[colon+1:]
	var out strings.Builder
	out.WriteString(head)
	for i, part := range strings.Split(v, ";") {
		if i > 0 {
			out.WriteByte(';')
		}
		name, _, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(name) == "b" {
			out.WriteString(part[:strings.IndexByte(part, '=')+1])
			continue
		}
		out.WriteString(part)
	}
	return out.String()
}

// canonSimple is the "simple" header canonicalization (RFC 6376 section
// 3.4.1): the field as written.
func canonSimple(field string) string { return field }

// canonRelaxed is the "relaxed" header canonicalization (RFC 6376 section
// 3.4.2): name in lower case, value unfolded, runs of white space made one
// space, white space at its ends and around the colon removed.
func canonRelaxed(field string) string {
	name, value, _ := strings.Cut(field, ":")
	value = strings.ReplaceAll(value, "\r\n", "")
	value = strings.ReplaceAll(value, "\n", "")
	var b strings.Builder
	space := false
	for _, c := range []byte(value) {
		if c == ' ' || c == '\t' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(c)
	}
	return strings.ToLower(strings.TrimRight(name, " \t")) + ":" + b.String()
}
