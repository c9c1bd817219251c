package message

import (
	"bytes"
	"testing"
)

// FuzzRead: whatever the input, Read keeps to the caps and its parts point
// where they say, and decoding them stays within the limit.
func FuzzRead(f *testing.F) {
	f.Add([]byte(report))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Transfer-Encoding: base64\n\nYWJj\n--x"))
	f.Add([]byte("Subject: =?utf-8?B?w6k=?= =?x?Q?y?=\n\n<p>a&amp;b"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := Read(raw)
		if len(m.Header) > MaxHeaderFields || len(m.Parts) > MaxParts {
			t.Fatalf("%d fields, %d parts: over the caps", len(m.Header), len(m.Parts))
		}
		for i := range m.Parts {
			p := &m.Parts[i]
			if p.Offset < 0 || p.Offset+len(p.Body) > len(raw) || !bytes.Equal(raw[p.Offset:p.Offset+len(p.Body)], p.Body) {
				t.Fatalf("part %d: Offset %d does not point at its body", i, p.Offset)
			}
			if p.Depth > MaxDepth {
				t.Fatalf("part %d at depth %d", i, p.Depth)
			}
			if d, _ := p.Decode(64); len(d) > 64*4 {
				// A charset may make the decoded text longer than the cut
				// input, never by more than a few times.
				t.Fatalf("part %d decoded to %d bytes with limit 64", i, len(d))
			}
		}
		for _, f := range m.Header {
			DecodeWords(string(f.Value()))
		}
		HTMLText(raw)
	})
}
