package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/explanation"
)

// runCLI runs the command line as main would, and returns stdout, stderr
// and the exit status.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := runMain(args, cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut})
	return out.String(), errOut.String(), rc
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "bounces", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// jsonRecords decodes explain --json output.
func jsonRecords(t *testing.T, out string) []explainRecord {
	t.Helper()
	var recs []explainRecord
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var r explainRecord
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("bad JSON output: %v\n%s", err, out)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestExplainFlagsAfterTheFile(t *testing.T) {
	f := filepath.Join("testdata", "bounces", "postfix-userunknown.eml")
	before, _, rc1 := runCLI(t, "", "explain", "--json", f)
	after, errOut, rc2 := runCLI(t, "", "explain", f, "--json")
	if rc1 != 0 || rc2 != 0 {
		t.Fatalf("exit %d and %d: %s", rc1, rc2, errOut)
	}
	if before != after || !strings.HasPrefix(after, `{"file":`) {
		t.Fatalf("explain FILE --json differs from explain --json FILE:\n%s\n%s", after, before)
	}
	// After "--", a name that looks like a flag is a file.
	_, errOut, rc := runCLI(t, "", "explain", "--", "--json")
	if rc != exitNo || !strings.Contains(errOut, "--json") {
		t.Fatalf("explain -- --json: exit %d, stderr %q; want the file --json not found", rc, errOut)
	}
	// "--" as the value of a flag does not end the flags.
	if _, errOut, rc := runCLI(t, "", "explain", "--rules", "--", f); rc != exitConfig || !strings.Contains(errOut, "--") {
		t.Fatalf("explain --rules -- FILE: exit %d, stderr %q; want the rules file -- rejected", rc, errOut)
	}
}

func TestExplainDirectoryReadsEachRegularFileInNameOrder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.eml"), fixture(t, "postfix-userunknown.eml"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.eml"), fixture(t, "exim-blocked.eml"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "c.eml"), fixture(t, "qmail-mailboxfull.eml"), 0o644)
	out, errOut, rc := runCLI(t, "", "explain", dir, "--json")
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	recs := jsonRecords(t, out)
	var got []string
	for _, r := range recs {
		got = append(got, filepath.Base(r.File)+" "+r.Recipient)
	}
	want := []string{"a.eml ivy@example.com", "b.eml bob@example.com"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("records %v, want %v (subdirectories not entered)", got, want)
	}

	empty := t.TempDir()
	_, errOut, rc = runCLI(t, "", "explain", empty)
	if rc != exitNo || !strings.Contains(errOut, "no message") {
		t.Fatalf("empty directory: exit %d, stderr %q", rc, errOut)
	}
}

func TestExplainMaildirReadsCurAndNew(t *testing.T) {
	md := t.TempDir()
	for _, sub := range []string{"cur", "new", "tmp"} {
		os.Mkdir(filepath.Join(md, sub), 0o700)
	}
	os.WriteFile(filepath.Join(md, "new", "1700000002.M2P1.host"), fixture(t, "postfix-userunknown.eml"), 0o600)
	os.WriteFile(filepath.Join(md, "cur", "1700000001.M1P1.host:2,S"), fixture(t, "exim-blocked.eml"), 0o600)
	// A message still being delivered: never read.
	os.WriteFile(filepath.Join(md, "tmp", "1700000003.M3P1.host"), fixture(t, "qmail-mailboxfull.eml"), 0o600)
	os.WriteFile(filepath.Join(md, "dovecot-uidlist"), []byte("3 V1 N4\n"), 0o600)
	out, errOut, rc := runCLI(t, "", "explain", "--json", md)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	var got []string
	for _, r := range jsonRecords(t, out) {
		got = append(got, filepath.Base(filepath.Dir(r.File))+" "+r.Recipient)
	}
	if want := "cur ivy@example.com,new bob@example.com"; strings.Join(got, ",") != want {
		t.Fatalf("Maildir records %v, want %s (delivery order, tmp/ left out)", got, want)
	}
}

// mboxOf writes messages as an mbox file (RFC 4155), quoting body lines
// that start with "From " as mboxrd writers do.
func mboxOf(msgs ...[]byte) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		b.WriteString("From MAILER-DAEMON Thu Jan  4 10:00:00 2024\n")
		for _, line := range strings.SplitAfter(string(m), "\n") {
			if isQuotedFrom([]byte(line)) || strings.HasPrefix(line, "From ") {
				b.WriteString(">")
			}
			b.WriteString(line)
		}
		if !bytes.HasSuffix(m, []byte("\n")) {
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

func TestExplainMboxOfTwoBouncesGivesTwoReports(t *testing.T) {
	box := mboxOf(fixture(t, "postfix-userunknown.eml"), fixture(t, "exim-blocked.eml"))
	path := filepath.Join(t.TempDir(), "bounces.mbox")
	os.WriteFile(path, box, 0o600)
	for _, tc := range []struct {
		file string
		args []string
	}{{path, []string{"explain", path, "--json"}}, {"-", []string{"explain", "--json", "-"}}} {
		args := tc.args
		out, errOut, rc := runCLI(t, string(box), args...)
		if rc != 0 {
			t.Fatalf("%v: exit %d: %s", args, rc, errOut)
		}
		recs := jsonRecords(t, out)
		if len(recs) != 2 {
			t.Fatalf("%v: %d records, want 2:\n%s", args, len(recs), out)
		}
		for i, want := range []struct{ recipient, status string }{{"bob@example.com", "5.1.1"}, {"ivy@example.com", "5.7.1"}} {
			if recs[i].Recipient != want.recipient || recs[i].Status != want.status || recs[i].Message != i+1 || recs[i].File != tc.file {
				t.Errorf("%v: record %d = %s %s message %d file %s, want %s %s message %d", args, i, recs[i].Recipient, recs[i].Status,
					recs[i].Message, recs[i].File, want.recipient, want.status, i+1)
			}
		}
	}
	// The text form names each message FILE#N.
	out, _, _ := runCLI(t, "", "explain", path)
	if !strings.Contains(out, path+"#1: bounce") || !strings.Contains(out, path+"#2: bounce") {
		t.Fatalf("text output does not name the messages %s#1 and #2:\n%s", path, out)
	}
	// Each message reads exactly as the same message in a file of its own.
	single, _, _ := runCLI(t, "", "explain", filepath.Join("testdata", "bounces", "exim-blocked.eml"))
	_, second, _ := strings.Cut(out, path+"#2:")
	_, alone, _ := strings.Cut(single, "exim-blocked.eml:")
	if second != alone {
		t.Fatalf("the second mbox message reads differently from the file:\n%s\n---\n%s", second, alone)
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

func TestMboxReaderSplitsAndUnquotes(t *testing.T) {
	box := "From a@example.org Thu Jan  4 10:00:00 2024\r\nSubject: one\r\n\r\n>From the start\r\n>>From deeper\r\nFrom here, not a separator\r\n\r\n" +
		"From b@example.org Thu Jan  4 10:00:01 2024\nSubject: two\n\nbody\n"
	mr := newMboxReader(bufioReader(box), 1<<20)
	var msgs []string
	for {
		m, err := mr.Next()
		if err != nil {
			break
		}
		msgs = append(msgs, string(m))
	}
	want := []string{
		"Subject: one\r\n\r\nFrom the start\r\n>From deeper\r\nFrom here, not a separator\r\n",
		"Subject: two\n\nbody\n",
	}
	if len(msgs) != 2 || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Fatalf("messages %q\nwant %q", msgs, want)
	}
	// The cap keeps the head of a long message and still finds the next one.
	long := "From x\n" + strings.Repeat("a", 100) + "\n\nFrom y\nSubject: next\n"
	mr = newMboxReader(bufioReader(long), 14)
	first, err1 := mr.Next()
	second, err2 := mr.Next()
	if err1 != nil || err2 != nil || string(first) != strings.Repeat("a", 14) || string(second) != "Subject: next\n" {
		t.Fatalf("capped: %q %v, %q %v", first, err1, second, err2)
	}
}

func FuzzMboxReader(f *testing.F) {
	f.Add([]byte("From x\nSubject: a\n\n>From b\n\nFrom y\n\n"))
	f.Add([]byte("From \n\n\nFrom \r\n\r\nFrom"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 64
		mr := newMboxReader(bufioReader(string(data)), max)
		for i := 0; ; i++ {
			m, err := mr.Next()
			if err != nil {
				return
			}
			if len(m) > max {
				t.Fatalf("message of %d bytes over the cap %d", len(m), max)
			}
			if i > len(data) {
				t.Fatalf("more messages than bytes")
			}
		}
	})
}

func TestCodeRefusesWhatIsNotACode(t *testing.T) {
	for _, arg := range []string{"hello", "5.7", "600", "1.2.3", "hello 550 5.1.1", "55", "5.7.5090"} {
		out, errOut, rc := runCLI(t, "", "code", arg)
		if rc != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "not a status code or a reply") {
			t.Errorf("code %q: exit %d, stdout %q, stderr %q; want exit 2 and one line", arg, rc, out, errOut)
		}
	}
	for _, arg := range []string{"5.7.509", "550", "421-4.7.0 try again later", "Diagnostic-Code: smtp; 550 5.1.1 user unknown", "5.1.1 user unknown"} {
		if _, errOut, rc := runCLI(t, "", "code", arg); rc != 0 {
			t.Errorf("code %q: exit %d: %s", arg, rc, errOut)
		}
	}
	// The prefix is only what the line is pasted with: the reading is the reply's.
	a, _, _ := runCLI(t, "", "code", "--json", "Diagnostic-Code: smtp; 550 5.1.1 user unknown")
	b, _, _ := runCLI(t, "", "code", "--json", "550 5.1.1 user unknown")
	var ra, rb explanation.CodeRecord
	json.Unmarshal([]byte(a), &ra)
	json.Unmarshal([]byte(b), &rb)
	ra.Code, rb.Code = "", ""
	if ra != rb || ra.Status != "5.1.1" {
		t.Errorf("with the Diagnostic-Code prefix %+v, without %+v", ra, rb)
	}
}

// helpCommands are command lines that ask for help, one per command and
// subcommand.
func helpCommands() [][]string {
	var out [][]string
	for _, sc := range commands {
		out = append(out, append(sc.words(), "--help"), append(sc.words(), "-h"))
	}
	for _, sub := range ledgerSubcommands() {
		out = append(out, []string{"ledger", sub, "--help"}, []string{"ledger", sub, "--json", "-h"})
	}
	return append(out, []string{"--help"}, []string{"-h"}, []string{"help"}, []string{"help", "serve"}, []string{"help", "config"},
		[]string{"config", "--help"})
}

func TestHelpExitsZeroWithTheCommandsOwnUsage(t *testing.T) {
	for _, args := range helpCommands() {
		out, errOut, rc := runCLI(t, "", args...)
		if rc != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 0 and nothing on stderr", args, rc, errOut)
			continue
		}
		want := "ndrmilter "
		if sc := findCommandByFirstWord(args[0]); sc != nil {
			want += sc.name
		} else if len(args) == 2 && args[0] == "help" {
			want += findCommandByFirstWord(args[1]).name
		}
		if !strings.HasPrefix(out, "usage:") || !strings.Contains(out, want) || !strings.Contains(out, "exit status:") {
			t.Errorf("%v: usage lacks %q or the exit status table:\n%s", args, want, out)
		}
	}
}

func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	badRules := filepath.Join(dir, "bad-rules.yaml")
	os.WriteFile(badRules, []byte("rules: [{id: x, when: {status: [5.1.1]}, then: {reason: gone}}]\n"), 0o600)
	badConfig := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badConfig, []byte("listen: tcp:1.2.3.4:5\n"), 0o600)
	fixtureFile := filepath.Join("testdata", "bounces", "postfix-userunknown.eml")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{[]string{"config"}, exitUsage},
		{[]string{"config", "check", "--config", badConfig, "extra"}, exitUsage},
		{[]string{"explain"}, exitUsage},
		{[]string{"explain", "--no-such-flag", fixtureFile}, exitUsage},
		{[]string{"explain", fixtureFile}, exitOK},
		{[]string{"explain", filepath.Join(dir, "missing.eml")}, exitNo},
		{[]string{"explain", fixtureFile, "--rules", badRules}, exitConfig},
		{[]string{"code"}, exitUsage},
		{[]string{"code", "hello"}, exitUsage},
		{[]string{"code", "5.1.1", "--rules", badRules}, exitConfig},
		{[]string{"code", "5.1.1"}, exitOK},
		{[]string{"config", "check", "--config", badConfig}, exitNo},
		{[]string{"config", "check", "--config", filepath.Join("..", "..", "deploy", "ndrmilter.yaml")}, exitOK},
		{[]string{"serve", "--config", badConfig}, exitConfig},
		{[]string{"serve", "stray"}, exitUsage},
		{[]string{"version"}, exitOK},
		{[]string{"version", "extra"}, exitUsage},
		{[]string{"--version"}, exitOK},
	} {
		if _, errOut, rc := runCLI(t, "", tc.args...); rc != tc.want {
			t.Errorf("ndrmilter %s: exit %d, want %d (stderr %q)", strings.Join(tc.args, " "), rc, tc.want, errOut)
		}
	}
}

// versionPattern is the documented form of "ndrmilter version".
var versionPattern = regexp.MustCompile(`^ndrmilter (\S+) \(commit (\S+), go (go\S+), rules ([0-9a-f]{12})\)\n$`)

func TestVersionLine(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, rc := runCLI(t, "", args...)
		m := versionPattern.FindStringSubmatch(out)
		if rc != 0 || m == nil || m[3] != runtime.Version() {
			t.Fatalf("%v: exit %d, %q: not %s", args, rc, out, versionPattern)
		}
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// Stamped at build time, as the Makefile does.
	bin := filepath.Join(t.TempDir(), "ndrmilter")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=1.2.3 -X main.commit=abcdef123456", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	m := versionPattern.FindStringSubmatch(string(out))
	if err != nil || m == nil || m[1] != "1.2.3" || m[2] != "abcdef123456" {
		t.Fatalf("stamped binary says %q (%v)", out, err)
	}
}
