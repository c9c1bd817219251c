package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runConfigCheck(t *testing.T, path string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	rc := configCheckMain([]string{"--config", path}, &out, &errOut)
	return out.String(), errOut.String(), rc
}

func TestConfigCheckNamesFileAndLineOfEveryProblem(t *testing.T) {
	dir := t.TempDir()
	rulesOK := filepath.Join(dir, "local.yaml")
	os.WriteFile(rulesOK, []byte("rules: []\n"), 0o600)
	path := filepath.Join(dir, "ndrmilter.yaml")
	conf := strings.Join([]string{
		"listen: inet:127.0.0.1:10891",              // 1
		"backscatter_acton: reject",                 // 2: unknown key
		"trusted_networks:",                         // 3
		"  - 10.0.0.0/8",                            // 4
		"  - 10.0.0.300/24",                         // 5: bad network
		"retention: forever",                        // 6: bad duration
		"domains: [example.org, alice@example.org]", // 7: an address
		"rules:",         // 8
		"  - " + rulesOK, // 9
		"  - " + filepath.Join(dir, "missing.yaml"),    // 10: missing rules file
		"ledger: redis://127.0.0.1:6379/0?colour=blue", // 11: unknown URL parameter
		"metrics_listen: 127.0.0.1",                    // 12: no port (the former name of http_listen)
		"parse_cap: lots",                              // 13: not a number
		"listen: inet:127.0.0.1:10892",                 // 14: given twice
		"socket_mode: \"0999\"",                        // 15: not octal
		"log_level: loud",                              // 16
		"backscatter_action: bounce",                   // 17
		"data: " + rulesOK,                             // 18: a file, not a directory (only checked for bbolt: see below)
	}, "\n") + "\n"
	os.WriteFile(path, []byte(conf), 0o600)
	out, errOut, rc := runConfigCheck(t, path)
	if rc != exitNo || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit 1 and nothing on stdout", rc, out)
	}
	// Type errors stop before the values are checked: the file is fixed in
	// two rounds at most.
	for _, want := range []struct {
		line int
		text string
	}{
		{2, `unknown key "backscatter_acton" (did you mean backscatter_action?)`},
		{6, `retention: duration "forever"`},
		{13, `parse_cap: "lots": expected a whole number`},
		{14, `listen: given twice (first at line 1)`},
	} {
		prefix := fmt.Sprintf("%s:%d: ", path, want.line)
		if !strings.Contains(errOut, prefix+want.text) {
			t.Errorf("stderr lacks %q:\n%s", prefix+want.text, errOut)
		}
	}
	if n := strings.Count(errOut, "\n"); n != 4 {
		t.Errorf("%d lines on stderr, want one per problem (4):\n%s", n, errOut)
	}

	// Round two: the same file with the type errors fixed.
	conf = strings.Replace(conf, "backscatter_acton: reject", "# fixed", 1)
	conf = strings.Replace(conf, "retention: forever", "retention: 7d", 1)
	conf = strings.Replace(conf, "parse_cap: lots", "parse_cap: 1000", 1)
	conf = strings.Replace(conf, "listen: inet:127.0.0.1:10892", "# fixed", 1)
	os.WriteFile(path, []byte(conf), 0o600)
	_, errOut, rc = runConfigCheck(t, path)
	if rc != exitNo {
		t.Fatalf("round two: exit %d, want 1", rc)
	}
	for _, want := range []struct {
		line int
		text string
	}{
		{5, `trusted_networks: "10.0.0.300/24" is not a network`},
		{7, `domains: "alice@example.org" is not a domain name (an address, not a domain)`},
		{10, `rules: open ` + filepath.Join(dir, "missing.yaml") + `: no such file or directory`},
		{11, `ledger: redis URL "redis://127.0.0.1:6379/0?colour=blue": unknown parameter "colour"`},
		{12, `http_listen "127.0.0.1": expected HOST:PORT`},
		{15, `socket_mode "0999": expected an octal mode`},
		{16, `log_level "loud": expected debug, info, warn or error`},
		{17, `backscatter action "bounce": expected tag, quarantine, reject or discard`},
	} {
		prefix := fmt.Sprintf("%s:%d: ", path, want.line)
		if !strings.Contains(errOut, prefix+want.text) {
			t.Errorf("round two: stderr lacks %q:\n%s", prefix+want.text, errOut)
		}
	}
	if n := strings.Count(errOut, "\n"); n != 8 {
		t.Errorf("round two: %d lines on stderr, want 8:\n%s", n, errOut)
	}
}

func TestConfigCheckAcceptsTheShippedFile(t *testing.T) {
	path := filepath.Join("..", "..", "deploy", "ndrmilter.yaml")
	out, errOut, rc := runConfigCheck(t, path)
	if rc != exitOK || !strings.HasPrefix(out, path+": OK: ") || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", rc, out, errOut)
	}
}

func TestConfigCheckSyntaxAndFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"syntax.yaml", "listen: inet:127.0.0.1:1\nlog_level: info\n domains: [a.example]\n", ":3: not valid YAML: mapping values are not allowed"},
		{"tab.yaml", "listen: inet:127.0.0.1:1\n\tlog_level: info\n", ":2: not valid YAML: found a tab character"},
		{"list.yaml", "- listen\n", `:1: expected "key: value" lines`},
		{"scalar-list.yaml", "domains: example.org\n", `:1: domains: expected a list`},
		{"data-file.yaml", "data: " + filepath.Join(dir, "syntax.yaml") + "\n", `:1: data "` + filepath.Join(dir, "syntax.yaml") + `": exists and is not a directory`},
		{"bolt-empty.yaml", "ledger: \"bolt:\"\n", `:1: ledger "bolt:": expected bolt:PATH`},
		{"flagname.yaml", "trusted-networks: [10.0.0.0/8]\n", `:1: unknown key "trusted-networks" (did you mean trusted_networks?)`},
		{"language.yaml", "domains: [example.org]\nlanguage: ko\n", `:2: language "ko": not a language ndrmilter writes (yet): expected one of en, de, es, fr, ja or auto`},
		{"language-default.yaml", "domains: [example.org]\nlanguage: auto\nlanguage_default: \"!!\"\n", `:3: language_default "!!": not a language tag`},
	} {
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, []byte(tc.content), 0o600)
		_, errOut, rc := runConfigCheck(t, path)
		if rc != exitNo || !strings.HasPrefix(errOut, path+tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", tc.name, rc, errOut, path+tc.want)
		}
	}
	missing := filepath.Join(dir, "missing.yaml")
	_, errOut, rc := runConfigCheck(t, missing)
	if rc != exitNo || errOut != missing+": cannot read the configuration file: no such file or directory\n" {
		t.Errorf("missing file: exit %d, stderr %q", rc, errOut)
	}
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, []byte("# nothing but comments\n"), 0o600)
	out, errOut, rc := runConfigCheck(t, empty)
	if rc != exitOK || !strings.Contains(errOut, "warning: no domains") || !strings.Contains(out, "OK") {
		t.Errorf("empty file (the defaults): exit %d, stdout %q, stderr %q", rc, out, errOut)
	}
}

// Every flag of serve sets a key of the file: config check and the flag
// log rely on the mapping.
func TestEveryServeFlagMapsToAConfigKey(t *testing.T) {
	fs, _, _ := serveFlagSet()
	for _, fd := range flagDocs(fs) {
		if fd.name == "config" {
			continue
		}
		key, ok := flagKeys[fd.name]
		if _, known := configFields()[key]; !ok || !known {
			t.Errorf("flag --%s maps to %q, not a configuration key", fd.name, key)
		}
	}
	if len(flagKeys) != len(flagDocs(fs))-1 {
		t.Errorf("flagKeys has %d entries for %d flags", len(flagKeys), len(flagDocs(fs))-1)
	}
}
