package milter

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ndrmilter/ndrmilter/decide"
)

// BenchmarkBounceProcessing is the CPU one bounce costs in the milter,
// without the network: parse, classify, judge against bbolt, format headers.
func BenchmarkBounceProcessing(b *testing.B) {
	l := openLedger(b, b.TempDir())
	defer l.Close()
	srv, err := New(Config{Domains: []string{"example.org"}}, testEngine(b), l, nil, prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	raw := report("proc.1@example.org", "alice@example.org", "bob@remote.example", "5.1.1",
		"550 5.1.1 <bob@remote.example>: Recipient address rejected: User unknown in virtual mailbox table")
	cfg := srv.config()
	b.ReportAllocs()
	for b.Loop() {
		s := &session{srv: srv}
		s.msg = message{cfg: cfg, route: decide.Route{Candidate: true}, rcpts: []string{"alice@example.org"}}
		s.msg.text.add(raw)
		out := s.inbound(&s.msg)
		if len(out.Add) < 3 {
			b.Fatalf("headers: %+v", out.Add)
		}
	}
}
