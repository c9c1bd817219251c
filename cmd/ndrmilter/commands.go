package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// subcommand is one command of the binary. The usage texts, the man page
// ndrmilter(8) and the shell completions are all made from this table and
// the commands' flag sets, so that they cannot drift apart.
type subcommand struct {
	name     string // as typed: "explain", or "config check" for a command with a subcommand word
	synopsis string // what follows the name in the synopsis
	summary  string // one line, for the command list
	about    string // what it does, in a few sentences
	// flags returns a flag set with the command's flags and their defaults,
	// the same definitions the command parses; nil when it has none.
	flags func() *flag.FlagSet
	// usage, when set, is the command's own preformatted usage (ledger),
	// shown instead of the synopsis and the flag list.
	usage string
	exits []exitCode // what each exit status it uses means for it
	run   func(args []string, env cliEnv) int
}

// commands is every command, in the order the usage text lists them. It is
// filled in init: the commands' usage texts refer back to the table.
var commands []*subcommand

func init() {
	commands = []*subcommand{
		{
			name:     "explain",
			synopsis: "[--json] [--why] [--lang LANG] [--rules FILE] INPUT...",
			summary:  "explain bounce messages: files, directories, Maildirs, mbox files, - for standard input",
			about: "Reads each INPUT and says what happened, to which recipient, where, who must fix it and how. " +
				"An INPUT is a message file; a directory (each regular file in it, in name order); a Maildir (the messages " +
				"in its cur/ and new/, in name order, which is delivery order); an mbox file (each message; a file that starts " +
				"with a \"From \" line is read as an mbox); or - for standard input. At most 64 MiB of a message is read. " +
				"The messages of an mbox are named FILE#N (N from 1); in --json, \"file\" is the mbox and \"message\" is N. " +
				"With --lang, the summary, explanation, fix and labels are in that language (en, de, es, fr, ja); the codes, reasons " +
				"and owners stay as they are.",
			flags: func() *flag.FlagSet { fs, _ := explainFlagSet(); return fs },
			exits: []exitCode{
				{exitOK, "every input was read and explained (a message that is not a bounce is explained as such)"},
				{exitNo, "an input could not be read, or held no message (an empty directory or mbox file)"},
				{exitUsage, "an unknown flag, no input, or a --lang ndrmilter does not write"},
				{exitConfig, "a --rules file is rejected"},
			},
			run: func(args []string, env cliEnv) int { return explainMain(args, env.stdin, env.stdout, env.stderr) },
		},
		{
			name:     "code",
			synopsis: "[--json] [--lang LANG] [--rules FILE] CODE|REPLY",
			summary:  "explain an enhanced status code (5.7.509), a reply code (550) or a reply line",
			about: "Explains an enhanced status code (RFC 3463, such as 5.7.509), a reply code (RFC 5321, such as 550) " +
				"or a reply line that starts with one of them (such as '550 5.7.26 Unauthenticated email ...'; " +
				"a Diagnostic-Code: smtp; prefix is allowed). Anything else is refused with exit status 2: to read a whole " +
				"message, use explain.",
			flags: func() *flag.FlagSet { fs, _ := codeFlagSet(); return fs },
			exits: []exitCode{
				{exitOK, "the code was explained"},
				{exitUsage, "an unknown flag, no argument, a --lang ndrmilter does not write, or an argument that is neither an enhanced status code, a reply code nor a reply line"},
				{exitConfig, "a --rules file is rejected"},
			},
			run: func(args []string, env cliEnv) int { return codeMain(args, env.stdout, env.stderr) },
		},
		{
			name:     "serve",
			synopsis: "[--config FILE] [flags]",
			summary:  "run as a Postfix milter",
			about: "Runs the milter: records outbound mail in the ledger, explains inbound bounces in X-NDR-* headers and " +
				"acts on backscatter. The configuration file (ndrmilter.yaml(5)) holds the settings; a flag given on the " +
				"command line overrides the file's value, and serve logs which values came from flags. " +
				"SIGHUP re-reads the file and the rules files; SIGTERM and SIGINT drain the open sessions and stop. " +
				"A start-up error is one sentence on standard error and an exit status of 3, 4 or 5.",
			flags: func() *flag.FlagSet { fs, _, _ := serveFlagSet(); return fs },
			exits: []exitCode{
				{exitOK, "stopped by SIGTERM or SIGINT, after draining the open sessions"},
				{exitNo, "stopped on an error after it had started (the milter listener failed)"},
				{exitUsage, "an unknown flag or an argument"},
				{exitLedger, "the ledger cannot be opened (the bbolt file is locked by another process, a bad ledger URL); a data directory that cannot be written does not stop serve: it runs without the ledger, and /healthz says so"},
				{exitConfig, "the configuration is rejected: the file, a flag, or a rules file"},
				{exitListen, "the milter socket or the HTTP listener cannot be opened (address in use, permission denied)"},
			},
			run: func(args []string, env cliEnv) int { return serveMain(args, env.stderr) },
		},
		{
			name:     "filter",
			synopsis: "[--config FILE] [flags]",
			summary:  "run as an SMTP filter hop (content_filter, smtpd_proxy_filter, Exim, OpenSMTPD)",
			about: "Runs the SMTP filter: relays each transaction to the next hop (--next) as it happens, answering the client " +
				"with the next hop's own replies, and applies the same decision as serve: outbound mail recorded in the ledger, " +
				"inbound bounces explained in X-NDR-* headers, backscatter acted on. It keeps no queue: with the next hop down or " +
				"slow the client gets a 4xx. XFORWARD is accepted from --trusted-networks. The configuration file takes serve's keys " +
				"and the filter's own (next, listen_outbound, direction, hostname, next_timeout). " +
				"SIGHUP re-reads the file and the rules files; SIGTERM and SIGINT drain the open transactions and stop.",
			flags: func() *flag.FlagSet { fs, _, _ := filterFlagSet(); return fs },
			exits: []exitCode{
				{exitOK, "stopped by SIGTERM or SIGINT, after draining the open transactions"},
				{exitNo, "stopped on an error after it had started (a listener failed)"},
				{exitUsage, "an unknown flag or an argument"},
				{exitLedger, "the ledger cannot be opened"},
				{exitConfig, "the configuration is rejected: the file, a flag, or a rules file"},
				{exitListen, "a listener cannot be opened (address in use, permission denied)"},
			},
			run: func(args []string, env cliEnv) int { return filterMain(args, env.stderr) },
		},
		{
			name:     "config check",
			synopsis: "[--config FILE]",
			summary:  "check the configuration as serve would load it",
			about: "Loads the configuration file and validates everything serve would: the keys, the listen addresses, " +
				"the domains, the trusted networks, the ledger URL and the rules files. Prints a summary and exits 0, or " +
				"prints each problem as FILE:LINE: what is wrong and exits 1. The systemd unit runs it before each reload, " +
				"so that a bad file fails \"systemctl reload\" instead of being only logged.",
			flags: func() *flag.FlagSet { fs, _ := configCheckFlagSet(); return fs },
			exits: []exitCode{
				{exitOK, "the configuration is valid (warnings, if any, on standard error)"},
				{exitNo, "the configuration has a problem: each is printed as FILE:LINE: what is wrong"},
				{exitUsage, "an unknown flag or an argument"},
			},
			run: func(args []string, env cliEnv) int { return configCheckMain(args, env.stdout, env.stderr) },
		},
		{
			name:     "ledger",
			synopsis: "import|lookup|stats [flags] ...",
			summary:  "the sent-mail ledger: import Postfix logs, look up a message, statistics",
			about: "The ledger is the record of the mail that left: a bounce for a message in it is not backscatter. " +
				"import fills it from Postfix logs, lookup says what it knows of a Message-ID or a queue id, stats counts.",
			usage: ledgerUsage,
			exits: []exitCode{
				{exitOK, "done: import read every file and wrote every record; lookup found every ID"},
				{exitNo, "lookup: an ID is not in the ledger; import: a file could not be read, some records were not written, " +
					"or the running service stopped the import at its limit of size or time"},
				{exitUsage, "an unknown subcommand or flag, a missing argument"},
				{exitLedger, "the ledger cannot be opened or used: it (or the running service that holds it) cannot be reached, " +
					"a lookup or stats failed on it, or an import could write none of its records or stopped because the ledger failed"},
			},
			run: func(args []string, env cliEnv) int { return runLedger(args) },
		},
		{
			name:     "version",
			synopsis: "",
			summary:  "print the version, the commit, the Go version and the digest of the built-in rules",
			about: "Prints one line: ndrmilter VERSION (commit C, go GOVERSION, rules R), where R names the built-in rules. " +
				"--version does the same.",
			exits: []exitCode{{exitOK, "always"}},
			run:   runVersion,
		},
	}
}

// words is the command's name as command-line words.
func (sc *subcommand) words() []string { return strings.Fields(sc.name) }

// findCommand returns the command whose name the arguments start with.
func findCommand(args []string) *subcommand {
	for _, sc := range commands {
		w := sc.words()
		if len(args) >= len(w) && strings.Join(args[:len(w)], " ") == sc.name {
			return sc
		}
	}
	return nil
}

// findCommandByFirstWord returns the command whose name starts with word
// ("config" names "config check"), for help.
func findCommandByFirstWord(word string) *subcommand {
	for _, sc := range commands {
		if sc.words()[0] == word {
			return sc
		}
	}
	return nil
}

// commandByName returns the command with that name; it panics on a name
// that is not in the table (a programming error).
func commandByName(name string) *subcommand {
	for _, sc := range commands {
		if sc.name == name {
			return sc
		}
	}
	panic("ndrmilter: no command " + name)
}

// helpRequested reports whether the arguments ask for help (-h, -help or
// --help before any "--").
func helpRequested(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// mainUsage is "ndrmilter --help".
func mainUsage() string {
	var b strings.Builder
	b.WriteString("usage: ndrmilter COMMAND [flags] [arguments]\n\ncommands:\n")
	width := 0
	for _, sc := range commands {
		width = max(width, len(sc.name))
	}
	for _, sc := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, sc.name, sc.summary)
	}
	b.WriteString("\nFlags may come before or after the arguments; -- ends the flags.\n" +
		"\"ndrmilter COMMAND --help\" shows a command's flags; \"ndrmilter --version\" its version.\n\nexit status:\n")
	writeExitCodes(&b, exitCodes)
	return b.String()
}

// usageText is "ndrmilter COMMAND --help".
func (sc *subcommand) usageText() string {
	var b strings.Builder
	if sc.usage != "" {
		b.WriteString(sc.usage)
	} else {
		fmt.Fprintf(&b, "usage: ndrmilter %s %s\n", sc.name, sc.synopsis)
	}
	b.WriteString("\n")
	b.WriteString(wrapText(sc.about, 78, ""))
	if sc.flags != nil {
		b.WriteString("\nflags (before or after the arguments):\n")
		writeFlags(&b, sc.flags())
	}
	b.WriteString("\nexit status:\n")
	writeExitCodes(&b, sc.exits)
	return b.String()
}

// flagDoc is one flag as documented.
type flagDoc struct {
	name, arg, usage, def string
}

// flagDocs lists fs's flags in name order, with their argument names
// (`FILE` in the usage string, as flag.UnquoteUsage reads it).
func flagDocs(fs *flag.FlagSet) []flagDoc {
	var out []flagDoc
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if isBoolFlag(f) {
			arg = ""
		} else if arg == "value" {
			arg = "VALUE"
		}
		def := f.DefValue
		switch def {
		case "", "0", "0s", "false", "[]":
			def = ""
		}
		out = append(out, flagDoc{name: f.Name, arg: arg, usage: usage, def: def})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// writeFlags writes the flag list of a usage text.
func writeFlags(w io.Writer, fs *flag.FlagSet) {
	for _, fd := range flagDocs(fs) {
		head := "  --" + fd.name
		if fd.arg != "" {
			head += " " + fd.arg
		}
		text := fd.usage
		if fd.def != "" {
			text += fmt.Sprintf(" (default %s)", fd.def)
		}
		if len(head) < 24 {
			fmt.Fprintf(w, "%-24s%s", head, wrapText(text, 78-24, strings.Repeat(" ", 24)))
		} else {
			fmt.Fprintf(w, "%s\n%s%s", head, strings.Repeat(" ", 24), wrapText(text, 78-24, strings.Repeat(" ", 24)))
		}
	}
}

// writeExitCodes writes an exit status table.
func writeExitCodes(w io.Writer, codes []exitCode) {
	for _, ec := range codes {
		fmt.Fprintf(w, "  %d  %s", ec.code, wrapText(ec.meaning, 78-5, "     "))
	}
}

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments ("explain a.eml --json" is "explain --json a.eml"),
// and returns the positional arguments in order. After "--" everything is
// positional; "-" alone is positional (standard input).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if endedByTerminator(fs, args[:len(args)-len(rest)]) {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// endedByTerminator reports whether flag parsing of consumed stopped at a
// "--" (rather than the "--" being the value of a flag such as --rules).
func endedByTerminator(fs *flag.FlagSet, consumed []string) bool {
	for i := 0; i < len(consumed); i++ {
		a := consumed[i]
		if a == "--" {
			return true
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
			i++ // its value
		}
	}
	return false
}

// ledgerSubcommands are the words after "ledger", as its usage lists them.
func ledgerSubcommands() []string {
	return uniqueMatches(regexp.MustCompile(`ndrmilter ledger ([a-z]+)`), ledgerUsage)
}

func uniqueMatches(re *regexp.Regexp, s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}
