package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPhraseIndexKeepsTheFirstMatch: the rule firstMatch finds among the
// rules a record's phrases let through is the first of all the rules that
// the record matches, for every record of the repository's fixtures (and
// of the shared corpus, when present beside the repository), and for
// records whose words name no phrase.
func TestPhraseIndexKeepsTheFirstMatch(t *testing.T) {
	e := builtin(t)
	inputs := recordInputs(t, append(fixtureDirs[:len(fixtureDirs):len(fixtureDirs)], corpusDir))
	inputs = append(inputs, Input{Status: "5.1.1"}, Input{Diagnostic: "550 no phrase here"}, Input{ReplyCode: "421"})
	// Each rule's own phrases (the first of its text, or all of its
	// all), with and without a status code.
	for _, r := range e.rules {
		var words []string
		switch {
		case len(r.textIDs) > 0:
			words = []string{e.phraseList[r.textIDs[0]]}
		case len(r.all) > 0:
			for _, id := range r.all {
				words = append(words, e.phraseList[id])
			}
		default:
			continue
		}
		diag := "550 " + strings.Join(words, " and ")
		for _, st := range []string{"", "5.0.0", "4.4.1", "2.0.0"} {
			inputs = append(inputs, Input{Diagnostic: diag, Status: st, Action: "failed"})
		}
	}
	indexed := 0
	for _, in := range inputs {
		rec := e.prepare(&in)
		var want *rule
		for _, r := range e.rules {
			if rec.matches(r) {
				want = r
				break
			}
		}
		got := e.firstMatch(&rec)
		if _, ok := statusKey(rec.st, rec.hasStatus); ok && !noHits(rec.sc.hits) {
			indexed++
		}
		e.scratch.Put(rec.sc)
		if got != want {
			t.Errorf("record %q (status %q): firstMatch = %v, the first rule that matches %v", in.Diagnostic, in.Status, idOf(got), idOf(want))
		}
	}
	if indexed < 50 {
		t.Fatalf("only %d records went through the phrase index: the test tests little", indexed)
	}
}

func idOf(r *rule) string {
	if r == nil {
		return "none"
	}
	return r.id
}

// TestPhraseIndexLetsThroughRulesOfAllPhrases: a rule that names its
// phrases in all only (no text) is tried for a record that has them, in
// its place among the rules.
func TestPhraseIndexLetsThroughRulesOfAllPhrases(t *testing.T) {
	file := filepath.Join(t.TempDir(), "local.yaml")
	local := `rules:
  - id: local-both-words
    when:
      all: [quota of the gateway, exceeded twice]
    then: {reason: mailboxfull}
`
	if err := os.WriteFile(file, []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Classify(Input{Action: "failed", Status: "5.2.2", Diagnostic: "552 the quota of the gateway was exceeded twice"})
	if v.Rule != "local-both-words" {
		t.Fatalf("rule = %q, want local-both-words", v.Rule)
	}
	v = e.Classify(Input{Action: "failed", Status: "5.2.2", Diagnostic: "552 the quota of the gateway is full"})
	if v.Rule == "local-both-words" {
		t.Fatalf("rule local-both-words matched without all its phrases")
	}
}
