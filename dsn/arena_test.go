package dsn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestParseArenaReuse checks that the pooled arena leaves nothing behind
// from one Parse to the next: every fixture parsed after all the others,
// and from several goroutines at once, gives the same Report as parsed
// first and alone.
func TestParseArenaReuse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.eml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var msgs [][]byte
	var want []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, raw)
		want = append(want, reportJSON(t, raw))
	}
	// Once more, in reverse order: each after a different predecessor.
	for i := len(msgs) - 1; i >= 0; i-- {
		if got := reportJSON(t, msgs[i]); got != want[i] {
			t.Errorf("%s parsed after others:\n got %s\nwant %s", files[i], got, want[i])
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(msgs))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range msgs {
				i := (k + g) % len(msgs)
				r, _ := Parse(msgs[i])
				b, _ := json.Marshal(r)
				if string(b) != want[i] {
					errs <- files[i]
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for f := range errs {
		t.Errorf("%s: a different report when parsed concurrently", f)
	}
}

// TestReportOutlivesInput checks that a Report does not point into the
// message it was read from (the arena and the caller may reuse that
// memory): overwriting the input after Parse changes nothing.
func TestReportOutlivesInput(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "postfix.eml"))
	if err != nil {
		t.Fatalf("the committed fixture testdata/postfix.eml: %v", err)
	}
	buf := append([]byte(nil), raw...)
	r, _ := Parse(buf)
	before, _ := json.Marshal(r)
	for i := range buf {
		buf[i] = 'x'
	}
	Parse(buf) // and the arena goes round again
	after, _ := json.Marshal(r)
	if string(before) != string(after) {
		t.Errorf("report changed with its input:\nbefore %s\nafter  %s", before, after)
	}
	if r.Kind != KindBounce || len(r.Recipients) == 0 {
		t.Errorf("postfix.eml read as %v with %d recipients, want a bounce", r.Kind, len(r.Recipients))
	}
}

func reportJSON(t *testing.T, raw []byte) string {
	t.Helper()
	r, _ := Parse(raw)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
