package rules

import (
	"slices"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// TestQuoteTypeCutsWhatQuotePrefixCuts: on a reply without "said" or
// "after", quoteType cuts off what quotePrefix does, for every diagnostic of
// the repository's fixtures and a few written ones.
func TestQuoteTypeCutsWhatQuotePrefixCuts(t *testing.T) {
	diags := []string{
		"smtp; 550 5.1.1 <bob@example.com>: Recipient address rejected",
		"X-Postfix;  host mx.example.com[192.0.2.1] refused: no such user",
		"x-unix; mail.local: unknown user: bob",
		"550-5.1.1 The email account that you tried to reach does not exist.",
		";no type",
		"SMTP; 552 Sa1d nothing of note", // "said" it is not
	}
	for _, d := range fixtureTexts(t) {
		diags = append(diags, string(d))
	}
	compared := 0
	for _, d := range diags {
		s := textclean.ASCII(d, maxDiagnostic)
		if containsFold(s, "said") || containsFold(s, "after") {
			continue
		}
		compared++
		if got, want := quoteType().FindStringIndex(s), quotePrefix().FindStringIndex(s); !slices.Equal(got, want) {
			t.Errorf("reply %q: quoteType cuts %v, quotePrefix %v", s, got, want)
		}
	}
	if compared < 20 {
		t.Fatalf("only %d replies compared", compared)
	}
}
