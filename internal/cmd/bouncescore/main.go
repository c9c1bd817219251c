// Command bouncescore scores `ndrmilter explain --json` against a truth file
// and prints the figures of issue 8's table: recipient / status / reason /
// hard, failed recipient found, bounce files recognised as bounce or delay,
// non-bounces not called a bounce, "permanent" agrees, then the same per
// family and the list of misses.
//
// Usage:
//
//	go run ./internal/cmd/bouncescore --bin ./ndrmilter --corpus internal/testdata/bounces
//	go run ./internal/cmd/bouncescore --truth T.jsonl --explain OUT.jsonl
//
// The truth format is that of ../shared/corpus/sisimai/truth.jsonl plus the
// keys internal/testdata/bounces adds ("kind", "permanent", "family",
// "status_inferred_ok", "note", "message"); see truth.go. With --bin it runs
// `BIN explain --json` over every file the truth names, in --corpus/eml (or
// --eml); with --explain it reads output saved before ("-" is standard input).
//
// It only reads and prints: it never fails on a low score (exit 0), and exits
// 2 when it cannot run.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"
)

// runTimeout bounds one explain run over a whole set.
const runTimeout = 10 * time.Minute

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main on explicit arguments and streams, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bouncescore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", "internal/testdata/bounces", "`DIR` holding eml/ and truth.jsonl")
	truthPath := fs.String("truth", "", "truth `FILE` (default CORPUS/truth.jsonl)")
	emlDir := fs.String("eml", "", "`DIR` of the messages (default CORPUS/eml)")
	bin := fs.String("bin", "./ndrmilter", "ndrmilter `BINARY` to run")
	explainPath := fs.String("explain", "", "read explain --json output from `FILE` instead of running BIN (\"-\": standard input)")
	maxMisses := fs.Int("misses", 200, "print at most `N` misses (0: none)")
	perFamily := fs.Bool("families", true, "print the figures per family")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *truthPath == "" {
		*truthPath = filepath.Join(*corpus, "truth.jsonl")
	}
	if *emlDir == "" {
		*emlDir = filepath.Join(*corpus, "eml")
	}

	tf, err := os.Open(*truthPath)
	if err != nil {
		fmt.Fprintf(stderr, "bouncescore: %v\n", err)
		return 2
	}
	truth, err := readTruth(tf)
	tf.Close()
	if err != nil {
		fmt.Fprintf(stderr, "bouncescore: %s: %v\n", *truthPath, err)
		return 2
	}
	if len(truth) == 0 {
		fmt.Fprintf(stderr, "bouncescore: %s: expected truth records, got none\n", *truthPath)
		return 2
	}

	var out io.Reader
	switch *explainPath {
	case "":
		b, err := runExplain(*bin, *emlDir, truth, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "bouncescore: %v\n", err)
			return 2
		}
		out = bytes.NewReader(b)
	case "-":
		out = stdin
	default:
		f, err := os.Open(*explainPath)
		if err != nil {
			fmt.Fprintf(stderr, "bouncescore: %v\n", err)
			return 2
		}
		defer f.Close()
		out = f
	}
	got, bad, err := readExplain(out)
	if err != nil {
		fmt.Fprintf(stderr, "bouncescore: reading explain output: %v\n", err)
		return 2
	}

	res := score(truth, got)
	printResult(stdout, res, *perFamily, *maxMisses)
	if bad > 0 {
		fmt.Fprintf(stdout, "\n%d lines of explain output were not JSON objects\n", bad)
	}
	return 0
}

// runExplain runs `bin explain --json` over the files the truth names and
// returns its standard output. Exit status 1 (some file could not be read
// fully) still gives records; anything else is an error.
func runExplain(bin, emlDir string, truth []truthRecord, stderr io.Writer) ([]byte, error) {
	seen := make(map[string]bool)
	var paths []string
	for _, t := range truth {
		if seen[t.File] {
			continue
		}
		seen[t.File] = true
		p := filepath.Join(emlDir, t.File)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("truth names %s: %v", t.File, err)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"explain", "--json"}, paths...)...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s explain --json over %d files: %v", bin, len(paths), err)
	}
	return stdout.Bytes(), nil
}
