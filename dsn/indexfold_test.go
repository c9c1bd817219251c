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

// TestNeedsCollapseFindsWhatAByteLoopFinds holds needsCollapse (eight
// bytes at a time) to the byte loop it replaced: a tab, CR or LF anywhere,
// or two spaces in a row, within a word of eight bytes or across two.
func TestNeedsCollapseFindsWhatAByteLoopFinds(t *testing.T) {
	loop := func(s string) bool {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '\t' || c == '\n' || c == '\r' || c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
				return true
			}
		}
		return false
	}
	rnd := rand.New(rand.NewSource(14))
	const alphabet = "ab \x00\x20\x21\x1f\x09\x0a\x0d\x89\xa0\xff!"
	for n := 0; n < 50000; n++ {
		b := make([]byte, rnd.Intn(40))
		for i := range b {
			b[i] = alphabet[rnd.Intn(len(alphabet))]
			if rnd.Intn(3) > 0 && b[i] != ' ' {
				b[i] = 'x' // mostly plain text, so that the rare bytes stand alone
			}
		}
		if got, want := needsCollapse(string(b)), loop(string(b)); got != want {
			t.Fatalf("needsCollapse(%q) = %v, the byte loop gives %v", b, got, want)
		}
	}
}
