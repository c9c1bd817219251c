package rules

import (
	"fmt"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// codeInputs are records of codes alone, as "ndrmilter code" makes them,
// and of codes with a text in which no rule's phrase occurs: every class,
// subject and detail the rules name, reply codes, actions and commands.
func codeInputs() []Input {
	var ins []Input
	statuses := []string{""}
	for _, class := range []int{2, 4, 5} {
		for subject := 0; subject <= 7; subject++ {
			for detail := 0; detail <= 30; detail++ {
				statuses = append(statuses, fmt.Sprintf("%d.%d.%d", class, subject, detail))
			}
		}
		statuses = append(statuses, fmt.Sprintf("%d.7.509", class), fmt.Sprintf("%d.9.999", class))
	}
	replies := []string{"", "250", "421", "450", "451", "452", "550", "551", "552", "553", "554", "571"}
	for _, st := range statuses {
		for _, reply := range replies {
			for _, action := range []smtpcode.Action{"", "failed", "delayed", "delivered"} {
				ins = append(ins, Input{Status: st, ReplyCode: reply, Action: action})
			}
		}
		ins = append(ins,
			Input{Status: st, Command: "RCPT"},
			Input{Status: st, Command: "DATA", Action: "failed"},
			Input{Status: st, Diagnostic: "zzqx", Action: "failed"},
			Input{Status: st, DiagnosticType: "X-Postfix", Action: "failed"},
		)
	}
	return ins
}

// TestTextFreeIndexFindsTheFirstMatchingRule checks that a record whose
// text holds no phrase matches, through the index, the rule that trying
// every rule in order finds: for the built-in rules, a local file before
// them, and the built-in rules with some left out.
func TestTextFreeIndexFindsTheFirstMatchingRule(t *testing.T) {
	builtin, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	local, err := Load("example-local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	without, err := LoadWithout([]string{"success", "success-code"})
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*Engine{"built-in": builtin, "local": local, "without": without} {
		indexed, matched := 0, 0
		for _, in := range codeInputs() {
			rec := e.prepare(&in)
			var want *rule
			for _, r := range e.rules {
				if rec.matches(r) {
					want = r
					break
				}
			}
			if _, ok := statusKey(rec.st, rec.hasStatus); ok && noHits(rec.sc.hits) {
				indexed++
			}
			if want != nil {
				matched++
			}
			if got := e.firstMatch(&rec); got != want {
				t.Errorf("%s: %+v: first match %s, trying every rule %s", name, in, ruleID(got), ruleID(want))
			}
			e.scratch.Put(rec.sc)
		}
		// The inputs must reach the index, and rules through it.
		if indexed < len(codeInputs())/2 || matched < len(codeInputs())/2 {
			t.Errorf("%s: %d inputs of %d went through the index, %d matched a rule", name, indexed, len(codeInputs()), matched)
		}
	}
}

func ruleID(r *rule) string {
	if r == nil {
		return "none"
	}
	return r.id
}
