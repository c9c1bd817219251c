package main

import (
	"fmt"
	"os"
)

// runServe is the "serve" subcommand. PLACEHOLDER: a helper replaces this file.
func runServe(args []string) int {
	fmt.Fprintln(os.Stderr, "ndrmilter serve: not implemented yet")
	return 2
}
