package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// An auto-reply (RFC 3834: an out-of-office notice, a "thank you for your
// message") says what the reader needs in its own first sentences: the
// return date and the person to write to meanwhile. The explanation quotes
// them (autoreplyQuote) rather than telling the reader to go and read the
// reply.

// maxAutoreplyQuote caps the quoted opening of an auto-reply, in bytes.
const maxAutoreplyQuote = 300

// maxQuotedSentences is how many sentences of an auto-reply are quoted:
// the return date and the person to write to are often in the second or
// third, after a "thank you for your message".
const maxQuotedSentences = 3

// maxGreeting is the longest line taken for a salutation ("Guten Tag,",
// "Dear Sir or Madam,") and skipped.
const maxGreeting = 60

// autoreplyQuote returns the opening of an auto-reply's text (notice, the
// reply's human-readable part, decoded): its first sentences (maxQuotedSentences) after
// the salutation, one line, without control or bidirectional formatting
// characters, without double quotes (it is shown between them), cut at a
// word to maxAutoreplyQuote. "" when the text has no sentence of words.
func autoreplyQuote(notice string) string {
	// Terminal drops the controls but line ends and the bidirectional
	// formatting characters, and invalid UTF-8.
	notice = textclean.Terminal(notice)
	var b strings.Builder
	sentences := 0
	started := false
	for line := range strings.Lines(notice) {
		t := strings.TrimSpace(line)
		if t == "" {
			if started && sentences > 0 {
				break // the paragraph that holds the first sentence is done
			}
			continue
		}
		if quotedLine(t) {
			if started {
				break // the quoted original message starts
			}
			continue
		}
		if !started && greeting(t) {
			continue
		}
		started = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		n, end := sentenceEnds(t, maxQuotedSentences-sentences)
		b.WriteString(t[:end])
		sentences += n
		if sentences >= maxQuotedSentences || b.Len() >= maxAutoreplyQuote {
			break
		}
	}
	s := textclean.Line(strings.ReplaceAll(b.String(), `"`, "'"), 4*maxAutoreplyQuote)
	if !hasWords(s) {
		return ""
	}
	return cutAtWord(s, maxAutoreplyQuote)
}

// quotedLine says whether a line of an auto-reply belongs to a quoted
// message: a "> " quotation, or a separator ("-----Original Message-----",
// "________________").
func quotedLine(t string) bool {
	return strings.HasPrefix(t, ">") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "___")
}

// greeting says whether a line is a salutation: short, and ending in a
// comma or an exclamation mark, as letters open in every language the
// product reads ("Hello,", "Guten Tag,", "Bonjour,", "Estimado cliente:").
func greeting(t string) bool {
	if len(t) > maxGreeting {
		return false
	}
	switch t[len(t)-1] {
	case ',', '!', ':':
		return true
	}
	return false
}

// sentenceEnds returns how many sentences (at most max) end in t and where
// the last of them ends; len(t) when fewer than max end in it. A sentence
// ends at ".", "!" or "?" followed by a space or the end of the line, unless
// a digit comes before it ("bis 11. Dezember") or a word of one or two
// letters does ("z. B.", "e.g.").
func sentenceEnds(t string, max int) (n, end int) {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(t) && t[i+1] != ' ' {
			continue
		}
		if c == '.' && abbreviation(t[:i]) {
			continue
		}
		n++
		if n == max {
			return n, i + 1
		}
	}
	return n, len(t)
}

// abbreviation says whether the text before a full stop ends in a number
// or a word of one or two letters, its own dots aside ("e.g", "z. B"); an
// address or a domain ("info@example.fr") is a word of its own.
func abbreviation(before string) bool {
	w := before[strings.LastIndexByte(before, ' ')+1:]
	if w == "" {
		return true
	}
	if r, _ := utf8.DecodeLastRuneInString(w); unicode.IsDigit(r) {
		return true
	}
	return utf8.RuneCountInString(w)-strings.Count(w, ".") <= 2
}

// hasWords says whether s holds at least two words of letters.
func hasWords(s string) bool {
	words := 0
	for f := range strings.FieldsSeq(s) {
		letters := 0
		for _, r := range f {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 2 {
			words++
		}
	}
	return words >= 2
}
