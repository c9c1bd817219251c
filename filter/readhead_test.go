package filter

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// The start of a possible report is held up to the parse cap, in a buffer
// that grows with what comes: a small report costs a small buffer, a
// report longer than the cap is held up to the cap and marked incomplete,
// and one of exactly the cap is complete.
func TestReadHeadHoldsTheBodyUpToTheCapInABufferOfItsSize(t *testing.T) {
	const parseCap = 1 << 20
	header := "From: MAILER-DAEMON@remote.example\r\nSubject: Undelivered Mail\r\n\r\n"
	for _, tc := range []struct {
		name      string
		body      int
		wantHeld  int
		complete  bool
		maxBuffer int
	}{
		{"small report", 5000, len(header) + 5000, true, 64 << 10},
		{"report over the cap", 3 << 20, parseCap, false, parseCap},
		{"report of exactly the cap", parseCap - len(header), parseCap, true, parseCap},
	} {
		msg := header + strings.Repeat("x", tc.body)
		h, err := readHead(bufio.NewReaderSize(strings.NewReader(msg), 32<<10), true, parseCap, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(h.raw) != tc.wantHeld || h.complete != tc.complete || !bytes.Equal(h.raw, []byte(msg[:tc.wantHeld])) {
			t.Errorf("%s: held %d bytes (complete %v), want the first %d (complete %v)", tc.name, len(h.raw), h.complete, tc.wantHeld, tc.complete)
		}
		if cap(h.raw) > tc.maxBuffer {
			t.Errorf("%s: buffer of %d bytes for %d held, want at most %d", tc.name, cap(h.raw), len(h.raw), tc.maxBuffer)
		}
	}
}
