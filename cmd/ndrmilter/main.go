// Command ndrmilter explains bounce messages and, as a Postfix milter, enriches
// them in flight, records outbound mail and catches backscatter.
//
// Usage:
//
//	ndrmilter explain [--json] [--rules FILE] FILE...
//	ndrmilter code [--json] CODE_OR_REPLY
//	ndrmilter serve [flags]
//	ndrmilter ledger import|lookup|stats ...
package main

import (
	"fmt"
	"os"
)

// command is one subcommand: it gets the arguments after its name and returns
// the process exit status.
type command func(args []string) int

var commands = map[string]command{
	"explain": runExplain,
	"code":    runCode,
	"serve":   runServe,
	"filter":  runFilter,
	"ledger":  runLedger,
}

const usage = `usage:
  ndrmilter explain [--json] [--rules FILE] FILE...   explain bounce messages ("-" reads stdin)
  ndrmilter code [--json] [--rules FILE] CODE_OR_REPLY  explain a status code or reply line
  ndrmilter serve [flags]                              run as a Postfix milter
  ndrmilter ledger import|lookup|stats ...             the sent-mail ledger
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		if os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
			fmt.Print(usage)
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "ndrmilter: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	os.Exit(cmd(os.Args[2:]))
}
