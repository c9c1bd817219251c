package dsn

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// TestIndexFoldFindsWhatALowerCaseCopyFinds holds indexFold (which lowers
// the text a chunk at a time) to strings.Index over a lower-case copy:
// matches at the start, at the end, across the border of two chunks, and
// none, in texts shorter and longer than a chunk.
func TestIndexFoldFindsWhatALowerCaseCopyFinds(t *testing.T) {
	rnd := rand.New(rand.NewSource(14))
	const alphabet = "aAbByY ,.-\n\xc3\xa9"
	subs := []string{"ab", "by", " by ", "aby", "ab ab", "y", "expanded from", strings.Repeat("ab", foldChunk/3)}
	for n := 0; n < 3000; n++ {
		size := rnd.Intn(3 * foldChunk)
		if n%4 == 0 {
			size = rnd.Intn(40)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = alphabet[rnd.Intn(len(alphabet))]
		}
		s := string(b)
		for _, sub := range subs {
			if n%3 == 0 && len(s) > foldChunk {
				// Plant a match across the first chunk's end.
				at := foldChunk - len(sub)/2
				if at >= 0 && at+len(sub) <= len(s) {
					s = s[:at] + strings.ToUpper(sub) + s[at+len(sub):]
				}
			}
			want := strings.Index(ascii.LowerString(s), sub)
			if got := indexFold(s, sub); got != want {
				t.Fatalf("indexFold(%q, %q) = %d, a lower-case copy gives %d", s, sub, got, want)
			}
			if got := indexFoldBytes([]byte(s), sub); got != want {
				t.Fatalf("indexFoldBytes(%q, %q) = %d, a lower-case copy gives %d", s, sub, got, want)
			}
		}
	}
	if got := indexFold("", "ab"); got != -1 {
		t.Errorf(`indexFold("", "ab") = %d, want -1`, got)
	}
	if got := indexFoldBytes(nil, "ab"); got != -1 {
		t.Errorf(`indexFoldBytes(nil, "ab") = %d, want -1`, got)
	}
}
