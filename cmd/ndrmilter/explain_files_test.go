package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestExplainWritesInputsInOrder gives explain, in one run, files, an mbox,
// standard input, a missing file and an empty directory, many times over
// (more inputs than the workers have in flight), and expects the bytes
// that explaining each input alone, one after the other, gives: the
// workers read and explain files in parallel, the output keeps the order
// of the arguments.
func TestExplainWritesInputsInOrder(t *testing.T) {
	files := fixtures(t)
	dir := t.TempDir()
	var box strings.Builder
	for _, f := range files[:3] {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		box.WriteString("From MAILER-DAEMON Mon Jan  1 00:00:00 2024\n")
		box.Write(raw)
		box.WriteString("\n")
	}
	mbox := filepath.Join(dir, "box.mbox")
	if err := os.WriteFile(mbox, []byte(box.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}

	var args []string
	for round := 0; len(args) < 2*explainBatchFiles*explainFilesInFlight*runtime.GOMAXPROCS(0); round++ {
		args = append(args, files...)
		args = append(args, mbox, filepath.Join(dir, "missing.eml"), empty, filepath.Join("testdata", "bounces"))
		if round == 0 {
			args = append(args, "-")
		}
	}
	for _, format := range [][]string{{"--json"}, nil} {
		var wantOut, wantErr strings.Builder
		for _, a := range args {
			in := ""
			if a == "-" {
				in = string(stdin)
			}
			out, errOut, _ := runExplainArgs(t, in, append(format, a)...)
			wantOut.WriteString(out)
			wantErr.WriteString(errOut)
		}
		out, errOut, rc := runExplainArgs(t, string(stdin), append(format, args...)...)
		if rc != exitNo {
			t.Errorf("%v: exit %d, expected %d (a missing file, an empty directory)", format, rc, exitNo)
		}
		if out != wantOut.String() {
			t.Errorf("%v: output of %d inputs in one run differs from their outputs one by one", format, len(args))
		}
		if errOut != wantErr.String() {
			t.Errorf("%v: diagnostics\n%s\nexpected\n%s", format, errOut, wantErr.String())
		}
		if !strings.Contains(errOut, "missing.eml") || !strings.Contains(errOut, "no message in this directory") {
			t.Errorf("%v: diagnostics %q name neither the missing file nor the empty directory", format, errOut)
		}
	}
}

// TestExplainManyFilesGiveTheOutputOfOneAtATime explains, in one run, a
// directory of many files (many batches per worker), an mbox small enough
// for a worker to read whole, one too large for that (streamed by the
// writer) and a message larger than a worker keeps, in text, JSON and with
// --why, and expects the same bytes, in the same order, as explaining each
// file alone one after the other.
func TestExplainManyFilesGiveTheOutputOfOneAtATime(t *testing.T) {
	files := fixtures(t)
	dir := t.TempDir()
	many := filepath.Join(dir, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	var small, all strings.Builder
	var names []string
	for i := 0; i < 3*explainBatchFiles*explainFilesInFlight*runtime.GOMAXPROCS(0); i++ {
		raw, err := os.ReadFile(files[i%len(files)])
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(many, fmt.Sprintf("%04d.eml", i))
		if err := os.WriteFile(name, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if i < len(files) {
			small.WriteString("From MAILER-DAEMON Mon Jan  1 00:00:00 2024\n")
			small.Write(raw)
			small.WriteString("\n")
		}
	}
	for all.Len() <= maxMemoryMbox {
		all.WriteString(small.String())
	}
	smallBox, largeBox, largeMessage := filepath.Join(dir, "small.mbox"), filepath.Join(dir, "large.mbox"), filepath.Join(dir, "large.eml")
	first, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		smallBox:     small.String(),
		largeBox:     all.String(),
		largeMessage: string(first) + strings.Repeat("a line of padding beyond what a worker keeps\n", maxPooledInput/40),
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	oneByOne := append(append([]string{}, names...), smallBox, largeBox, largeMessage)
	args := []string{many, smallBox, largeBox, largeMessage}
	for _, format := range [][]string{nil, {"--json"}, {"--why"}, {"--json", "--why"}} {
		var wantOut, wantErr strings.Builder
		for _, a := range oneByOne {
			out, errOut, rc := runExplainArgs(t, "", append(format, a)...)
			if rc != exitOK {
				t.Fatalf("%v %s alone: exit %d: %s", format, a, rc, errOut)
			}
			wantOut.WriteString(out)
			wantErr.WriteString(errOut)
		}
		out, errOut, rc := runExplainArgs(t, "", append(format, args...)...)
		if rc != exitOK {
			t.Errorf("%v: exit %d, expected %d", format, rc, exitOK)
		}
		if out != wantOut.String() {
			t.Errorf("%v: output of %d files in one run (%d bytes) differs from their outputs one by one (%d bytes)", format, len(oneByOne), len(out), wantOut.Len())
		}
		if errOut != wantErr.String() {
			t.Errorf("%v: diagnostics\n%s\nexpected\n%s", format, errOut, wantErr.String())
		}
		if n := strings.Count(out, filepath.Base(largeBox)); n < 2*len(files) {
			t.Errorf("%v: %d mentions of the messages of the large mbox, expected at least %d", format, n, 2*len(files))
		}
	}
}
