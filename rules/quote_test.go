package rules

import (
	"slices"
	"strings"
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

// TestPlainWordsIsFieldsJoined: plainWords gives what strings.Fields and
// strings.Join give, with double quotes made single, on the printable
// ASCII that quoteReply reads, the fixtures' diagnostics among it.
func TestPlainWordsIsFieldsJoined(t *testing.T) {
	texts := []string{"", " ", "a", " a ", "a  b", `say "hi"  now `, "x\ty\n z", "already plain words", `"`, "  lead", "trail  "}
	for _, d := range fixtureTexts(t) {
		texts = append(texts, textclean.ASCII(string(d), maxDiagnostic), " "+string(d)+"  ")
	}
	for _, s := range texts {
		want := strings.Join(strings.Fields(strings.ReplaceAll(s, `"`, "'")), " ")
		if got := plainWords(s); got != want {
			t.Errorf("plainWords(%q) = %q, want %q", s, got, want)
		}
	}
}
