package postfixtest

import (
	"os"
	"regexp"
	"strings"
	"time"
)

// LogPath is the file Postfix logs to (maillog_file).
func (p *Instance) LogPath() string { return p.log }

// Log returns the whole Postfix log so far.
func (p *Instance) Log() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// LogTail returns the last n lines of the Postfix log under a title line,
// for failure messages.
func (p *Instance) LogTail(n int) string {
	lines := strings.Split(strings.TrimRight(p.Log(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "--- postfix log (tail) ---\n" + strings.Join(lines, "\n")
}

// AwaitLog waits up to timeout for the log to match re, and returns the
// submatches of the first match.
func (p *Instance) AwaitLog(timeout time.Duration, re *regexp.Regexp) ([]string, bool) {
	var m []string
	ok := waitFor(timeout, func() bool {
		m = re.FindStringSubmatch(p.Log())
		return m != nil
	})
	return m, ok
}

// MilterComplaints returns the log lines in which Postfix complains about a
// milter: warnings, errors, timeouts and protocol trouble.
func (p *Instance) MilterComplaints() []string {
	var bad []string
	for _, line := range strings.Split(p.Log(), "\n") {
		l := strings.ToLower(line)
		if !strings.Contains(l, "milter") {
			continue
		}
		for _, word := range []string{"warning", "error", "fatal", "panic", "unexpected", "timeout"} {
			if strings.Contains(l, word) {
				bad = append(bad, line)
				break
			}
		}
	}
	return bad
}
