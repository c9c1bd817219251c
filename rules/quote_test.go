package rules

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// TestQuoteTypeCutsWhatQuotePrefixCuts: on a reply without "said" or
// "after", typeLen cuts off what quotePrefix does, for every diagnostic of
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
		if got, want := []int{0, typeLen(s)}, quotePrefix().FindStringIndex(s); !slices.Equal(got, want) {
			t.Errorf("reply %q: typeLen cuts %v, quotePrefix %v", s, got, want)
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

// TestContainsFoldFindsWhatLowerCaseFinds: containsFold says what
// strings.Contains says of the text in lower case, for the words the rules
// look for, in the fixtures' diagnostics and at the edges of a text.
func TestContainsFoldFindsWhatLowerCaseFinds(t *testing.T) {
	texts := []string{"", "a", "SAID:", "x said:", " Said", "remote HOST", "remotehost", "after", "AFTE", "said"}
	for _, d := range fixtureTexts(t) {
		texts = append(texts, string(d))
	}
	subs := []string{" said:", "remote host", "remote server", "remote mail server", "said", "after", "in reply to", "a", "gw.example.org", ""}
	found := 0
	for _, s := range texts {
		for _, sub := range subs {
			want := strings.Contains(asciiLower(s), sub)
			if got := containsFold(s, sub); got != want {
				t.Errorf("containsFold(%q, %q) = %t, want %t", s, sub, got, want)
			}
			if want {
				found++
			}
		}
	}
	if found < 20 {
		t.Fatalf("only %d texts hold a word: the test tests little", found)
	}
}

// asciiLower lowers A-Z alone, as containsFold folds.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// quoteCodesRegexp is what stripCodes does without the copies: the
// reference it is checked against.
var quoteCodesRegexp = regexp.MustCompile(`(?:^|\s)[245][0-9][0-9](?:[- ]#?[245]\.[0-9]{1,3}\.[0-9]{1,3})?[- ]|^#?[245]\.[0-9]{1,3}\.[0-9]{1,3}\s`)

func stripCodesByRegexp(s string) string {
	return strings.TrimSpace(quoteCodesRegexp.ReplaceAllString(" "+s, " "))
}

// TestStripCodesIsTheRegexpReplacement: stripCodes gives what the regexp
// replacement it stands for gives, on the fixtures' diagnostics as
// quoteReply reads them, on written multi-line replies, and on random
// texts made of the bytes that codes are written with.
func TestStripCodesIsTheRegexpReplacement(t *testing.T) {
	texts := []string{"", " ", "550", "550 ", "550 5.1.1 ", "550 5.1.1 user unknown", "550-5.1.1 a 550-5.1.1 b 550 5.1.1 c",
		"5.1.1 bare enhanced", "#5.1.1 x", "550 #5.1.1 x", "550 5.1.1234 x", "550 5.1234.1 x", "550-5.1.1-x", "x 421 4.7.0 try later",
		"550\t5.1.1\tx", "a\n550 b", "550 550 5.7.1 x", "\u00a0550 x", "550 5.1.1\u00a0x", "350 5.1.1 x", "550 3.1.1 x", "550 5.1. x"}
	for _, d := range fixtureTexts(t) {
		texts = append(texts, textclean.ASCII(string(d), maxDiagnostic))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "2455 0.#-\t\nax3\u00a0"
	for range 200000 {
		n := rng.IntN(24)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := stripCodes(s), stripCodesByRegexp(s); got != want {
			t.Fatalf("stripCodes(%q) = %q, the regexp gives %q", s, got, want)
		}
	}
}

// FuzzStripCodes checks stripCodes against the regexp it stands for.
func FuzzStripCodes(f *testing.F) {
	f.Add("550-5.1.1 a 550 5.1.1 b")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripCodes(s), stripCodesByRegexp(s); got != want {
			t.Fatalf("stripCodes(%q) = %q, the regexp gives %q", s, got, want)
		}
	})
}

// TestTypeLenAndAddressLenAreTheRegexps: typeLen and addressLen give the
// end of the match of the regexps they stand for (0 when none), on the
// fixtures' diagnostics as quoteReply reads them and on random printable
// ASCII texts made of the bytes the regexps look at.
func TestTypeLenAndAddressLenAreTheRegexps(t *testing.T) {
	typeRE := regexp.MustCompile(`(?i)^(?:[a-z][a-z0-9-]*;\s*)?`)
	addressRE := regexp.MustCompile(`^<[^<>\s]*>:?\s*`)
	end := func(re *regexp.Regexp, s string) int {
		if loc := re.FindStringIndex(s); loc != nil {
			return loc[1]
		}
		return 0
	}
	texts := []string{"", "smtp; 550 x", "X-Postfix;  host", "x-unix;", ";x", "smtp;", "a1-b;\t x", "1a; x",
		"<bob@example.com>: x", "<>x", "<a b>: x", "<a<b>: x", "<a>:: x", "<a>", "<a", "< a>"}
	for _, d := range fixtureTexts(t) {
		texts = append(texts, textclean.ASCII(string(d), maxDiagnostic))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "sMtp1-; \t<>:@.x"
	for range 100000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := typeLen(s), end(typeRE, s); got != want {
			t.Fatalf("typeLen(%q) = %d, the regexp's match ends at %d", s, got, want)
		}
		if got, want := addressLen(s), end(addressRE, s); got != want {
			t.Fatalf("addressLen(%q) = %d, the regexp's match ends at %d", s, got, want)
		}
	}
}

// TestQuotedProgramTracebackIsItsException: a delivery program's Python
// traceback is quoted from its exception line, the cause, not from the
// stack before it; text without a traceback is quoted from its start.
func TestQuotedProgramTracebackIsItsException(t *testing.T) {
	for diag, want := range map[string]string{
		`Traceback (most recent call last): File "/usr/local/bin/import", line 214, in <module> main() ` +
			`psycopg2.OperationalError: connection to server failed: FATAL: password authentication failed`: "psycopg2.OperationalError: connection to server failed",
		`Traceback (most recent call last): File "/usr/bin/x", line 3, in <module> raise ValueError: bad mailbox name`: "ValueError: bad mailbox name",
		`mail-archive: cannot open /srv/archive/spool: Permission denied`:                                              "mail-archive: cannot open",
	} {
		if got := quoteReply(diag); !strings.HasPrefix(got, want) {
			t.Errorf("quoteReply(%q) = %q, want it to start with %q", diag, got, want)
		}
	}
}
