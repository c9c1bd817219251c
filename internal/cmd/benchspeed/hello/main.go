// Command hello is the reference of "make bench-speed" for start-up: a Go
// hello-world, built with the same flags as ndrmilter in the same run, so
// that the ratio measures what ndrmilter adds to starting a Go process.
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
