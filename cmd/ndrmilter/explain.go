package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// maxExplainInput caps what explain reads of one file: more than any bounce
// needs, little enough to keep memory bounded on hostile input.
const maxExplainInput = 64 << 20

// runExplain is "ndrmilter explain [--json] [--rules FILE] FILE...".
func runExplain(args []string) int {
	return explainMain(args, os.Stdin, os.Stdout, os.Stderr)
}

// explainMain is runExplain on explicit streams, for tests.
func explainMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per recipient record")
	var ruleFiles stringList
	fs.Var(&ruleFiles, "rules", "extra rules `FILE`, loaded before the built-in rules (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: ndrmilter explain [--json] [--rules FILE] FILE... (\"-\" reads standard input)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	engine, err := rules.Load(ruleFiles...)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
		return 2
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	status := 0
	for _, name := range fs.Args() {
		raw, err := readInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
			status = 1
			continue
		}
		for report, err := range dsn.ParseAll(raw) { // an mbox gives each of its messages
			if err != nil {
				// A best-effort report still says what could be read.
				fmt.Fprintf(stderr, "ndrmilter explain: %s: %v\n", name, err)
			}
			if report == nil {
				status = 1
				continue
			}
			readings := engine.Explain(report)
			if *asJSON {
				enc := json.NewEncoder(out)
				for _, rd := range readings {
					if err := enc.Encode(newExplainRecord(name, report, rd)); err != nil {
						fmt.Fprintf(stderr, "ndrmilter explain: %v\n", err)
						return 2
					}
				}
			} else {
				writeExplainText(out, name, report, readings)
			}
		}
	}
	return status
}

// readInput reads a file, or standard input for "-", up to maxExplainInput.
func readInput(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxExplainInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(raw) > maxExplainInput {
		// Keep the head: reports put what matters first.
		raw = raw[:maxExplainInput]
	}
	return raw, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
