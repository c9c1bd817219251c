package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/rules"
)

// hostileJSONText holds every character class encoding/json escapes: HTML
// characters, quote and backslash, controls, invalid UTF-8, U+2028 and
// U+2029, DEL, and characters it leaves alone.
const hostileJSONText = "a<b>&c\"d\\e\x00\x01\x08\x0c\n\r\t\x1f\x7f é 日本 \u2028\u2029 \xff\xfe\xc3 end"

// encodingJSON is what encoding/json's Encoder, which explain used, writes
// for v.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRecordJSONIsEncodingJSONs expects appendRecordJSON to write the bytes
// encoding/json writes: for the records of every fixture with --why's
// trace, for a record whose every field is set (with text that needs
// escaping), and for one whose omitempty fields are empty. A field added to
// the record and not to appendRecordJSON fails here.
func TestRecordJSONIsEncodingJSONs(t *testing.T) {
	engine, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	var withFacts rules.Facts
	n := 0
	for _, f := range fixtures(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		report, _ := dsn.Parse(raw)
		if report == nil {
			continue
		}
		for _, rd := range engine.Explain(report) {
			rec := explanation.NewRecord(f, report, rd)
			rec.Why = newWhyRecord(engine, report, rd)
			if got, want := string(appendRecordJSON(nil, &rec)), encodingJSON(t, rec); got != want {
				t.Errorf("%s: record\n%s\nexpected (encoding/json)\n%s", f, got, want)
			}
			if rd.Facts.Len() > 0 {
				withFacts = rd.Facts
			}
			n++
		}
	}
	if n == 0 || withFacts.Len() == 0 {
		t.Fatalf("%d records, facts in none: the fixtures do not exercise the encoder", n)
	}

	full := explainRecord{Message: 7, Facts: withFacts, Why: &whyRecord{
		Matches: []whyMatch{{Rule: hostileJSONText, File: hostileJSONText, Line: 12, Matched: hostileJSONText, Reason: rules.Reason(hostileJSONText), Decided: true},
			{Rule: "b", File: "f", Line: 0, Matched: "", Reason: "r"}},
		Facts: []whyFact{{Fact: rules.Fact(hostileJSONText), Value: hostileJSONText, From: hostileJSONText, File: hostileJSONText, Line: 3}, {Fact: "host"}},
	}}
	v := reflect.ValueOf(&full).Elem()
	for i := range v.NumField() {
		field := v.Field(i)
		switch field.Kind() {
		case reflect.String:
			field.SetString(hostileJSONText + v.Type().Field(i).Name)
		case reflect.Bool:
			field.SetBool(true)
		}
		if field.IsZero() {
			t.Fatalf("field %s (%s) of the record is not set by this test: set it here and write it in appendRecordJSON", v.Type().Field(i).Name, field.Type())
		}
	}
	for name, rec := range map[string]explainRecord{
		"every field set":     full,
		"omitempty fields":    {File: "f"},
		"why without matches": {Why: &whyRecord{}},
		"why, no match":       {Why: &whyRecord{Matches: []whyMatch{}}},
	} {
		if got, want := string(appendRecordJSON(nil, &rec)), encodingJSON(t, rec); got != want {
			t.Errorf("%s: record\n%s\nexpected (encoding/json)\n%s", name, got, want)
		}
	}
}

// TestJSONStringIsEncodingJSONs expects appendJSONString to write every
// byte value (alone, and at every place of a plain text), every escaped
// character and random bytes as encoding/json's Marshal does.
func TestJSONStringIsEncodingJSONs(t *testing.T) {
	cases := []string{"", hostileJSONText, "\u2027\u2028\u2029\u202a", "\xed\xa0\x80", "\xf4\x90\x80\x80", "tail\xe2\x80"}
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
		// Every byte at every place of the words of plain text that
		// jsonPlainLen reads eight bytes at a time.
		for at := range 18 {
			cases = append(cases, strings.Repeat("a", at)+string([]byte{byte(c)})+strings.Repeat("b", 17-at))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: %s, expected (encoding/json) %s", s, got, want)
		}
	}
}

// FuzzJSONStringIsEncodingJSONs holds appendJSONString to encoding/json's
// Marshal on any text.
func FuzzJSONStringIsEncodingJSONs(f *testing.F) {
	for _, s := range []string{"", hostileJSONText, strings.Repeat("\u2028<", 3)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: %s, expected (encoding/json) %s", s, got, want)
		}
	})
}
