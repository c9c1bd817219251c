package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// TestAutoreplyExplanationQuotesItsOpeningSentences checks that an
// out-of-office notice is explained with its own first sentences (the
// return date, the person to write to), after its salutation and before
// its signature or the quoted original, and without the challenge words.
func TestAutoreplyExplanationQuotesItsOpeningSentences(t *testing.T) {
	e := builtin(t)
	tests := []struct {
		name, notice string
		has          []string
		hasNot       []string
	}{
		{"german out of office", "Guten Tag,\n\nich bin bis 11.12.2026 nicht im Büro und habe keinen Zugriff auf meine\nE-Mails. In dringenden Fällen wenden Sie sich an s.berger@alpenbau.example.\n\nMit freundlichen Grüßen\nSabine Hofer",
			[]string{"11.12.2026 nicht im Büro", "s.berger@alpenbau.example"}, []string{"Guten Tag", "Mit freundlichen"}},
		{"english after thanks", "Thank you for your message. I am out of the office until Monday 7 December.\nPlease contact ap-team@example.net meanwhile.\n\nTom\n________________\nFrom: Accounts\nSubject: Invoice",
			[]string{"until Monday 7 December", "ap-team@example.net"}, []string{"Tom", "Invoice"}},
		{"abbreviation is no sentence end", "Bonjour,\nJe suis absent jusqu'au 3 janv. 2027 inclus, p. ex. pour les congés. Merci de écrire à accueil@example.fr. Bonne journée.",
			[]string{"3 janv. 2027", "accueil@example.fr"}, []string{"Bonne journée", "Bonjour"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &dsn.Report{Kind: dsn.KindAutoreply, Format: "rfc3834", Notice: tt.notice,
				Recipients: []dsn.Recipient{{Address: "someone@example.org"}}}
			got := e.Explain(r)[0]
			for _, h := range tt.has {
				if !strings.Contains(got.Explanation, h) {
					t.Errorf("explanation %q lacks %q", got.Explanation, h)
				}
			}
			for _, h := range append(tt.hasNot, "challenge") {
				if strings.Contains(got.Explanation, h) {
					t.Errorf("explanation %q holds %q", got.Explanation, h)
				}
			}
			if got.Owner != OwnerNone {
				t.Errorf("owner %s, want none", got.Owner)
			}
		})
	}
}

// TestAutoreplyQuoteIsCleanAndBounded checks that the quote holds no control
// or bidirectional formatting character, no double quote, and is cut at
// maxAutoreplyQuote; a notice without words gives no quote.
func TestAutoreplyQuoteIsCleanAndBounded(t *testing.T) {
	q := autoreplyQuote("I am away \x1b[31muntil\x1b[0m \u202eMonday\u202c and \"busy\"" + strings.Repeat(" very", 200) + ".")
	if strings.ContainsAny(q, "\x1b\u202e\u202c\"\n") {
		t.Errorf("quote %q holds a control, a bidi character or a double quote", q)
	}
	if len(q) > maxAutoreplyQuote+len("...") || !strings.HasSuffix(q, "...") {
		t.Errorf("quote of %d bytes %q, want at most %d and cut", len(q), q, maxAutoreplyQuote)
	}
	if q := autoreplyQuote("\n\n-- \n12345\n"); q != "" {
		t.Errorf("quote %q of a notice without words, want none", q)
	}
}

// TestChallengeKeepsItsOwnWords checks that a challenge-response notice is
// explained as a challenge, not quoted as an out-of-office reply.
func TestChallengeKeepsItsOwnWords(t *testing.T) {
	e := builtin(t)
	r := &dsn.Report{Kind: dsn.KindAutoreply, Format: dsn.FormatChallengeResponse, Notice: "I am protected by a filter. Please confirm you are a person.",
		Recipients: []dsn.Recipient{{Address: "someone@example.org"}}}
	got := e.Explain(r)[0]
	if !strings.Contains(got.Explanation, "challenge") || got.Owner != OwnerSender {
		t.Errorf("explanation %q, owner %s: want the challenge's words", got.Explanation, got.Owner)
	}
}

// An auto-reply's courtesy sentence ("Gracias por su mensaje", "Vielen
// Dank für Ihre Nachricht", "メールありがとうございます") is never all the
// quote: the sentences that carry the return date, an address or a phone
// number are quoted, in their order, even past the first paragraph, and
// the filler between them is left out.
func TestAutoreplyQuoteSkipsCourtesyAndKeepsDateAndContact(t *testing.T) {
	tests := []struct {
		name, notice string
		has, hasNot  []string
	}{
		{"spanish date and urgent phone",
			"Gracias por su mensaje.\n\nEstaré fuera de la oficina hasta el 15 de enero, con acceso limitado al correo. Lo leeré a mi regreso.\n\nPara asuntos urgentes, llame al +34 912 345 678 o escriba a soporte@empresa.example.\n\nSaludos\nLucía",
			[]string{"hasta el 15 de enero", "+34 912 345 678", "soporte@empresa.example"}, []string{"Gracias", "Lo leeré", "Lucía"}},
		{"german thanks then facts",
			"Vielen Dank für Ihre Nachricht. Ich bin ab dem 3. August wieder erreichbar. Ihre E-Mail wird nicht weitergeleitet. Bitte wenden Sie sich an die Zentrale unter 089 1234 5678.",
			[]string{"3. August", "089 1234 5678"}, []string{"Vielen Dank", "weitergeleitet"}},
		{"japanese ideographic sentences",
			"メールありがとうございます。12月24日まで休暇をいただいております。急ぎのご用件は tanaka@example.jp までご連絡ください。",
			[]string{"12月24日まで", "tanaka@example.jp"}, []string{"ありがとう"}},
		{"courtesy after a salutation on the same line",
			"Hi, thanks for your email! I'm travelling until July 2nd and will answer when I return.",
			[]string{"until July 2nd"}, []string{"thanks"}},
		{"english courtesy only in the middle",
			"I am on parental leave. Thank you for your email. My colleague Ana (ana@example.org) handles my files until 1 March 2027.",
			[]string{"I am on parental leave.", "ana@example.org", "1 March 2027"}, []string{"Thank you"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := autoreplyQuote(tt.notice)
			for _, h := range tt.has {
				if !strings.Contains(q, h) {
					t.Errorf("quote %q lacks %q", q, h)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(q, h) {
					t.Errorf("quote %q holds %q", q, h)
				}
			}
			if len(q) > maxAutoreplyQuote+len("...") {
				t.Errorf("quote of %d bytes, want at most %d", len(q), maxAutoreplyQuote)
			}
		})
	}
}

// A text of nothing but courtesy gives no quote rather than a quote that
// says nothing.
func TestAutoreplyOfCourtesyOnlyQuotesNothing(t *testing.T) {
	if q := autoreplyQuote("Merci pour votre message.\n\nCordialement,\nÉquipe"); q != "" {
		t.Errorf("quote %q, want none", q)
	}
}

// A whole out-of-office reply read from its message: the courtesy
// paragraph is dropped, and the return date and the urgent contact, in
// later paragraphs, are quoted in the explanation.
func TestOutOfOfficeExplanationQuotesReturnDateAndUrgentContact(t *testing.T) {
	e := builtin(t)
	b, err := os.ReadFile("../internal/testdata/bounces/eml/vacation-quote-03.eml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := dsn.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	got := e.Explain(r)[0].Explanation
	for _, h := range []string{"19 de enero de 2026", "+34 931 555 207", "j.puig@talleres-ferrer.example"} {
		if !strings.Contains(got, h) {
			t.Errorf("explanation %q lacks %q", got, h)
		}
	}
	if strings.Contains(got, "Gracias") || strings.Contains(got, "Un saludo") {
		t.Errorf("explanation %q quotes the courtesy or the sign-off", got)
	}
}

// courtesy reads only the first courtesyWindow bytes of a sentence: every
// courtesy opening fits there after maxCourtesyLead bytes of salutation.
func TestCourtesyWindowHoldsEveryOpening(t *testing.T) {
	for _, o := range courtesyOpenings {
		if maxCourtesyLead+len(o) > courtesyWindow {
			t.Errorf("opening %q (%d bytes) does not fit in courtesyWindow", o, len(o))
		}
		// maxCourtesyLead (12) bytes of salutation, and one more.
		if !courtesy("Hello Anna, " + strings.ToUpper(o) + " and more.") {
			t.Errorf("courtesy misses %q after a salutation", o)
		}
		if courtesy("Hello Annie, " + o + " and more.") {
			t.Errorf("courtesy finds %q after more than maxCourtesyLead bytes", o)
		}
		if courtesy("We have received many requests today, " + o) {
			t.Errorf("courtesy finds %q far into a sentence", o)
		}
	}
}

// The words of auto-replies are lower-cased as strings.ToLower does it,
// invalid UTF-8 and letters whose lower case is longer or shorter
// included.
func TestLowerPrefixIsToLower(t *testing.T) {
	for _, s := range []string{
		"", "Out Of Office", "VIELEN DANK FÜR IHRE NACHRICHT", "İSTANBUL", "ȺȾ KELVIN \u212a",
		"bad \xff\xfe UTF-8 \xe3\x81", "メールありがとうございます", "ΣΊΣΥΦΟΣ", "\uFFFD",
	} {
		if got, want := string(lowerPrefix(nil, s, len(s)*4)), strings.ToLower(s); got != want {
			t.Errorf("lowerPrefix(%q) = %q, strings.ToLower gives %q", s, got, want)
		}
		for n := 0; n <= len(s); n++ {
			got := lowerPrefix(nil, s, n)
			if len(got) < min(n, len(strings.ToLower(s))) || !strings.HasPrefix(strings.ToLower(s), string(got)) {
				t.Errorf("lowerPrefix(%q, %d) = %q, not a prefix of at least %d bytes of %q", s, n, got, n, strings.ToLower(s))
			}
		}
	}
}

// TestReceiptExplanationFollowsItsDisposition: a read receipt says the
// message was displayed only when its Disposition says so; a receipt of
// type "deleted" (RFC 8098 section 3.2.6.2) says it was deleted unread.
func TestReceiptExplanationFollowsItsDisposition(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"nonbounce-mdn-displayed-01.eml": "the message was displayed",
		"nonbounce-receipt-03.eml":       "deleted without being displayed",
	} {
		rd := explainFixture(t, e, file)
		if !strings.Contains(rd.Explanation, want) {
			t.Errorf("%s: explanation %q, want it to say %q", file, rd.Explanation, want)
		}
	}
}

// TestDepartureAutoReplyAsksToWriteToTheContact: an auto-reply saying
// that the person has left, or that the address is no longer read, is no
// bounce but a message that will not be read: the sender is to write to
// the contact it names. An ordinary out-of-office notice ("has left the
// office until Monday") stays nobody's.
func TestDepartureAutoReplyAsksToWriteToTheContact(t *testing.T) {
	e := builtin(t)
	rd := explainFixture(t, e, "nonbounce-vacation-04.eml")
	if rd.Owner != OwnerSender || !strings.Contains(rd.Explanation, "will likely not be read") || !strings.Contains(rd.Fix, "contact the reply names") {
		t.Errorf("nonbounce-vacation-04.eml: owner %s explanation %q fix %q; want the sender, told to write to the named contact", rd.Owner, rd.Explanation, rd.Fix)
	}
	for notice, want := range map[string]bool{
		"Claire Lefèvre a quitté la société le 27 février. Écrivez à achats@example.fr.":             true,
		"Herr Brandt ist nicht mehr im Unternehmen tätig. Bitte wenden Sie sich an info@example.de.": true,
		"I have left the office and will be back on Monday 9 March.":                                 false,
		"Thank you for your message. I am on leave until 12 April.":                                  false,
	} {
		if got := departed(notice); got != want {
			t.Errorf("departed(%q) = %v, want %v", notice, got, want)
		}
	}
}
