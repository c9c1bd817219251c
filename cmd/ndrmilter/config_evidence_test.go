package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config check refuses reject for automatic replies and names the line of
// every malformed BATV and DKIM item.
func TestConfigCheckEvidenceKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ndrmilter.yaml")
	conf := strings.Join([]string{
		"autoreply_backscatter_action: reject", // 1
		"batv_keys:",                           // 2
		"  - 1:/etc/ndrmilter/batv-1.key",      // 3
		"  - 12:/etc/ndrmilter/batv-12.key",    // 4: no such key number
		"batv_sign_key: 2",                     // 5: not one of the keys
		"dkim_keys: [example.org:s1]",          // 6: no file
		"receive_only: [noreply]",              // 7: not an address
		"batv_signing_since: soon",             // 8
	}, "\n") + "\n"
	os.WriteFile(path, []byte(conf), 0o600)
	_, errOut, rc := runConfigCheck(t, path)
	if rc != exitNo {
		t.Fatalf("exit %d, want 1; stderr:\n%s", rc, errOut)
	}
	for _, want := range []string{
		path + ":1: autoreply backscatter action reject: expected tag, quarantine or discard",
		path + ":4: batv_keys \"12:/etc/ndrmilter/batv-12.key\": expected ID:FILE",
		path + ":5: batv_sign_key 2: expected the number of one of batv_keys",
		path + ":6: dkim_keys \"example.org:s1\": expected DOMAIN:SELECTOR:FILE",
		path + ":7: receive_only \"noreply\": expected an address",
		path + ":8: batv_signing_since \"soon\": expected a date",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("config check output lacks %q:\n%s", want, errOut)
		}
	}
}

// The evidence keys become the front ends' frontend.Evidence, their key
// files read: a BATV signer that signs with the chosen key, and a DKIM key
// from its DNS record.
func TestEvidenceFromTheConfiguration(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "batv-4.key")
	os.WriteFile(secret, []byte("c2VjcmV0IHNlY3JldCBzZWNyZXQgc2VjcmV0Cg==\n"), 0o600)
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	rec := filepath.Join(dir, "dkim.txt")
	os.WriteFile(rec, []byte(`"v=DKIM1; k=ed25519; " "p=`+base64.StdEncoding.EncodeToString(pub)+`"`+"\n"), 0o644)
	c := defaultServeConfig()
	c.BATVKeys, c.BATVSignKey = []string{"4:" + secret}, 4
	c.BATVExemptDestinations = []string{"@Lists.Example"}
	c.DKIMKeys = []string{"Example.org:S1:" + rec}
	c.ReceiveOnly = []string{"NoReply@Example.org"}
	ev, err := c.evidence()
	if err != nil {
		t.Fatal(err)
	}
	if ev.BATV == nil || !strings.HasPrefix(ev.BATV.Signer.Sign("a@example.org"), "prvs=4") {
		t.Fatalf("BATV %+v: want a signer with key 4", ev.BATV)
	}
	if len(ev.DKIM) != 1 || ev.DKIM[0].Domain != "example.org" || ev.DKIM[0].Selector != "s1" {
		t.Fatalf("DKIM keys %+v", ev.DKIM)
	}
	if strings.Join(ev.ReceiveOnly, ",") != "noreply@example.org" || strings.Join(ev.BATV.ExemptDestinations, ",") != "@lists.example" {
		t.Fatalf("receive-only %q, exempt destinations %q: want them normalized", ev.ReceiveOnly, ev.BATV.ExemptDestinations)
	}
	// A secret too short is refused.
	os.WriteFile(secret, []byte("short\n"), 0o600)
	if _, err := c.evidence(); err == nil || !strings.Contains(err.Error(), "at least 20") {
		t.Fatalf("a 5-byte secret: %v, want an error saying at least 20 bytes", err)
	}
}
