package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func runCodeArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := codeMain(args, &out, &errOut)
	return out.String(), errOut.String(), rc
}

var codeCases = []struct {
	golden string
	args   []string
}{
	{"code-5.7.509", []string{"5.7.509"}},
	{"code-5.7.26-reply", []string{"550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy"}},
	{"code-5.7.640", []string{"5.7.640"}},
	{"code-4.4.7", []string{"4.4.7"}},
}

func TestCodeGolden(t *testing.T) {
	for _, tc := range codeCases {
		out, errOut, rc := runCodeArgs(t, tc.args...)
		if rc != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, rc, errOut)
		}
		checkGolden(t, tc.golden+".txt", []byte(out))
		out, errOut, rc = runCodeArgs(t, append(tc.args, "--json")...)
		if rc != 0 {
			t.Fatalf("%v --json: exit %d: %s", tc.args, rc, errOut)
		}
		checkGolden(t, tc.golden+".json", []byte(out))
	}
}

// TestCodeReadings asserts the meaning of each looked-up code and the keys
// of the JSON form (issue "Bounce understanding": code, status, reply_code,
// reason, permanent, owner, explanation, fix).
func TestCodeReadings(t *testing.T) {
	tests := []struct {
		args                                 []string
		status, reply, reason, owner, phrase string
		permanent                            bool
	}{
		{[]string{"5.7.509"}, "5.7.509", "", "authfailure", "sender-admin", "DMARC", true},
		{[]string{"550", "5.7.26", "Unauthenticated", "email", "from", "example.com", "is", "not", "accepted", "due", "to", "domain's", "DMARC", "policy"},
			"5.7.26", "550", "authfailure", "sender-admin", "DMARC", true},
		{[]string{"--json", "5.7.640"}, "5.7.640", "", "blocked", "sender-admin", "banned", true},
		{[]string{"4.4.7"}, "4.4.7", "", "expired", "recipient-admin", "expired", false},
		{[]string{"5.7.650"}, "5.7.650", "", "securityerror", "unknown", "policy", true},
		{[]string{"5.2.2"}, "5.2.2", "", "mailboxfull", "recipient", "full", true},
		{[]string{"554 5.2.2 Submission quota exceeded"}, "5.2.2", "554", "speeding", "sender-admin", "quota", true},
	}
	for _, tc := range tests {
		args := tc.args
		if args[0] != "--json" {
			args = append(args, "--json")
		}
		out, errOut, rc := runCodeArgs(t, args...)
		if rc != 0 {
			t.Fatalf("%v: exit %d: %s", args, rc, errOut)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %v: %q", args, err, out)
		}
		for _, k := range []string{"code", "status", "reply_code", "reason", "owner", "explanation", "fix"} {
			if _, ok := m[k].(string); !ok {
				t.Errorf("%v: key %q missing or not a string", args, k)
			}
		}
		if m["status"] != tc.status || m["reply_code"] != tc.reply || m["reason"] != tc.reason || m["owner"] != tc.owner || m["permanent"] != tc.permanent {
			t.Errorf("%v: got %v", args, m)
		}
		if !strings.Contains(m["explanation"].(string)+m["fix"].(string)+m["reason"].(string), tc.phrase) {
			t.Errorf("%v: explanation/fix do not mention %q: %v", args, tc.phrase, m)
		}
	}
}

func TestCodeUsage(t *testing.T) {
	if _, _, rc := runCodeArgs(t); rc != 2 {
		t.Errorf("no code: exit %d, want 2", rc)
	}
}

// TestCodeSuccessSaysNothingFailed: a 2.x.x code is no failure, so the owner
// line says nothing failed rather than "wait for the retries".
func TestCodeSuccessSaysNothingFailed(t *testing.T) {
	for _, code := range []string{"2.0.0", "2.1.5", "250 2.6.0 Ok"} {
		out, errOut, rc := runCodeArgs(t, code)
		if rc != 0 {
			t.Fatalf("%s: exit %d: %s", code, rc, errOut)
		}
		if !strings.Contains(out, "nobody: nothing failed") || strings.Contains(out, "retries") {
			t.Errorf("%s: owner line should say nothing failed:\n%s", code, out)
		}
	}
}
