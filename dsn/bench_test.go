package dsn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir is the shared bounce corpus, beside the repository (../shared
// from the repository root). The corpus benchmark skips when it is absent.
var corpusDir = filepath.Join("..", "..", "shared", "corpus", "sisimai", "eml")

// loadMessages reads every *.eml of dir.
func loadMessages(b *testing.B, dir string) (msgs [][]byte, size int64) {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		m, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, m)
		size += int64(len(m))
	}
	return msgs, size
}

// benchParse parses every message once per iteration and reports
// messages per second next to the MB/s of SetBytes.
func benchParse(b *testing.B, msgs [][]byte, size int64) {
	if len(msgs) == 0 {
		b.Skip("no messages")
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			if _, err := Parse(m); err != nil && !isBenignError(err) {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N*len(msgs))/s, "msgs/s")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/msg")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		for _, m := range msgs {
			Parse(m)
		}
	}))/float64(len(msgs)), "allocs/msg")
}

// isBenignError says whether err is one a corpus message may well cause
// (no header at all), as opposed to a bug.
func isBenignError(err error) bool {
	return err != nil && !errors.Is(err, ErrInternal)
}

// BenchmarkParse measures Parse over the fixtures (dsn/testdata and
// internal/testdata/bounces), ordinary mail and, when present, the shared
// corpus, in msgs/s, MB/s and allocations per message. Run it on one core:
// GOMAXPROCS=1 go test -run '^$' -bench Parse -benchmem ./dsn
func BenchmarkParse(b *testing.B) {
	b.Run("fixtures", func(b *testing.B) {
		msgs, size := loadMessages(b, "testdata")
		benchParse(b, msgs, size)
	})
	b.Run("bounces", func(b *testing.B) {
		// The repository's own bounce fixtures (internal/testdata).
		msgs, size := loadMessages(b, filepath.Join("..", "internal", "testdata", "bounces", "eml"))
		benchParse(b, msgs, size)
	})
	b.Run("ordinary", func(b *testing.B) {
		// What the milter sees most: mail that is no report at all.
		var msgs [][]byte
		var size int64
		for _, name := range []string{"not-bounce.eml", "newsletter.eml"} {
			m := readFixture(b, name)
			msgs = append(msgs, m)
			size += int64(len(m))
		}
		big := []byte("From: Ann <ann@example.com>\nTo: ben@example.org\nSubject: report\nMessage-ID: <big-1@example.com>\nContent-Type: text/plain\n\n" +
			strings.Repeat("The quarterly figures are attached; the delivery of parts was late.\n", 3000))
		msgs = append(msgs, big)
		size += int64(len(big))
		benchParse(b, msgs, size)
	})
	b.Run("corpus", func(b *testing.B) {
		if _, err := os.Stat(corpusDir); err != nil {
			b.Skipf("shared corpus not found at %s", corpusDir)
		}
		msgs, size := loadMessages(b, corpusDir)
		benchParse(b, msgs, size)
	})
}
