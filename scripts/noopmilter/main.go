// Command noopmilter is the baseline of scripts/bench-postfix: a milter built
// on github.com/emersion/go-milter that does nothing. It asks Postfix for
// every stage (connect to end of body, like ndrmilter) and answers continue,
// then accept at end of message, so that what it costs is the library and
// the protocol alone.
//
// Usage: noopmilter [-listen 127.0.0.1:PORT]
package main

import (
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	gomilter "github.com/emersion/go-milter"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8892", "TCP `ADDRESS` to listen on (loopback)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("noopmilter: %v", err)
	}
	// sessions counts the milter sessions (one per connection, and one more
	// after each final response), printed at exit as proof of traffic.
	var sessions atomic.Int64
	srv := &gomilter.Server{
		NewMilter: func() gomilter.Milter { sessions.Add(1); return gomilter.NoOpMilter{} },
		Actions:   gomilter.OptAddHeader | gomilter.OptChangeHeader,
	}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != gomilter.ErrServerClosed {
		log.Fatalf("noopmilter: %v", err)
	}
	log.Printf("noopmilter: %d sessions", sessions.Load())
}
