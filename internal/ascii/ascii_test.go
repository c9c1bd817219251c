package ascii

import "testing"

func TestToLower(t *testing.T) {
	// Every byte value, at every offset of the eight-byte words.
	var in []byte
	for i := 0; i < 256; i++ {
		in = append(in, byte(i))
	}
	in = append(in, "MiXeD Case ÄÖÜ @EXAMPLE.COM [Z] `a{"...)
	for off := 0; off < 8; off++ {
		got := ToLower(in[off:])
		for i, c := range in[off:] {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 'a' - 'A'
			}
			if got[i] != want {
				t.Fatalf("offset %d, byte %d (%#x): got %#x, want %#x", off, i, c, got[i], want)
			}
		}
	}
}
