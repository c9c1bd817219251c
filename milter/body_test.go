package milter

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	gomilter "github.com/emersion/go-milter"
)

// bigReport is a bounce of about size bytes: the usual report with a large
// plain-text part of the original's log at the end.
func bigReport(size int) []byte {
	raw := report("big.1@example.org", "alice@example.org", "bob@remote.example", "5.1.1", "550 5.1.1 user unknown")
	var part strings.Builder
	part.WriteString("--BOUNDARY.1\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Description: Transcript\r\n\r\n")
	for i := 0; len(raw)+part.Len() < size; i++ {
		fmt.Fprintf(&part, "%08d transcript line of the remote session, kept for the admins to read later\r\n", i)
	}
	part.WriteString("the last line of the transcript\r\n")
	return bytes.Replace(raw, []byte("--BOUNDARY.1--"), []byte(part.String()+"--BOUNDARY.1--"), 1)
}

// With body_summary on, a 2 MB bounce gets its new body in packets of at
// most 64 KiB: go-milter's client (like libmilter) refuses a packet over
// 1 MiB, which would have cut the connection and left the bounce without
// its headers.
func TestBodySummaryOfA2MBBounceIsSentInChunks(t *testing.T) {
	l := openLedger(t, t.TempDir())
	defer l.Close()
	_, addr := startServer(t, Config{BodySummary: true}, l)
	mx := dial(t, newClient(addr), "203.0.113.25")
	defer mx.close()
	raw := bigReport(2_000_000)
	r, err := mx.send(envelope{from: "", rcpts: []string{"alice@example.org"}, raw: raw})
	if err != nil {
		t.Fatalf("a %d-byte bounce with body_summary: %v", len(raw), err)
	}
	a := checkNDRHeaders(t, raw, r)
	if len(a.get("X-NDR-Backscatter")) != 1 {
		t.Fatalf("no X-NDR-Backscatter: %+v", r.mods)
	}
	packets := 0
	for _, md := range r.mods {
		if md.Code == gomilter.ActReplBody {
			packets++
			if len(md.Body) > 64<<10 {
				t.Fatalf("a body replacement packet of %d bytes, want at most 64 KiB", len(md.Body))
			}
			if bytes.Contains(md.Body, []byte("\r")) {
				t.Fatal("a CR left in a body packet: a CRLF was split between two packets")
			}
		}
	}
	_, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	want := bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	got := a.body
	i := bytes.Index(got, []byte("[ndrmilter] What this bounce means:"))
	j := bytes.Index(got, []byte("This is the mail system at host"))
	if i < 0 || j < i || packets < 30 {
		t.Fatalf("summary at %d, the text at %d, in %d packets", i, j, packets)
	}
	// The body is the old one with the summary in front of the first text.
	p := bytes.Index(want, []byte("This is the mail system at host"))
	if i != p || !bytes.Equal(got[:p], want[:p]) || !bytes.Equal(got[j:], want[p:]) {
		t.Fatalf("new body of %d bytes, old one %d: not the old body with the summary inserted at %d", len(got), len(want), p)
	}
}
