package postfixtest

import (
	"fmt"
	"os"
	"strings"
)

// ReadServices returns the master.cf entries of a master.cf file (or of
// the master.cf part of a deploy-kit file), one string per entry: the
// entry line and its continuation lines ("-o name=value") joined with
// spaces. It reads master.cf's syntax (master(5)): blank lines and lines
// whose first non-blank character is # are ignored, and a line starting
// with white space continues the entry above.
func ReadServices(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	services, err := parseServices(section(string(b), "master.cf"))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return services, nil
}

// parseServices splits master.cf text into entries and checks that each
// has the eight fields master(5) requires before its arguments.
func parseServices(text string) ([]string, error) {
	out, err := logicalLines(text, "entry", nil)
	if err != nil {
		return nil, err
	}
	for _, s := range out {
		if len(strings.Fields(s)) < 8 {
			return nil, fmt.Errorf("master.cf entry %q: want service, type, private, unpriv, chroot, wakeup, maxproc and command", s)
		}
	}
	return out, nil
}

// serviceKey is what identifies a master.cf entry: its name and type.
func serviceKey(entry string) string {
	f := strings.Fields(entry)
	if len(f) < 2 {
		return entry
	}
	return f[0] + " " + f[1]
}

// mergeServices returns the master.cf text of base with services added.
// An entry is put on one line with its chroot field set to "n" (the
// instance's queue is not laid out as a chroot jail); an entry for the
// "smtp inet" service is the instance's own smtpd, listening on smtpAddr,
// and takes the place of base's entry for it; an entry with the name and
// type of one of base's replaces it; the others are added at the end.
// inet lists the addresses of the inet entries that run smtpd.
func mergeServices(base, smtpAddr string, services []string) (text string, inet []string, err error) {
	entries, err := parseServices(base)
	if err != nil {
		return "", nil, fmt.Errorf("master.cf template: %v", err)
	}
	at := map[string]int{}
	for i, e := range entries {
		at[serviceKey(e)] = i
	}
	for _, s := range services {
		f := strings.Fields(s)
		if len(f) < 8 {
			return "", nil, fmt.Errorf("master.cf entry %q: want service, type, private, unpriv, chroot, wakeup, maxproc and command", s)
		}
		f[4] = "n"
		if f[0] == "smtp" && f[1] == "inet" {
			f[0] = smtpAddr
		}
		entry := strings.Join(f, " ")
		key := serviceKey(entry)
		if i, ok := at[key]; ok {
			entries[i] = entry
			continue
		}
		at[key] = len(entries)
		entries = append(entries, entry)
	}
	for _, e := range entries {
		if f := strings.Fields(e); f[1] == "inet" && f[7] == "smtpd" && strings.Contains(f[0], ":") {
			inet = append(inet, f[0])
		}
	}
	return strings.Join(entries, "\n") + "\n", inet, nil
}
