package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ndrmilter/ndrmilter/rules"
)

// codeRecord is the JSON form of "ndrmilter code --json". Keys are fixed by
// the issue "Bounce understanding".
type codeRecord struct {
	Code        string       `json:"code"`
	Status      string       `json:"status"`
	ReplyCode   string       `json:"reply_code"`
	Reason      rules.Reason `json:"reason"`
	Permanent   bool         `json:"permanent"`
	HardBounce  bool         `json:"hard_bounce"`
	Owner       rules.Owner  `json:"owner"`
	Summary     string       `json:"summary"`
	Explanation string       `json:"explanation"`
	Fix         string       `json:"fix"`
}

// runCode is "ndrmilter code [--json] CODE_OR_REPLY": the SMTP error code lookup.
func runCode(args []string) int {
	return codeMain(args, os.Stdout, os.Stderr)
}

// codeMain is runCode on explicit streams, for tests.
func codeMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("code", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	var ruleFiles stringList
	fs.Var(&ruleFiles, "rules", "extra rules `FILE`, loaded before the built-in rules (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: ndrmilter code [--json] CODE_OR_REPLY   e.g. 5.7.509, or '550 5.7.26 Unauthenticated email ...'")
		fs.PrintDefaults()
	}
	// Flags may come after the code: "ndrmilter code 5.7.509 --json".
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		args = fs.Args()
		if len(args) > 0 {
			words = append(words, args[0])
			args = args[1:]
		}
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" {
		fs.Usage()
		return 2
	}
	engine, err := rules.Load(ruleFiles...)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter code: %v\n", err)
		return 2
	}
	v := engine.Lookup(text)
	if *asJSON {
		rec := codeRecord{Code: text, Status: v.Status, ReplyCode: v.ReplyCode, Reason: v.Reason,
			Permanent: v.Permanent, HardBounce: v.HardBounce, Owner: v.Owner, Summary: v.Summary,
			Explanation: v.Explanation, Fix: v.Fix}
		if err := json.NewEncoder(stdout).Encode(rec); err != nil {
			return 2
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s\n", text)
	if v.Status != "" || v.ReplyCode != "" {
		fmt.Fprintf(stdout, "  Code:             %s\n", strings.TrimSpace(v.ReplyCode+" "+v.Status))
	}
	fmt.Fprintf(stdout, "  What it means:    %s\n", v.Explanation)
	fmt.Fprintf(stdout, "  Who must fix it:  %s\n", ownerWords[v.Owner])
	if v.Fix != "" {
		fmt.Fprintf(stdout, "  How to fix it:    %s\n", v.Fix)
	}
	fmt.Fprintf(stdout, "  Reason:           %s", v.Reason)
	if v.Permanent {
		fmt.Fprintf(stdout, " (permanent)\n")
	} else {
		fmt.Fprintf(stdout, " (temporary)\n")
	}
	return 0
}
