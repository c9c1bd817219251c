package dsn_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// familiesDir holds the family fixtures of issue 8 (see its README.md):
// hand-written bounces of the families whose recipient, kind and
// permanence the parser got wrong, two or more per family, and the truth
// for each.
const familiesDir = "../internal/testdata/bounces"

// familyTruth is the part of a truth.jsonl line this test checks.
type familyTruth struct {
	File       string `json:"file"`
	Recipient  string `json:"recipient"`
	HardBounce bool   `json:"hard_bounce"`
	NotABounce bool   `json:"not_a_bounce"`
	Kind       string `json:"kind"`
	Permanent  *bool  `json:"permanent"`
	Family     string `json:"family"`
	Message    int    `json:"message"`
}

// familyReading is what the parser and the rules say of one recipient.
type familyReading struct {
	kind                  string
	recipient             string
	permanent, hardBounce bool
}

// TestFamiliesReadAsTheTruthSays reads every fixture of
// internal/testdata/bounces the way "ndrmilter explain" does (each message
// of an mbox, through the built-in rules) and checks, family by family,
// what the truth says of recipient, kind and permanent: the notice's failed
// recipients and no other address, "" where it names none; bounce or
// delay; permanent unless the sender's server is still retrying. Non-bounces
// must not read as a bounce, delay or success and must have the truth's
// kind. hard_bounce is checked where it does not hang on the reason (the
// rules data's question): never while the server retries, nor for a failure
// that is not permanent.
func TestFamiliesReadAsTheTruthSays(t *testing.T) {
	f, err := os.Open(filepath.Join(familiesDir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byFile := map[string][]familyTruth{}
	families := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var tr familyTruth
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatalf("truth.jsonl: %v", err)
		}
		if tr.Family == "" {
			tr.Family = tr.File[:strings.LastIndexByte(tr.File, '-')]
		}
		if _, ok := byFile[tr.File]; !ok {
			families[tr.Family] = append(families[tr.Family], tr.File)
		}
		byFile[tr.File] = append(byFile[tr.File], tr)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	engine, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(families))
	for fam := range families {
		names = append(names, fam)
	}
	sort.Strings(names)
	for _, fam := range names {
		t.Run(fam, func(t *testing.T) {
			for _, file := range families[fam] {
				raw, err := os.ReadFile(filepath.Join(familiesDir, "eml", file))
				if err != nil {
					t.Fatal(err)
				}
				var got []familyReading
				for r := range dsn.ParseAll(raw) {
					for _, rd := range engine.Explain(r) {
						got = append(got, familyReading{string(rd.Kind), rd.Recipient.Address, rd.Permanent, rd.HardBounce})
					}
				}
				checkFamilyFile(t, file, byFile[file], got)
			}
		})
	}
}

// checkFamilyFile compares the readings of one fixture with its truth.
func checkFamilyFile(t *testing.T, file string, truth []familyTruth, got []familyReading) {
	t.Helper()
	failure := func(k string) bool { return k == string(dsn.KindBounce) || k == string(dsn.KindDelay) }
	if truth[0].NotABounce {
		for _, g := range got {
			// A success report (truth "delivered") read as delivered is
			// right; any other non-bounce read as a delivery report is not.
			if failure(g.kind) || (g.kind == string(dsn.KindDelivered) && truth[0].Kind != string(dsn.KindDelivered)) {
				t.Errorf("%s: not a bounce (%s), read as %s for %q", file, truth[0].Kind, g.kind, g.recipient)
			} else if g.kind != truth[0].Kind {
				t.Errorf("%s: kind %s, want %s", file, g.kind, truth[0].Kind)
			}
		}
		return
	}
	named := map[string]bool{}
	for _, tr := range truth {
		named[strings.ToLower(tr.Recipient)] = true
	}
	used := make([]bool, len(got))
	for _, g := range got {
		if failure(g.kind) && !named[strings.ToLower(g.recipient)] {
			t.Errorf("%s: names %q, which the notice does not give as failed (want %q)", file, g.recipient, truthRecipients(truth))
		}
	}
	for _, tr := range truth {
		at := -1
		for i, g := range got {
			if !used[i] && failure(g.kind) && strings.EqualFold(g.recipient, tr.Recipient) {
				at = i
				break
			}
		}
		if at < 0 {
			t.Errorf("%s: no %s record for %q (read %+v)", file, tr.Kind, tr.Recipient, got)
			continue
		}
		used[at] = true
		g := got[at]
		if g.kind != tr.Kind {
			t.Errorf("%s: %q is a %s, want %s", file, tr.Recipient, g.kind, tr.Kind)
		}
		if tr.Permanent != nil && g.permanent != *tr.Permanent {
			t.Errorf("%s: %q permanent %v, want %v", file, tr.Recipient, g.permanent, *tr.Permanent)
		}
		if (tr.Kind == string(dsn.KindDelay) || tr.Permanent != nil && !*tr.Permanent) && g.hardBounce {
			t.Errorf("%s: %q is a hard bounce while the server still retries", file, tr.Recipient)
		}
	}
}

func truthRecipients(truth []familyTruth) []string {
	var out []string
	for _, tr := range truth {
		out = append(out, tr.Recipient)
	}
	return out
}
