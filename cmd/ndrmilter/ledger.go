package main

import (
	"fmt"
	"os"
)

// runLedger is the "ledger" subcommand. PLACEHOLDER: a helper replaces this file.
func runLedger(args []string) int {
	fmt.Fprintln(os.Stderr, "ndrmilter ledger: not implemented yet")
	return 2
}
