package main

import (
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
	for round := 0; len(args) < 4*explainFilesInFlight*runtime.GOMAXPROCS(0); round++ {
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
