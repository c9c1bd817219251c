package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/ndrmilter/ndrmilter/rules"
)

// codeRecord is the JSON form of "ndrmilter code --json". Keys are fixed by
// the issue "Bounce understanding".
type codeRecord struct {
	Code         string       `json:"code"`
	Status       string       `json:"status"`
	StatusSource string       `json:"status_source"` // server (it was in the argument), inferred, or ""
	ReplyCode    string       `json:"reply_code"`
	Reason       rules.Reason `json:"reason"`
	Permanent    bool         `json:"permanent"`
	HardBounce   bool         `json:"hard_bounce"`
	Owner        rules.Owner  `json:"owner"`
	Summary      string       `json:"summary"`
	Explanation  string       `json:"explanation"`
	Fix          string       `json:"fix"`
	Rule         string       `json:"rule"`    // the rule that decided, "" when none
	Matched      string       `json:"matched"` // what decided in it: the code, a phrase...
	Facts        rules.Facts  `json:"facts"`   // what the server named: list, limit, host...
}

// codeOptions are code's flags.
type codeOptions struct {
	asJSON bool
	rules  stringList
}

// codeFlagSet defines code's flags.
func codeFlagSet() (*flag.FlagSet, *codeOptions) {
	o := &codeOptions{}
	fs := flag.NewFlagSet("code", flag.ContinueOnError)
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	fs.Var(&o.rules, "rules", "extra rules `FILE`, loaded before the built-in rules (repeatable)")
	return fs, o
}

// codeArgument matches what code explains (after an optional
// "Diagnostic-Code:" and an optional RFC 3464 diagnostic type such as
// "smtp;"): a reply code (RFC 5321, section 4.2: three digits, the first 2
// to 5, the second 0 to 5) or an enhanced status code (RFC 3463, section 2:
// class 2, 4 or 5, then subject and detail of one to three digits), alone or
// at the start of a reply line.
var codeArgument = regexp.MustCompile(`(?is)^(?:diagnostic-code:\s*)?(?:[a-z][a-z0-9-]*;\s*)?` +
	`((?:[2-5][0-5][0-9](?:[ \t-]|$)|[245]\.[0-9]{1,3}\.[0-9]{1,3}(?:[ \t]|$)).*)$`)

// codeMain is "ndrmilter code [--json] CODE_OR_REPLY" (the SMTP error code
// lookup), on explicit streams.
func codeMain(args []string, stdout, stderr io.Writer) int {
	fs, o := codeFlagSet()
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), commandByName("code").usageText()) }
	// Flags may come after the code: "ndrmilter code 5.7.509 --json".
	words, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" {
		fmt.Fprintln(stderr, "ndrmilter code: give an enhanced status code (5.7.509), a reply code (550) or a reply line ('550 5.7.26 ...')")
		return exitUsage
	}
	m := codeArgument.FindStringSubmatch(text)
	if m == nil {
		fmt.Fprintf(stderr, "ndrmilter code: %q is not a status code or a reply: expected an enhanced status code (5.7.509), "+
			"a reply code (550) or a reply line that starts with one ('550 5.7.26 ...'); to read a whole message, use ndrmilter explain\n",
			clip(text, 60))
		return exitUsage
	}
	lookup := m[1]
	engine, err := rules.Load(o.rules...)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter code: %v\n", err)
		return exitConfig
	}
	v := engine.Lookup(lookup)
	if o.asJSON {
		rec := codeRecord{Code: text, Status: v.Status, StatusSource: string(v.StatusSource), ReplyCode: v.ReplyCode,
			Reason: v.Reason, Permanent: v.Permanent, HardBounce: v.HardBounce, Owner: v.Owner, Summary: v.Summary,
			Explanation: v.Explanation, Fix: v.Fix, Rule: v.Rule, Matched: v.Matched, Facts: v.Facts}
		if err := json.NewEncoder(stdout).Encode(rec); err != nil {
			return exitNo
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "%s\n", text)
	// Only the codes given: a status ndrmilter inferred is not shown as one.
	given := v.ReplyCode
	if v.StatusSource == rules.StatusServer {
		given = strings.TrimSpace(given + " " + v.Status)
	}
	if given != "" {
		fmt.Fprintf(stdout, "  Code:             %s\n", given)
	}
	fmt.Fprintf(stdout, "  What it means:    %s\n", v.Explanation)
	fmt.Fprintf(stdout, "  Who must fix it:  %s\n", ownerWords[v.Owner])
	if v.Fix != "" {
		fmt.Fprintf(stdout, "  How to fix it:    %s\n", v.Fix)
	}
	fmt.Fprintf(stdout, "  Reason:           %s", v.Reason)
	switch {
	case v.Reason == rules.ReasonDelivered:
		fmt.Fprintf(stdout, " (success)\n")
	case v.Permanent:
		fmt.Fprintf(stdout, " (permanent)\n")
	default:
		fmt.Fprintf(stdout, " (temporary)\n")
	}
	if v.Rule != "" {
		fmt.Fprintf(stdout, "  Rule:             %s (matched %q)\n", v.Rule, v.Matched)
	}
	return exitOK
}

// clip shortens s to at most n bytes for an error message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
