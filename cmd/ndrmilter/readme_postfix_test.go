package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/postfixtest"
)

// normalizeSetting writes "name = value" with single spaces, as postconf
// reads it: white space around "=" and between words does not matter.
func normalizeSetting(s string) string {
	name, value, _ := strings.Cut(s, "=")
	return strings.TrimSpace(name) + " = " + strings.Join(strings.Fields(value), " ")
}

// The quick start's postconf commands set exactly the settings of
// deploy/postfix/main.cf (which the end-to-end tests run Postfix with), and
// the variant for a server that already has milters appends the same
// ndrmilter entry.
func TestReadmePostfixSnippetMatchesTheDeployKit(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "**4. Point Postfix at it**")
	end := strings.Index(readme, "**5. Check**")
	if start < 0 || end < start {
		t.Fatal("README.md: no quick start step 4 (\"**4. Point Postfix at it**\" ... \"**5. Check**\")")
	}
	step := readme[start:end]
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(step, -1)
	if len(blocks) != 2 {
		t.Fatalf("README.md quick start step 4: %d sh blocks, want 2 (the settings, the variant for existing milters)", len(blocks))
	}
	var readmeSettings []string
	for _, m := range regexp.MustCompile(`'([a-z_]+ = [^']*)'`).FindAllStringSubmatch(blocks[0][1], -1) {
		readmeSettings = append(readmeSettings, normalizeSetting(m[1]))
	}
	kit, err := postfixtest.ReadSettings(filepath.Join("..", "..", "deploy", "postfix", "main.cf"))
	if err != nil {
		t.Fatal(err)
	}
	var kitSettings []string
	entry := ""
	for _, s := range kit {
		s = normalizeSetting(s)
		kitSettings = append(kitSettings, s)
		if v, ok := strings.CutPrefix(s, "smtpd_milters = "); ok {
			entry = v
		}
	}
	if !reflect.DeepEqual(readmeSettings, kitSettings) {
		t.Errorf("README.md's postconf sets:\n  %s\ndeploy/postfix/main.cf sets:\n  %s", strings.Join(readmeSettings, "\n  "), strings.Join(kitSettings, "\n  "))
	}
	m := regexp.MustCompile(`\$\{old:\+\$old, \}(\{[^}]*\})"`).FindStringSubmatch(blocks[1][1])
	if m == nil || strings.Join(strings.Fields(m[1]), " ") != entry {
		t.Errorf("README.md's variant for existing milters appends %q, want deploy/postfix/main.cf's entry %q", m, entry)
	}
}
