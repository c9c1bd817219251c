// Command ndrmilter explains bounce messages and, as a Postfix milter, enriches
// them in flight, records outbound mail and catches backscatter.
//
// Usage:
//
//	ndrmilter explain [--json] [--why] [--lang LANG] [--rules FILE] INPUT...
//	ndrmilter code [--json] [--lang LANG] [--rules FILE] CODE|REPLY
//	ndrmilter serve [--config FILE] [flags]
//	ndrmilter config check [--config FILE]
//	ndrmilter ledger import|lookup|stats ...
//	ndrmilter version
//
// "ndrmilter --help" lists the commands and the exit status table;
// "ndrmilter COMMAND --help" gives each command's own flags. The man pages
// (doc/man) are generated from the same definitions.
package main

//go:generate go test -run ^TestGeneratedDocs$ -update .

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(runMain(os.Args[1:], cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// cliEnv is the streams a command reads and writes.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// runMain dispatches the command line (without the program name) and
// returns the exit status.
func runMain(args []string, env cliEnv) int {
	if len(args) == 0 {
		fmt.Fprint(env.stderr, mainUsage())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if sc := findCommandByFirstWord(args[1]); sc != nil {
				fmt.Fprint(env.stdout, sc.usageText())
				return exitOK
			}
		}
		fmt.Fprint(env.stdout, mainUsage())
		return exitOK
	case "-version", "--version", "-V":
		return runVersion(args[1:], env)
	}
	sc := findCommand(args)
	if sc == nil {
		if sc := findCommandByFirstWord(args[0]); sc != nil && helpRequested(args[1:]) {
			fmt.Fprint(env.stdout, sc.usageText())
			return exitOK
		}
		if args[0] == "config" {
			fmt.Fprintf(env.stderr, "ndrmilter config: expected the subcommand check\n%s", commandByName("config check").usageText())
			return exitUsage
		}
		fmt.Fprintf(env.stderr, "ndrmilter: unknown command %q\n%s", args[0], mainUsage())
		return exitUsage
	}
	rest := args[len(sc.words()):]
	if helpRequested(rest) {
		fmt.Fprint(env.stdout, sc.usageText())
		return exitOK
	}
	return sc.run(rest, env)
}
