package rules

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestExplanationSentences checks the sentence of every kind of record no
// rule explains, with and without a recipient and a server: the built-in
// texts must say exactly this.
func TestExplanationSentences(t *testing.T) {
	e := builtin(t)
	const cause = "the address does not exist there"
	for _, c := range []struct {
		action       smtpcode.Action
		rcpt, remote string
		want         string
	}{
		{smtpcode.ActionFailed, "bob@example.com", "mx.example.com", "The message to bob@example.com was refused by mx.example.com because the address does not exist there."},
		{smtpcode.ActionFailed, "bob@example.com", "", "The message to bob@example.com could not be delivered because the address does not exist there."},
		{smtpcode.ActionFailed, "", "mx.example.com", "The message was refused by mx.example.com because the address does not exist there."},
		{smtpcode.ActionFailed, "", "", "The address does not exist there."},
		{"", "", "", "The address does not exist there."},
		{smtpcode.ActionDelayed, "bob@example.com", "mx.example.com", "Delivery of the message to bob@example.com is delayed at mx.example.com because the address does not exist there; the sending server keeps trying."},
		{smtpcode.ActionDelayed, "", "", "Delivery of the message is delayed because the address does not exist there; the sending server keeps trying."},
		{smtpcode.ActionDelivered, "bob@example.com", "mx.example.com", "The message to bob@example.com was delivered by mx.example.com."},
		{smtpcode.ActionRelayed, "bob@example.com", "", "The message to bob@example.com was relayed."},
		{smtpcode.ActionExpanded, "", "lists.example.com", "The message was expanded by lists.example.com."},
	} {
		var vs sentenceValues
		got, _ := joinSentences([]piece{textPiece(e.explain(&Input{Recipient: c.rcpt, RemoteMTA: c.remote}, c.action, cause, 0, &vs[valuesExplain]), valuesExplain)}, piece{}, &vs)
		if got != c.want {
			t.Errorf("%s, recipient %q, remote %q:\n got %q\nwant %q", c.action, c.rcpt, c.remote, got, c.want)
		}
	}
	p := writeRules(t, "rules:\n- id: x\n  when: {status: [5.1.1]}\n  then: {reason: userunknown, cause: '"+cause+"', explanation: '{recipient} at {remote} via {reporting}: {status}, {cause}.'}\n")
	le, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	got := le.Classify(Input{Status: "5.1.1"}).Explanation
	if want := "the recipient at the receiving server via the reporting server: 5.1.1, " + cause + "."; got != want {
		t.Errorf("rule template with nothing known:\n got %q\nwant %q", got, want)
	}
}

// TestEveryTextIsRequired: a rule set that lacks a text the engine writes
// does not load.
func TestEveryTextIsRequired(t *testing.T) {
	saved := readRulesYAML(t)
	data := bytes.Replace(saved, []byte("\n  delayed_fix:"), []byte("\n  # delayed_fix:"), 1)
	if bytes.Equal(data, saved) {
		t.Fatal("rules.yaml has no delayed_fix text to remove")
	}
	_, err := compileBuiltin(data)
	if err == nil || !strings.Contains(err.Error(), "texts: missing delayed_fix") {
		t.Errorf("Load without delayed_fix: error %v, want it to name the missing text", err)
	}
}

// TestLocalTextsOverride: a local rules file may reword (or translate) a
// text; the first file that gives it wins, and the others stay built in.
func TestLocalTextsOverride(t *testing.T) {
	p := writeRules(t, "texts:\n  explain_delivered: 'Zugestellt[ an {recipient}][ durch {remote}].'\n")
	e, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Classify(Input{Action: smtpcode.ActionDelivered, Recipient: "bob@example.com"})
	if v.Explanation != "Zugestellt an bob@example.com." {
		t.Errorf("delivered: %q", v.Explanation)
	}
	v = e.Classify(Input{Action: smtpcode.ActionDelayed, Status: "4.2.2", Diagnostic: "452 4.2.2 mailbox full"})
	if want := "Delivery is delayed: the attempts so far failed, and the sending server keeps trying. The message was refused because the recipient's mailbox is full."; v.Explanation != want {
		t.Errorf("delayed (built-in text): %q, want %q", v.Explanation, want)
	}
}

// TestTextNamesAreUnique guards the table the texts are validated by.
func TestTextNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for k, d := range textDefs {
		if d.name == "" || seen[d.name] {
			t.Errorf("text %d: name %q empty or used twice", k, d.name)
		}
		seen[d.name] = true
	}
}
