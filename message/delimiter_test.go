package message

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestIndexDelimiterFindsWhatIndexFinds compares indexDelimiter with
// bytes.Index over texts made of dashes, boundaries' bytes and line ends,
// where false starts abound.
func TestIndexDelimiterFindsWhatIndexFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("--=_ab\n")
	for _, boundary := range []string{"ab", "-ab", "--", "=_a-b", "----=_Part_1", "-", "a"} {
		delim := []byte("--" + boundary)
		core := bytes.TrimLeft(delim, "-")
		off := len(delim) - len(core)
		for n := 0; n < 2000; n++ {
			b := make([]byte, rng.IntN(40))
			for k := range b {
				b[k] = alphabet[rng.IntN(len(alphabet))]
			}
			for i := 0; i <= len(b); i++ {
				want := bytes.Index(b[i:], delim)
				if want >= 0 {
					want += i
				}
				if got := indexDelimiter(b, i, delim, core, off); got != want {
					t.Fatalf("boundary %q in %q from %d: %d, expected %d", boundary, b, i, got, want)
				}
			}
		}
	}
}
