package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustTruth(t *testing.T, lines ...string) []truthRecord {
	t.Helper()
	tr, err := readTruth(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func mustExplain(t *testing.T, lines ...string) map[string][]explainRecord {
	t.Helper()
	got, bad, err := readExplain(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil || bad != 0 {
		t.Fatalf("readExplain: %d bad lines, err %v", bad, err)
	}
	return got
}

func TestPseudoStatusCountsOnlyWhereTheTruthAllowsAnInferredCode(t *testing.T) {
	truth := mustTruth(t,
		`{"file":"a.eml","index":1,"recipient":"x@example.net","status":"","reason":"userunknown","hard_bounce":true,"kind":"bounce","permanent":true,"status_inferred_ok":true}`,
		`{"file":"b.eml","index":1,"recipient":"y@example.net","status":"","reason":"userunknown","hard_bounce":true,"kind":"bounce","permanent":true}`,
		`{"file":"c.eml","index":1,"recipient":"z@example.net","status":"","reason":"userunknown","hard_bounce":true,"kind":"bounce","permanent":true,"status_inferred_ok":true}`,
	)
	got := mustExplain(t,
		`{"file":"/x/a.eml","kind":"bounce","recipient":"X@example.net","status":"5.0.911","reason":"userunknown","hard_bounce":true,"permanent":true}`,
		`{"file":"/x/b.eml","kind":"bounce","recipient":"y@example.net","status":"5.0.911","reason":"userunknown","hard_bounce":true,"permanent":true}`,
		`{"file":"/x/c.eml","kind":"bounce","recipient":"z@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true,"permanent":true}`,
	)
	res := score(truth, got)
	if res.All.Recipient != (tally{3, 3}) {
		t.Errorf("recipient %v, want 3/3 (case-insensitive match)", res.All.Recipient)
	}
	// a: pseudo-code allowed; b: not allowed; c: 5.1.1 is neither a pseudo-code
	// nor marked inferred, so it claims a code the server never sent.
	if res.All.Status != (tally{1, 3}) {
		t.Errorf("status %v, want 1/3", res.All.Status)
	}
	if res.All.StatusStrict != (tally{0, 3}) {
		t.Errorf("strict status %v, want 0/3", res.All.StatusStrict)
	}
}

func TestInferredStatusSourceIsAccepted(t *testing.T) {
	truth := mustTruth(t, `{"file":"a.eml","index":1,"recipient":"x@example.net","status":"","reason":"hostunknown","hard_bounce":true,"status_inferred_ok":true}`)
	got := mustExplain(t, `{"file":"a.eml","kind":"bounce","recipient":"x@example.net","status":"5.1.2","status_source":"inferred","reason":"hostunknown","hard_bounce":true}`)
	if res := score(truth, got); res.All.Status != (tally{1, 1}) {
		t.Errorf("status %v, want 1/1", res.All.Status)
	}
}

func TestRecipientNamedTwiceNeedsTwoRecords(t *testing.T) {
	truth := mustTruth(t,
		`{"file":"a.eml","index":1,"recipient":"x@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true}`,
		`{"file":"a.eml","index":2,"recipient":"x@example.net","status":"5.2.2","reason":"mailboxfull","hard_bounce":false}`,
	)
	got := mustExplain(t, `{"file":"a.eml","kind":"bounce","recipient":"x@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true}`)
	res := score(truth, got)
	if res.All.Recipient != (tally{1, 2}) {
		t.Errorf("recipient %v, want 1/2", res.All.Recipient)
	}
}

func TestNonBounceCalledBounceIsAMiss(t *testing.T) {
	truth := mustTruth(t,
		`{"file":"vac.eml","index":0,"not_a_bounce":true,"kind":"autoreply"}`,
		`{"file":"dmarc.eml","index":0,"not_a_bounce":true,"kind":"not-bounce"}`,
	)
	got := mustExplain(t,
		`{"file":"vac.eml","kind":"bounce","recipient":"me@example.org","status":"5.0.900","reason":"undefined"}`,
		`{"file":"dmarc.eml","kind":"not-bounce","recipient":""}`,
	)
	res := score(truth, got)
	if res.All.NotCalledBounce != (tally{1, 2}) {
		t.Errorf("not called a bounce %v, want 1/2", res.All.NotCalledBounce)
	}
	if res.All.NonBounceKind != (tally{1, 2}) {
		t.Errorf("right kind %v, want 1/2", res.All.NonBounceKind)
	}
	if len(res.Misses) == 0 || !strings.Contains(res.Misses[0], "vac.eml") {
		t.Errorf("misses %q, want one naming vac.eml", res.Misses)
	}
}

func TestSuccessReportPrintedAsDeliveredIsNotCalledABounce(t *testing.T) {
	truth := mustTruth(t,
		`{"file":"ok.eml","index":0,"not_a_bounce":true,"kind":"delivered"}`,
		`{"file":"okfail.eml","index":0,"not_a_bounce":true,"kind":"delivered"}`,
		`{"file":"vac.eml","index":0,"not_a_bounce":true,"kind":"autoreply"}`,
	)
	got := mustExplain(t,
		`{"file":"ok.eml","kind":"delivered","recipient":"r@example.net"}`,
		`{"file":"okfail.eml","kind":"bounce","recipient":"r@example.net"}`,
		`{"file":"vac.eml","kind":"delivered","recipient":"me@example.org"}`,
	)
	res := score(truth, got)
	if res.All.NotCalledBounce != (tally{1, 3}) {
		t.Errorf("not called a bounce %v, want 1/3 (only ok.eml)", res.All.NotCalledBounce)
	}
}

func TestAddressTheNoticeDoesNotNameCountsAsWrong(t *testing.T) {
	truth := mustTruth(t, `{"file":"a.eml","index":1,"recipient":"","status":"","reason":"mailboxfull","hard_bounce":false,"kind":"bounce","permanent":true,"status_inferred_ok":true}`)
	got := mustExplain(t, `{"file":"a.eml","kind":"bounce","recipient":"first-to@example.org","status":"5.0.922","reason":"mailboxfull","permanent":true}`)
	res := score(truth, got)
	if res.All.WrongAddress != (tally{0, 1}) {
		t.Errorf("no wrong address %v, want 0/1", res.All.WrongAddress)
	}
	if res.All.Recipient != (tally{0, 1}) {
		t.Errorf("recipient %v, want 0/1: an empty recipient was the right answer", res.All.Recipient)
	}
	if res.All.FailedFound.n != 0 {
		t.Errorf("failed recipient found counted %v, want nothing: the truth names no address", res.All.FailedFound)
	}
	if res.All.Recognised != (tally{1, 1}) {
		t.Errorf("recognised %v, want 1/1", res.All.Recognised)
	}
}

func TestPermanentIsScoredOnlyWhereTheTruthGivesIt(t *testing.T) {
	truth := mustTruth(t,
		`{"file":"a.eml","index":1,"recipient":"x@example.net","status":"4.4.7","reason":"expired","hard_bounce":false,"kind":"bounce","permanent":true}`,
		`{"file":"b.eml","index":1,"recipient":"y@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true}`,
	)
	got := mustExplain(t,
		`{"file":"a.eml","kind":"bounce","recipient":"x@example.net","status":"4.4.7","reason":"expired","permanent":false}`,
		`{"file":"b.eml","kind":"bounce","recipient":"y@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true,"permanent":true}`,
	)
	if res := score(truth, got); res.All.Permanent != (tally{0, 1}) {
		t.Errorf("permanent %v, want 0/1", res.All.Permanent)
	}
}

func TestFamilyDefaultsToTheFileNameWithoutItsNumber(t *testing.T) {
	for file, want := range map[string]string{
		"sendmail-v5-transcript-01.eml": "sendmail-v5-transcript",
		"lhost-postfix-64.eml":          "lhost-postfix",
		"odd.eml":                       "odd",
	} {
		if got := (truthRecord{File: file}).family(); got != want {
			t.Errorf("family of %s = %q, want %q", file, got, want)
		}
	}
}

func TestRunReadsSavedExplainOutput(t *testing.T) {
	dir := t.TempDir()
	truth := filepath.Join(dir, "truth.jsonl")
	line := `{"file":"a.eml","index":1,"recipient":"x@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true}`
	if err := os.WriteFile(truth, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"--truth", truth, "--explain", "-"},
		strings.NewReader(`{"file":"a.eml","kind":"bounce","recipient":"x@example.net","status":"5.1.1","reason":"userunknown","hard_bounce":true}`+"\nnot json\n"),
		&out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	for _, want := range []string{"100.0 % / 100.0 % / 100.0 % / 100.0 %", "1 lines of explain output were not JSON objects"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadTruthLineSaysWhereAndWhat(t *testing.T) {
	_, err := readTruth(strings.NewReader("{\"file\":\"a.eml\"}\n{oops\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v, want one naming line 2", err)
	}
}
