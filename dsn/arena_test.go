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

// TestReportsOutliveLaterParses checks that a Report keeps nothing of the
// pooled memory of the Parse that made it (the parser, its scratch, the
// arena, the scanner's buffers): every fixture's Report, kept while all
// the others are parsed after it, is the same as when it was returned.
func TestReportsOutliveLaterParses(t *testing.T) {
	var files []string
	for _, dir := range []string{"testdata", filepath.Join("..", "internal", "testdata", "bounces", "eml")} {
		f, err := filepath.Glob(filepath.Join(dir, "*.eml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 50 {
		t.Fatalf("%d fixtures found, expected the committed ones (50 or more)", len(files))
	}
	reports := make([]*Report, len(files))
	want := make([]string, len(files))
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		reports[i], _ = Parse(raw)
		b, err := json.Marshal(reports[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = string(b)
	}
	for i, r := range reports {
		if b, _ := json.Marshal(r); string(b) != want[i] {
			t.Errorf("%s: its Report changed while later messages were parsed:\n got %s\nwant %s", files[i], b, want[i])
		}
	}
}
