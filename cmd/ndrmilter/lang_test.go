package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplainInGermanWritesTheWordsAndLabelsInGerman(t *testing.T) {
	f := filepath.Join("testdata", "bounces", "postfix-userunknown.eml")
	out, errOut, rc := runExplainArgs(t, "", "--lang", "de", f)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	for _, want := range []string{"  Empfänger:", "  Was passiert ist:", "  Wer es beheben muss:", "der Absender (Sie)",
		"  Wie es sich beheben lässt:", "Die Nachricht an ", "Prüfen Sie die Adresse auf Tippfehler und bestätigen Sie sie mit dem Empfänger", "  Details für Administratoren:",
		"(dauerhaft)"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --lang de lacks %q:\n%s", want, out)
		}
	}
	for _, english := range []string{"What happened", "Who must fix it", "The message", "Check the address"} {
		if strings.Contains(out, english) {
			t.Errorf("explain --lang de still says %q:\n%s", english, out)
		}
	}
	// The values line up after the longest German label.
	col := -1
	for _, line := range strings.Split(out, "\n") {
		for _, label := range []string{"  Empfänger:", "  Was passiert ist:", "  Wer es beheben muss:"} {
			if strings.HasPrefix(line, label) {
				rest := strings.TrimLeft(line[len(label):], " ")
				c := len([]rune(line)) - len([]rune(rest))
				if col >= 0 && c != col {
					t.Errorf("value of %q starts at column %d, others at %d", label, c, col)
				}
				col = c
			}
		}
	}

	js, errOut, rc := runExplainArgs(t, "", "--lang", "de-AT", "--json", f)
	if rc != 0 {
		t.Fatalf("--json: exit %d: %s", rc, errOut)
	}
	var rec struct{ Summary, Explanation, Fix, Reason, Owner string }
	if err := json.Unmarshal([]byte(strings.SplitN(js, "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Summary != "Adresse existiert nicht" || !strings.HasPrefix(rec.Explanation, "Die Nachricht") ||
		!strings.HasPrefix(rec.Fix, "Prüfen Sie") || rec.Reason != "userunknown" || rec.Owner != "sender" {
		t.Errorf("explain --lang de-AT --json: %+v; want the words in German, reason and owner as in English", rec)
	}
}

func TestCodeInGermanAndUnknownLanguages(t *testing.T) {
	out, errOut, rc := runCodeArgs(t, "--lang", "de", "5.7.509")
	if rc != 0 || !strings.Contains(out, "  Was es bedeutet:") || !strings.Contains(out, "DMARC") || !strings.Contains(out, "Wie es sich beheben lässt:") {
		t.Errorf("code --lang de 5.7.509: exit %d, %s%s", rc, out, errOut)
	}
	js, _, _ := runCodeArgs(t, "--lang", "de", "--json", "5.1.1")
	var rec struct{ Summary string }
	if json.Unmarshal([]byte(js), &rec) != nil || rec.Summary != "Adresse existiert nicht" {
		t.Errorf("code --lang de --json 5.1.1: %s", js)
	}
	for _, args := range [][]string{{"--lang", "ko", "5.1.1"}, {"--lang", "!!", "5.1.1"}} {
		_, errOut, rc := runCodeArgs(t, args...)
		if rc != exitUsage || !strings.Contains(errOut, "--lang") {
			t.Errorf("code %v: exit %d, %q; want exit %d naming --lang", args, rc, errOut, exitUsage)
		}
	}
	if _, errOut, rc := runExplainArgs(t, "", "--lang", "ko", filepath.Join("testdata", "bounces", "postfix-userunknown.eml")); rc != exitUsage ||
		!strings.Contains(errOut, "expected one of en, de, es, fr, ja") {
		t.Errorf("explain --lang ko: exit %d, %q; want exit %d listing the languages", rc, errOut, exitUsage)
	}
}
