package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// corpusDir is the shared corpus, when present beside the repository.
const corpusDir = "../../shared/corpus/sisimai/eml"

// BenchmarkParseAndExplainCorpus is the speed figure: dsn.Parse then
// Engine.Explain over every message of the shared corpus, in memory. Run it on
// one core: go test -run '^$' -bench ParseAndExplain -benchmem -cpu 1 ./rules
// msgs/s is the figure to compare with the 40,000 messages/s target.
func BenchmarkParseAndExplainCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.eml"))
	if len(files) == 0 {
		b.Skip("shared corpus not present")
	}
	var msgs [][]byte
	var total int64
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, raw)
		total += int64(len(raw))
	}
	e := builtin(b)
	b.SetBytes(total / int64(len(msgs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := dsn.Parse(msgs[i%len(msgs)])
		if r != nil {
			e.Explain(r)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkExplainCorpus is Explain alone over the parsed corpus: the share
// of the rules engine in the figure above.
func BenchmarkExplainCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.eml"))
	if len(files) == 0 {
		b.Skip("shared corpus not present")
	}
	var reports []*dsn.Report
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if r, _ := dsn.Parse(raw); r != nil {
			reports = append(reports, r)
		}
	}
	e := builtin(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Explain(reports[i%len(reports)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkLoad is the cost of reading and compiling the built-in rules
// (start-up and reload).
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}
