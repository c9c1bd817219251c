package postfixtest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// A deploy-kit file may hold a main.cf part and a master.cf part, each
// under a marker line such as "# ==== main.cf ====". ReadSettings reads the
// main.cf part of such a file and ReadServices its master.cf part; a file
// without markers is all one part.
var sectionMarker = regexp.MustCompile(`^#\s*=+\s*(main\.cf|master\.cf)\s*=+\s*$`)

// section returns the lines of text under the marker of part ("main.cf" or
// "master.cf"), the other lines blanked so that line numbers stay right in
// errors; all of text when it has no marker.
func section(text, part string) string {
	lines := strings.Split(text, "\n")
	marked, in := false, false
	for i, l := range lines {
		if m := sectionMarker.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			marked, in = true, m[1] == part
			lines[i] = ""
			continue
		}
		if !in {
			lines[i] = ""
		}
	}
	if !marked {
		return text
	}
	return strings.Join(lines, "\n")
}

// ReadSettings returns the settings of a main.cf file (or a snippet of
// one, or the main.cf part of a deploy-kit file), one "name = value" string
// per setting, in order. It reads main.cf's syntax (postconf(5)): blank
// lines and lines starting with # are ignored, and a line starting with
// white space continues the setting above, so a value spread over several
// lines comes back as one string.
func ReadSettings(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	settings, err := parseSettings(section(string(b), "main.cf"))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return settings, nil
}

// parseSettings splits main.cf text into logical lines, "name = value".
func parseSettings(text string) ([]string, error) {
	return logicalLines(text, "setting", func(n int, line, trimmed string) error {
		if _, _, ok := strings.Cut(trimmed, "="); !ok {
			return fmt.Errorf("line %d: want \"name = value\", got %q", n, line)
		}
		return nil
	})
}

// logicalLines splits Postfix configuration text (main.cf and master.cf
// share the syntax: postconf(5), master(5)) into logical lines: blank lines
// and lines whose first non-blank character is # are left out, and a line
// starting with white space is joined with a space to the one above. Each
// line that starts a logical line is given to first (with its number from 1,
// and trimmed) to check; what names the thing a line starts ("setting",
// "entry") in the error for a continuation with nothing above.
func logicalLines(text, what string, first func(n int, line, trimmed string) error) ([]string, error) {
	var out []string
	for n, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(out) == 0 {
				return nil, fmt.Errorf("line %d: a continuation line with no %s above: %q", n+1, what, line)
			}
			out[len(out)-1] += " " + trimmed
			continue
		}
		if first != nil {
			if err := first(n+1, line, trimmed); err != nil {
				return nil, err
			}
		}
		out = append(out, trimmed)
	}
	return out, nil
}

// settingName returns the parameter name of "name = value".
func settingName(setting string) string {
	name, _, _ := strings.Cut(setting, "=")
	return strings.TrimSpace(name)
}

// mergeSettings returns the main.cf text of base with each of settings
// replacing base's setting of the same name, or added at the end.
func mergeSettings(base string, settings []string) (string, error) {
	lines, err := parseSettings(base)
	if err != nil {
		return "", fmt.Errorf("main.cf template: %v", err)
	}
	at := map[string]int{}
	for i, l := range lines {
		at[settingName(l)] = i
	}
	for _, s := range settings {
		if _, _, ok := strings.Cut(s, "="); !ok {
			return "", fmt.Errorf("setting %q: want \"name = value\"", s)
		}
		name := settingName(s)
		if i, ok := at[name]; ok {
			lines[i] = s
			continue
		}
		at[name] = len(lines)
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// Param returns the value of a main.cf parameter as the running instance
// sees it (postconf -h: the value set, else Postfix's default), or fails
// the test.
func (p *Instance) Param(name string) string {
	p.t.Helper()
	params, err := p.postconf(name)
	if err != nil {
		p.t.Fatalf("postfixtest: %v", err)
	}
	return params[name]
}

// DefaultParam returns Postfix's built-in default of a main.cf parameter
// (postconf -d -h), or fails the test.
func DefaultParam(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command(program(t, "postconf"), "-d", "-h", name).Output()
	if err != nil {
		t.Fatalf("postfixtest: postconf -d -h %s: %v", name, err)
	}
	return strings.TrimRight(string(out), "\n")
}
