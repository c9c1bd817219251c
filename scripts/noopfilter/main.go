// Command noopfilter is the baseline of scripts/bench-filter: the no-op
// go-smtp proxy of package noopproxy on a listener.
//
// Usage: noopfilter [-listen 127.0.0.1:9893] [-next 127.0.0.1:9894]
package main

import (
	"errors"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/emersion/go-smtp"

	"github.com/ndrmilter/ndrmilter/scripts/noopfilter/noopproxy"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9893", "`HOST:PORT` to listen on (loopback)")
	next := flag.String("next", "127.0.0.1:9894", "next hop `HOST:PORT`")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("noopfilter: %v", err)
	}
	srv := noopproxy.NewServer(*next)
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, smtp.ErrServerClosed) {
		log.Fatalf("noopfilter: %v", err)
	}
	log.Printf("noopfilter: %d sessions, %d messages", noopproxy.Sessions.Load(), noopproxy.Messages.Load())
}
