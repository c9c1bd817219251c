package dsn

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// TestHeaderWordSetsFindWhatASearchPerWordFinds holds headerContainsAny
// and headerHolds (one pass of a phraseSet over the field) to a search per
// word of the list over the decoded, lower-case field, for the Subject
// word lists, with words in upper case, split, encoded (RFC 2047) and in
// long values.
func TestHeaderWordSetsFindWhatASearchPerWordFinds(t *testing.T) {
	rnd := rand.New(rand.NewSource(14))
	for _, set := range []*phraseSet{bounceSubjectSet, autoReplySubjectSet, delaySubjectSet, receiptSubjectSet, heldSubjectSet, fmlSubjectSet} {
		pieces := []string{" ", "x", "Re: ", "=?utf-8?q?Undeliverable?=", strings.Repeat("z", 300)}
		for _, w := range set.phrases {
			pieces = append(pieces, w, strings.ToUpper(w), w[:len(w)/2])
		}
		for n := 0; n < 3000; n++ {
			var b strings.Builder
			for k := rnd.Intn(5); k >= 0; k-- {
				b.WriteString(pieces[rnd.Intn(len(pieces))])
			}
			subject := b.String()
			h, _, _ := message.ReadHeader([]byte("Subject: " + subject + "\n\n"))
			low := ascii.LowerString(message.DecodeWords(h.GetString("Subject")))
			want := false
			for _, w := range set.phrases {
				if strings.Contains(low, w) {
					want = true
				}
			}
			if got := headerContainsAny(h, "Subject", set); got != want {
				t.Fatalf("headerContainsAny(Subject: %q) = %v, a search per word gives %v", subject, got, want)
			}
			if got := headerHolds(h, "Subject", set); got != want {
				t.Fatalf("headerHolds(Subject: %q) = %v, a search per word gives %v", subject, got, want)
			}
		}
	}
}
