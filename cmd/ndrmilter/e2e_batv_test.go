//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
)

// With BATV on (batv_keys) and deploy/postfix/batv.cf in Postfix, mail alice
// sends leaves with a prvs= envelope sender; its bounce comes back to that
// address, passes Postfix's recipient checks (only alice is a known
// recipient of example.org here), and is delivered to alice's plain address
// with "no; evidence=batv"; a bounce to a forged tag is delivered marked
// "yes".
func TestE2EBATVSignedMailAndItsBounce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "batv-1.key")
	if err := os.WriteFile(key, []byte("e2e-batv-secret-of-more-than-twenty-bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "ndrmilter.yaml")
	if err := os.WriteFile(conf, []byte("batv_keys: [\"1:"+key+"\"]\nbatv_sign_key: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snippet, err := postfixtest.ReadSettings(filepath.Join("..", "..", "deploy", "postfix", "batv.cf"))
	if err != nil {
		t.Fatalf("deploy/postfix/batv.cf: %v", err)
	}
	env := newE2EEnv(t, envConfig{MilterFlags: []string{"--config", conf},
		// Recipients of example.org are checked: only alice exists.
		Postfix: append([]string{"relay_recipient_maps = inline:{ {" + alice + " = ok} }"}, snippet...)})

	s := env.Postfix.Dial(t, internetIP)
	s.Login()
	id := uniqueID("batv-out")
	if err := s.Send(alice, []string{"bob@remote.test"}, aliceMessage(id, "bob@remote.test", "signed")); err != nil {
		t.Fatalf("send: %v", err)
	}
	s.Quit()
	out := env.Await("alice's message <"+id+">", withMessageID(id))
	local, _, _ := strings.Cut(alice, "@")
	if !strings.HasPrefix(out.From, "prvs=1") || !strings.HasSuffix(out.From, "="+local+"@"+postfixtest.Domain) || len(out.From) != len("prvs=1234abcdef=")+len(alice) {
		t.Fatalf("alice's message left with envelope sender %q, want prvs=1DDDSSSSSS=%s", out.From, alice)
	}
	t.Logf("envelope sender as it left: %s", out.From)

	forged := out.From[:len("prvs=1234")] + "000000=" + alice
	if forged == out.From {
		forged = out.From[:len("prvs=1234")] + "ffffff=" + alice
	}
	for _, tc := range []struct {
		name, rcpt, origID, failed, want string
	}{
		{"to the signed sender", out.From, id, "bob@remote.test", "no; evidence=batv"},
		// A message alice never sent, to someone she never wrote to: the
		// forged tag is the strongest evidence missed.
		{"to a forged tag", forged, uniqueID("never-sent"), "carol@remote.test", "yes; evidence=batv"},
	} {
		in := env.Postfix.Dial(t, internetIP)
		if err := in.Send("", []string{tc.rcpt}, strings.Replace(remoteDSN(tc.origID, tc.failed, "5.1.1", "550 5.1.1 user unknown", ""),
			"To: <"+alice+">", "To: <"+tc.rcpt+">", 1)); err != nil {
			t.Fatalf("%s: send the bounce to %s: %v", tc.name, tc.rcpt, err)
		}
		in.Quit()
		m := env.Await(tc.name+": the bounce", withMessageID("dsn."+tc.origID))
		if len(m.To) != 1 || m.To[0] != alice {
			t.Errorf("%s: delivered to %q, want the plain address %s only", tc.name, m.To, alice)
		}
		if log := env.Postfix.Log(); strings.Contains(log, "bad address syntax") || strings.Contains(log, "status=bounced") {
			t.Errorf("%s: Postfix bounced a recipient:\n%s", tc.name, env.Postfix.LogTail(20))
		}
		if bs := m.HeaderValues("X-NDR-Backscatter"); len(bs) != 1 || bs[0] != tc.want {
			t.Errorf("%s: X-NDR-Backscatter = %q, want %q", tc.name, bs, tc.want)
		}
	}
	t.Logf("--- postfix log ---\n%s", env.Postfix.LogTail(12))
}
