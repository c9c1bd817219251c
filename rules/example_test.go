package rules_test

import (
	"fmt"

	"github.com/ndrmilter/ndrmilter/rules"
)

func Example() {
	e, err := rules.Load() // the built-in rules only
	if err != nil {
		panic(err)
	}
	c := e.Lookup("5.7.509")
	fmt.Println(c.Owner)
	fmt.Println(c.Summary)
	// Output:
	// sender-admin
	// DMARC failure (p=reject)
}
