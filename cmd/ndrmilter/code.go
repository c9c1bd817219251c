package main

import (
	"fmt"
	"os"
)

// runCode is the "code" subcommand. PLACEHOLDER: a helper replaces this file.
func runCode(args []string) int {
	fmt.Fprintln(os.Stderr, "ndrmilter code: not implemented yet")
	return 2
}
