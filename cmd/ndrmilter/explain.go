package main

import (
	"fmt"
	"os"
)

// runExplain is the "explain" subcommand. PLACEHOLDER: a helper replaces this file.
func runExplain(args []string) int {
	fmt.Fprintln(os.Stderr, "ndrmilter explain: not implemented yet")
	return 2
}
