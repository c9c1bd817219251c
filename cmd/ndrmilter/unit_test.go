package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// unitValue returns the value of the first "key=" line of the unit.
func unitValue(t *testing.T, unit, key string) string {
	t.Helper()
	for _, line := range strings.Split(unit, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
			return v
		}
	}
	t.Fatalf("deploy/ndrmilter.service has no %s=", key)
	return ""
}

// byteSize reads a size as systemd (1G) or Go's GOMEMLIMIT (448MiB) writes it.
func byteSize(t *testing.T, s string) int64 {
	t.Helper()
	m := regexp.MustCompile(`^(\d+)(K|M|G|KiB|MiB|GiB)?$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("size %q", s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	switch m[2] {
	case "K", "KiB":
		n <<= 10
	case "M", "MiB":
		n <<= 20
	case "G", "GiB":
		n <<= 30
	}
	return n
}

// The unit's memory settings agree: the Go memory limit is below
// MemoryMax, with room for what the Go runtime does not count, and above
// the default buffer budget, which must fit in it with the parsing on top.
func TestUnitMemoryLimitsAgree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ndrmilter.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := string(raw)
	memMax := byteSize(t, unitValue(t, unit, "MemoryMax"))
	goLimit := byteSize(t, strings.TrimPrefix(unitValue(t, unit, "Environment"), "GOMEMLIMIT="))
	budget := defaultServeConfig().BufferBudget
	if goLimit > memMax*3/4 || goLimit < budget+budget/2 {
		t.Errorf("GOMEMLIMIT %d, MemoryMax %d, buffer_budget %d: want the Go limit at most 3/4 of MemoryMax and 1.5 times the budget or more",
			goLimit, memMax, budget)
	}
	for _, want := range []string{"PrivateUsers=yes", "PrivateMounts=yes", "IPAddressDeny=any", "IPAddressAllow=localhost"} {
		if !strings.Contains(unit, "\n"+want+"\n") {
			t.Errorf("the unit lacks %s", want)
		}
	}
}

// systemd-analyze security rates the unit OK or better (where this
// systemd can rate a unit file offline).
func TestUnitSecurityExposureIsOK(t *testing.T) {
	bin, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze")
	}
	out, err := exec.Command(bin, "security", "--offline=true", filepath.Join("..", "..", "deploy", "ndrmilter.service")).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for \S+: ([\d.]+) (\w+)`).FindSubmatch(out)
	if m == nil {
		t.Skipf("systemd-analyze security --offline=true does not rate the unit here: %v\n%s", err, out)
	}
	if level := string(m[2]); level != "OK" && level != "SAFE" {
		t.Fatalf("systemd-analyze security: %s %s, want OK or SAFE", m[1], level)
	}
	t.Logf("systemd-analyze security: exposure %s %s", m[1], m[2])
}
