package rules

import (
	"testing"
)

// TestLocalFileKeepsTheBuiltinReadings: a local file is compiled with the
// phrases of the compiled-in rules, so that after it is joined to them
// every record its rules do not match reads exactly as with the built-in
// rules alone; its own phrases, new or also built in, match.
func TestLocalFileKeepsTheBuiltinReadings(t *testing.T) {
	p := writeRules(t, `rules:
  - id: local-new-phrase
    when: {text: [zzz local only phrase]}
    then: {reason: blocked}
  - id: local-builtin-phrase
    when: {all: [user unknown, zebras]}
    then: {reason: mailboxfull}
`)
	local, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range sampleInputs() {
		if a, b := plain.Classify(in), local.Classify(in); a != b {
			t.Errorf("%+v:\nwith a local file: %+v\n       built in: %+v", in, b, a)
		}
	}
	for diag, want := range map[string]string{
		"550 ZZZ local  only phrase":        "local-new-phrase",
		"550 user unknown: too many zebras": "local-builtin-phrase",
	} {
		if got := local.Classify(Input{Action: "failed", Diagnostic: diag}).Rule; got != want {
			t.Errorf("%q: rule %q, want %q", diag, got, want)
		}
	}
	if got := plain.Classify(Input{Action: "failed", Diagnostic: "550 user unknown: too many zebras"}).Rule; got == "local-builtin-phrase" {
		t.Errorf("the built-in engine has the local rule")
	}
}
