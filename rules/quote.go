package rules

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// maxQuote caps the server's reply quoted in an explanation ({reply}).
const maxQuote = 160

// The regexps of quoteReply are compiled on first use: most commands never
// quote a reply, and quotePrefix alone (its .{0,300} unrolls into hundreds
// of instructions) cost milliseconds at every start (issue 14).
var (
	// quotePrefix is what a reporting server writes before the reply it
	// relays: "<bob@example.com>: host mx.example.com[192.0.2.1] said:",
	// "SMTP error from remote mail server after RCPT TO:<bob@example.com>:",
	// an RFC 3464 diagnostic type "smtp;".
	quotePrefix = lazyRegexp(`(?i)^(?:[a-z][a-z0-9-]*;\s*)?(?:.{0,300}?\b(?:said|after rcpt to:<[^>]*>|after mail from:<[^>]*>|after end of data|after data|after initial connection)\s*:\s*)?`)
	// quoteType is quotePrefix for a reply without "said" or "after",
	// where its second part cannot match: the type alone, read without
	// quotePrefix's hundreds of instructions.
	quoteType = lazyRegexp(`(?i)^(?:[a-z][a-z0-9-]*;\s*)?`)
	// quoteCodes are the reply and enhanced status codes at the start of a
	// reply and of each line of a multi-line one ("550-5.1.1 ... 550 5.1.1 ...").
	quoteCodes = lazyRegexp(`(?:^|\s)[245][0-9][0-9](?:[- ]#?[245]\.[0-9]{1,3}\.[0-9]{1,3})?[- ]|^#?[245]\.[0-9]{1,3}\.[0-9]{1,3}\s`)
	// quoteStage is Postfix's note of the command a reply answered.
	quoteStage = lazyRegexp(`(?i)\s*\(in reply to [a-z ]+ command\)`)
	// quoteAddress is the address a reply starts with ("<bob@example.com>:"),
	// which the explanation names already.
	quoteAddress = lazyRegexp(`^<[^<>\s]*>:?\s*`)
)

// quoteReply returns what the server said, for a person: the reply of a
// diagnostic without the reporting server's prefix, the codes and the SMTP
// stage, shortened to maxQuote at a word, printable ASCII, with no double
// quotes (it is shown between them). It returns "" when the reply cannot be
// read as words: fewer than three words of letters, or mostly characters
// that are not ASCII.
func quoteReply(diag string) string {
	if strings.TrimSpace(diag) == "" {
		return "" // a bare code: nothing to quote, and no regexp to compile
	}
	s := textclean.ASCII(diag, maxDiagnostic)
	// The anchored ones cut the start off, without a copy. s is
	// printable ASCII, so containsFold finds what (?i) would.
	prefix := quoteType
	if containsFold(s, "said") || containsFold(s, "after") {
		prefix = quotePrefix
	}
	if loc := prefix().FindStringIndex(s); loc != nil {
		s = s[loc[1]:]
	}
	if containsFold(s, "in reply to") {
		s = quoteStage().ReplaceAllString(s, "")
	}
	s = strings.TrimSpace(quoteCodes().ReplaceAllString(" "+s, " "))
	if loc := quoteAddress().FindStringIndex(s); loc != nil {
		s = s[loc[1]:]
	}
	s = plainWords(s)
	if !readable(s) {
		return ""
	}
	return cutAtWord(s, maxQuote)
}

// plainWords returns s (printable ASCII) with its double quotes made
// single ones and its words separated by one space, without space around:
// strings.Join(strings.Fields(strings.ReplaceAll(s, `"`, "'")), " ") in one
// pass, and no copy when s is so already.
func plainWords(s string) string {
	clean := len(s) == 0 || s[0] != ' ' && s[len(s)-1] != ' '
	for i := 0; i < len(s) && clean; i++ {
		clean = s[i] != '"' && s[i] >= ' ' && !(s[i] == ' ' && s[i+1] == ' ')
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || '\t' <= c && c <= '\r':
			space = len(b) > 0
			continue
		case c == '"':
			c = '\''
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = append(b, c)
	}
	return string(b)
}

// cutAtWord returns s when it is at most max bytes long, and otherwise its
// start cut at the last space of its first max bytes (or, with no space in
// their second half, at the last character that fits), followed by "...".
func cutAtWord(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], ' ')
	if cut < max/2 {
		cut = max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:-") + "..."
}

// readable reports whether s holds at least three words of three or more
// letters, and few bytes that stood for characters outside ASCII ("?").
func readable(s string) bool {
	words, letters, unknown, run := 0, 0, 0, 0
	for i := 0; i <= len(s); i++ {
		var c byte
		if i < len(s) {
			c = s[i]
		}
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			run++
			letters++
			continue
		}
		if c == '?' {
			unknown++
		}
		if run >= 3 {
			words++
		}
		run = 0
	}
	return words >= 3 && unknown*5 < letters
}

// lazyRegexp returns a function that compiles expr (a constant of this
// package, so MustCompile cannot fail in a binary whose tests passed) the
// first time it is called, and returns the same *regexp.Regexp after.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
