package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// update rewrites the golden files: go test ./cmd/ndrmilter -run 'Golden' -update
// Review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("%s differs at line %d:\n got: %s\nwant: %s\n(run with -update after review)", path, i+1, g, w)
				return
			}
		}
	}
}

// fixtures returns the bounce fixtures, written for these tests (one per
// format family: Postfix, Exchange Online, Sendmail, Exim, qmail, an
// auto-reply, an ARF report and an ordinary message).
func fixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "bounces", "*.eml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	sort.Strings(files)
	return files
}

func runExplainArgs(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := explainMain(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), rc
}

func TestExplainGoldenText(t *testing.T) {
	for _, f := range fixtures(t) {
		out, errOut, rc := runExplainArgs(t, "", f)
		if rc != 0 {
			t.Errorf("%s: exit %d: %s", f, rc, errOut)
		}
		checkGolden(t, strings.TrimSuffix(filepath.Base(f), ".eml")+".txt", []byte(out))
	}
}

func TestExplainGoldenJSON(t *testing.T) {
	files := fixtures(t)
	out, errOut, rc := runExplainArgs(t, "", append([]string{"--json"}, files...)...)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	checkGolden(t, "explain.jsonl", []byte(out))
}

// explainRecords runs explain --json and decodes its lines.
func explainRecords(t *testing.T, files ...string) []map[string]any {
	t.Helper()
	out, errOut, rc := runExplainArgs(t, "", append([]string{"--json"}, files...)...)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		recs = append(recs, m)
	}
	return recs
}

// TestExplainJSONKeys checks the keys other tools depend on (issue
// "Bounce understanding"): present on every line, with their types.
func TestExplainJSONKeys(t *testing.T) {
	strKeys := []string{"file", "kind", "recipient", "status", "reply_code", "reason", "owner", "explanation",
		"fix", "remote_mta", "reporting_mta", "diagnostic", "original_message_id", "original_from", "original_subject",
		"rule", "matched", "status_source"}
	for _, rec := range explainRecords(t, fixtures(t)...) {
		for _, k := range strKeys {
			if _, ok := rec[k].(string); !ok {
				t.Errorf("%v: key %q missing or not a string", rec["file"], k)
			}
		}
		if _, ok := rec["facts"].(map[string]any); !ok {
			t.Errorf("%v: key facts missing or not an object", rec["file"])
		}
		for _, k := range []string{"hard_bounce", "permanent"} {
			if _, ok := rec[k].(bool); !ok {
				t.Errorf("%v: key %q missing or not a bool", rec["file"], k)
			}
		}
		if e := rec["explanation"].(string); e != "" {
			for i := 0; i < len(e); i++ {
				if e[i] < ' ' || e[i] > '~' {
					t.Errorf("%v: explanation not plain ASCII: %q", rec["file"], e)
					break
				}
			}
		}
	}
}

// TestExplainReadings asserts what each fixture must read as, independently
// of the golden files' wording.
func TestExplainReadings(t *testing.T) {
	type want struct {
		kind, recipient, status, reason, owner string
		hard, permanent                        bool
	}
	tests := map[string]want{
		"postfix-userunknown.eml":       {"bounce", "bob@example.com", "5.1.1", "userunknown", "sender", true, true},
		"exchange-online-dmarc.eml":     {"bounce", "carol@example.com", "5.7.509", "authfailure", "sender-admin", false, true},
		"exchange-submission-quota.eml": {"bounce", "erin@example.com", "5.2.2", "speeding", "sender-admin", false, true},
		"sendmail-delay.eml":            {"delay", "grace@example.net", "4.4.1", "expired", "recipient-admin", false, false}, // the connection to the recipient's server times out: their admin acts if it persists (rules/delay.go)
		"exim-blocked.eml":              {"bounce", "ivy@example.com", "5.7.1", "blocked", "sender-admin", false, true},
		// The sender's own smarthost (a host of the sender's domain) refused to relay (rules/relayside.go).
		"exim-relay-own-smarthost.eml": {"bounce", "kiln@supplies-north.example", "5.0.909", "norelaying", "sender-admin", false, true},
		"qmail-mailboxfull.eml":        {"bounce", "kim@example.net", "5.2.2", "mailboxfull", "recipient", false, true},
		"autoreply.eml":                {"autoreply", "", "", "vacation", "none", false, false},
		"arf-abuse.eml":                {"feedback", "nina@example.com", "", "feedback", "sender-admin", false, false},
		"not-a-bounce.eml":             {"not-bounce", "", "", "", "none", false, false},
	}
	for name, w := range tests {
		recs := explainRecords(t, filepath.Join("testdata", "bounces", name))
		if len(recs) != 1 {
			t.Errorf("%s: %d records, want 1", name, len(recs))
			continue
		}
		r := recs[0]
		if name == "autoreply.eml" {
			w.recipient, _ = r["recipient"].(string) // whoever the parser names: not a bounce either way
		}
		got := want{r["kind"].(string), r["recipient"].(string), r["status"].(string), r["reason"].(string),
			r["owner"].(string), r["hard_bounce"].(bool), r["permanent"].(bool)}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}

func TestExplainStdinAndRulesFlag(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "bounces", "postfix-userunknown.eml"))
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "local.yaml")
	if err := os.WriteFile(local, []byte(`rules:
  - id: our-mx-parks-accounts
    when: {status: [5.1.1], mta: [mx1.example.com]}
    then: {reason: suspend, owner: recipient-admin, summary: parked account}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, rc := runExplainArgs(t, string(raw), "--json", "--rules", local, "-")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if rec["file"] != "-" || rec["reason"] != "suspend" || rec["rule"] != "our-mx-parks-accounts" || rec["hard_bounce"] != false {
		t.Errorf("local rule from --rules not applied to stdin: %v", rec)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n- id: x\n  when: {status: [5.1.1]}\n  then: {reason: gone}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, rc = runExplainArgs(t, "", "--rules", bad, "-")
	if rc != exitConfig || !strings.Contains(errOut, bad) || !strings.Contains(errOut, `reason "gone"`) {
		t.Errorf("bad rules file: exit %d, stderr %q", rc, errOut)
	}
}

func TestExplainMissingFile(t *testing.T) {
	_, errOut, rc := runExplainArgs(t, "", filepath.Join(t.TempDir(), "nope.eml"))
	if rc != 1 || !strings.Contains(errOut, "nope.eml") {
		t.Errorf("exit %d, stderr %q", rc, errOut)
	}
}

// TestExplainGoldenParserFixtures reads the parser's own fixtures (dsn/testdata:
// Postfix, Sendmail, Exim, qmail, Courier, OpenSMTPD, Exchange 2003 and
// Office 365, Gmail, Yahoo, Amazon SES, Notes, MessagingServer, RFC 6533,
// ISO-2022-JP, HTML-only, ARF, MDN, auto-reply), end to end.
func TestExplainGoldenParserFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "dsn", "testdata", "*.eml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parser fixtures in ../../dsn/testdata/*.eml (they are committed): %v", err)
	}
	sort.Strings(files)
	out, errOut, rc := runExplainArgs(t, "", append([]string{"--json"}, files...)...)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	checkGolden(t, "dsn-fixtures.jsonl", []byte(out))
	out, errOut, rc = runExplainArgs(t, "", files...)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	checkGolden(t, "dsn-fixtures.txt", []byte(out))
}

// TestExplainSaysWhy: every record names the rule that decided it and what
// it matched, with the facts the server named; --why lists every rule that
// matches, the deciding one first, with its file and line, local rules
// before the built-in ones.
func TestExplainSaysWhy(t *testing.T) {
	blocked := filepath.Join("testdata", "bounces", "exim-blocked.eml")
	rec := explainRecords(t, blocked)[0]
	facts, _ := rec["facts"].(map[string]any)
	if rec["rule"] != "blocked-text" || rec["matched"] != "blocked using" || rec["status_source"] != "server" ||
		facts["list"] != "dnsbl.example.net" || facts["ip"] != "203.0.113.5" {
		t.Errorf("record: rule %v matched %v status_source %v facts %v", rec["rule"], rec["matched"], rec["status_source"], facts)
	}
	if !strings.Contains(rec["explanation"].(string), "dnsbl.example.net") {
		t.Errorf("explanation drops the block list the server named: %q", rec["explanation"])
	}

	local := filepath.Join(t.TempDir(), "local.yaml")
	if err := os.WriteFile(local, []byte("rules:\n  - id: our-dnsbl\n    when: {text: [dnsbl.example.net]}\n    then: {reason: blocked, owner: sender-admin}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, rc := runExplainArgs(t, "", "--why", "--rules", local, blocked)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	first := regexp.MustCompile(`(?m)^    \* 1\. our-dnsbl \(` + regexp.QuoteMeta(local) + `:2\) matched "dnsbl.example.net" -> blocked$`)
	second := regexp.MustCompile(`(?m)^      2\. blocked-text \(rules\.yaml \(built-in\):[1-9][0-9]*\) matched "blocked using" -> blocked$`)
	if !first.MatchString(out) || !second.MatchString(out) {
		t.Errorf("--why does not list the local rule first and the built-in one after it, with files and lines:\n%s", out)
	}
	if !strings.Contains(out, `Fact list = "dnsbl.example.net", from blocklist-used (rules.yaml (built-in):`) {
		t.Errorf("--why does not say where the block list came from:\n%s", out)
	}

	out, errOut, rc = runExplainArgs(t, "", "--json", "--why", blocked)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	var withWhy struct {
		Rule string `json:"rule"`
		Why  struct {
			Matches []struct {
				Rule, File string
				Line       int
				Decided    bool
			} `json:"matches"`
		} `json:"why"`
	}
	if err := json.Unmarshal([]byte(out), &withWhy); err != nil {
		t.Fatal(err)
	}
	m := withWhy.Why.Matches
	if len(m) < 2 || m[0].Rule != withWhy.Rule || !m[0].Decided || m[1].Decided || m[0].File != "rules.yaml (built-in)" || m[0].Line == 0 {
		t.Errorf("--json --why matches %+v, want the deciding rule first, with its file and line", m)
	}
}

// qmailNoMailbox is a qmail bounce: no enhanced status code at all.
const qmailNoMailbox = `From: MAILER-DAEMON@mail.example.org
To: ann@example.org
Subject: failure notice
Date: Mon, 4 May 2026 10:00:00 +0000

Hi. This is the qmail-send program at mail.example.org.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<zed@example.net>:
192.0.2.8 does not like recipient.
Remote host said: 550 sorry, no mailbox here by that name
Giving up on 192.0.2.8.
`

// TestExplainShowsOnlyCodesTheServerGave: a status made up from the reason
// (Sisimai's pseudo-codes, 5.0.9xx) stays in JSON for compatibility, marked
// inferred, and is never shown to people as the server's.
func TestExplainShowsOnlyCodesTheServerGave(t *testing.T) {
	out, errOut, rc := runExplainArgs(t, qmailNoMailbox, "--json", "-")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	status, _ := rec["status"].(string)
	if !strings.HasPrefix(status, "5.0.9") || rec["status_source"] != "inferred" {
		t.Fatalf("status %q source %v, want a pseudo-code marked inferred", status, rec["status_source"])
	}
	text, errOut, rc := runExplainArgs(t, qmailNoMailbox, "-")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	if strings.Contains(text, status) || !strings.Contains(text, "Enhanced status:   none given") {
		t.Errorf("text output shows the inferred %s as the server's, or not \"none given\":\n%s", status, text)
	}
}

// TestExplainTellsHowToSpotBackscatter: explain reads no record of sent
// mail, so a bounce or a delay says it did not check whether the message
// left here and how the reader tells backscatter; a message that is no
// report (an auto-reply) says nothing of it.
func TestExplainTellsHowToSpotBackscatter(t *testing.T) {
	bounce := "From: MAILER-DAEMON@mx.example.org\nTo: a@example.com\nSubject: Undeliverable\n\n" +
		"Your message could not be delivered to b@example.net: 550 5.1.1 user unknown.\n"
	out, _, rc := runExplainArgs(t, bounce, "-")
	if rc != 0 || !strings.Contains(out, "Sent by you?") || !strings.Contains(out, "backscatter") {
		t.Errorf("bounce: rc %d, output without the backscatter note:\n%s", rc, out)
	}
	reply := "From: b@example.net\nTo: a@example.com\nSubject: Out of office\nAuto-Submitted: auto-replied\n\n" +
		"I am out of the office until Monday.\n"
	out, _, rc = runExplainArgs(t, reply, "-")
	if rc != 0 || strings.Contains(out, "backscatter") {
		t.Errorf("auto-reply: rc %d, output with the backscatter note:\n%s", rc, out)
	}
}

// TestIdenticalRecipientsAreToldOnce: recipients refused for the same cause
// in the same words, but for their address, are read once and listed under
// the first; a recipient refused for another cause keeps its own reading,
// and JSON keeps a record per recipient.
func TestIdenticalRecipientsAreToldOnce(t *testing.T) {
	raw := string(fixture(t, "postfix-many-userunknown.eml"))
	out, errOut, rc := runCLI(t, raw, "explain", "-")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	if n := strings.Count(out, "Recipient:"); n != 2 {
		t.Errorf("%d recipient blocks, want 2 (one per cause):\n%s", n, out)
	}
	if !strings.Contains(out, "Recipient:        ann@example.net") || !strings.Contains(out, "Recipient:        cleo@example.com") {
		t.Errorf("want blocks for ann (user unknown) and cleo (mailbox full):\n%s", out)
	}
	if !strings.Contains(out, "The same for 2 more recipients:\n    bob@example.net\n    dan@example.net\n") {
		t.Errorf("bob and dan are not listed under ann's reading:\n%s", out)
	}
	if strings.Count(out, "does not exist") != 1 {
		t.Errorf("the user-unknown reading is not told exactly once:\n%s", out)
	}
	js, _, _ := runCLI(t, raw, "explain", "--json", "-")
	if recs := jsonRecords(t, js); len(recs) != 4 {
		t.Errorf("%d JSON records, want one per recipient (4)", len(recs))
	}
}
