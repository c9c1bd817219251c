package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/rules"
)

// codeOptions are code's flags.
type codeOptions struct {
	asJSON bool
	rules  stringList
	lang   languageFlag
}

// codeFlagSet defines code's flags.
func codeFlagSet() (*flag.FlagSet, *codeOptions) {
	o := &codeOptions{}
	fs := flag.NewFlagSet("code", flag.ContinueOnError)
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object")
	fs.Var(&o.rules, "rules", "extra rules `FILE`, loaded before the built-in rules (repeatable)")
	fs.Var(&o.lang, "lang", "write the words in `LANG` (en, de, es, fr, ja; default en)")
	return fs, o
}

// codeMain is "ndrmilter code [--json] [--lang LANG] CODE_OR_REPLY" (the SMTP error code
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
	q, err := explanation.ParseCodeQuery(strings.Join(words, " "))
	if err != nil {
		if errors.Is(err, explanation.ErrNotACode) {
			err = fmt.Errorf("%w (ndrmilter explain FILE)", err)
		}
		fmt.Fprintf(stderr, "ndrmilter code: %v\n", err)
		return exitUsage
	}
	text := q.Text
	engine, err := rules.Load(o.rules...)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter code: %v\n", err)
		return exitConfig
	}
	tag, err := offeredLanguage(o.lang, engine)
	if err != nil {
		fmt.Fprintf(stderr, "ndrmilter code: %v\n", err)
		return exitUsage
	}
	lw := wordsIn(tag)
	rec := q.LookupIn(engine, tag)
	v := rec
	if o.asJSON {
		if err := json.NewEncoder(stdout).Encode(rec); err != nil {
			return exitNo
		}
		return exitOK
	}
	// The lines go out in one write: a Fprintf to the process's stdout is a
	// write call of its own (issue 14: start-up).
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n", text)
	// Only the codes given: a status ndrmilter inferred is not shown as one.
	given := v.ReplyCode
	if v.StatusSource == rules.StatusServer {
		given = strings.TrimSpace(given + " " + v.Status)
	}
	if given != "" {
		fmt.Fprintf(&b, "  %s%s\n", lw.label("cli.code", lw.width), given)
	}
	fmt.Fprintf(&b, "  %s%s\n", lw.label("cli.means", lw.width), v.Explanation)
	owner := lw.owner(v.Owner)
	if v.Reason == rules.ReasonDelivered {
		// A success code: nothing failed, so nobody has to wait or act.
		owner = lw.text("cli.owner.nofailure")
	}
	fmt.Fprintf(&b, "  %s%s\n", lw.label("cli.who", lw.width), owner)
	if v.Fix != "" {
		fmt.Fprintf(&b, "  %s%s\n", lw.label("cli.fix", lw.width), v.Fix)
	}
	reason := string(v.Reason)
	switch {
	case v.Reason == rules.ReasonDelivered:
		reason = lw.text("cli.success", "value", reason)
	case v.Permanent:
		reason = lw.text("cli.permanent", "value", reason)
	default:
		reason = lw.text("cli.temporary", "value", reason)
	}
	fmt.Fprintf(&b, "  %s%s\n", lw.label("cli.reason", lw.width), reason)
	if v.Rule != "" {
		fmt.Fprintf(&b, "  %s%s\n", lw.label("cli.rule", lw.width), lw.text("cli.matched", "rule", v.Rule, "phrase", strconv.Quote(v.Matched)))
	}
	stdout.Write(b.Bytes())
	return exitOK
}
