package rules

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// maxQuote caps the server's reply quoted in an explanation ({reply}): room
// for the whole of a multi-line reply joined (Gmail's DMARC and
// authentication refusals name their cause and help page in their later
// lines, about 300 bytes without their codes), bounded for a header field.
const maxQuote = 320

// The regexps of quoteReply are compiled on first use: most commands never
// quote a reply, and quotePrefix alone (its .{0,300} unrolls into hundreds
// of instructions) cost milliseconds at every start (issue 14).
var (
	// quotePrefix is what a reporting server writes before the reply it
	// relays: "<bob@example.com>: host mx.example.com[192.0.2.1] said:",
	// "SMTP error from remote mail server after RCPT TO:<bob@example.com>:",
	// an RFC 3464 diagnostic type "smtp;".
	quotePrefix = lazyRegexp(`(?i)^(?:[a-z][a-z0-9-]*;\s*)?(?:.{0,300}?\b(?:said|after rcpt to:<[^>]*>|after mail from:<[^>]*>|after end of data|after data|after initial connection)\s*:\s*)?`)
	// quoteStage is Postfix's note of the command a reply answered.
	quoteStage = lazyRegexp(`(?i)\s*\(in reply to [a-z ]+ command\)`)
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
	if containsFold(s, "said") || containsFold(s, "after") {
		if loc := quotePrefix().FindStringIndex(s); loc != nil {
			s = s[loc[1]:]
		}
	} else {
		s = s[typeLen(s):] // quotePrefix's second part cannot match
	}
	if containsFold(s, "in reply to") {
		s = quoteStage().ReplaceAllString(s, "")
	}
	s = stripCodes(s)
	s = s[addressLen(s):] // the explanation names the address already
	s = s[tracebackErrorAt(s):]
	s = plainWords(s)
	s = withoutSessionID(s)
	if !readable(s) {
		return ""
	}
	return cutAtWord(s, maxQuote)
}

// typeLen returns the length of the RFC 3464 diagnostic type and the
// white space after it that a reply starts with ("smtp; "), 0 when it
// starts with none: what quotePrefix's first part, alone,
// `(?i)^(?:[a-z][a-z0-9-]*;\s*)?`, matches in printable ASCII, without the
// regexp's allocation of the match's indexes.
func typeLen(s string) int {
	if len(s) == 0 || !isLetter(s[0]) {
		return 0
	}
	i := 1
	for i < len(s) && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '-') {
		i++
	}
	if i == len(s) || s[i] != ';' {
		return 0
	}
	i++
	for i < len(s) && isRegexpSpace(s[i]) {
		i++
	}
	return i
}

// addressLen returns the length of the address in angle brackets, an
// optional colon and the white space after them that a reply starts with
// ("<bob@example.com>: "), 0 when it starts with none: what
// `^<[^<>\s]*>:?\s*` matches.
func addressLen(s string) int {
	if len(s) == 0 || s[0] != '<' {
		return 0
	}
	i := 1
	for i < len(s) && s[i] != '<' && s[i] != '>' && !isRegexpSpace(s[i]) {
		i++
	}
	if i == len(s) || s[i] != '>' {
		return 0
	}
	i++
	if i < len(s) && s[i] == ':' {
		i++
	}
	for i < len(s) && isRegexpSpace(s[i]) {
		i++
	}
	return i
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// stripCodes returns s without the reply and enhanced status codes at its
// start and at the start of each line of a multi-line reply ("550-5.1.1
// ... 550 5.1.1 ..."), each replaced by a space, and without space at its
// ends. It is, without the copies (issue 14: the regexp's ReplaceAllString
// was an allocation per reading quoted):
//
//	strings.TrimSpace(regexp.MustCompile(`(?:^|\s)[245][0-9][0-9](?:[- ]#?[245]\.[0-9]{1,3}\.[0-9]{1,3})?[- ]|^#?[245]\.[0-9]{1,3}\.[0-9]{1,3}\s`).ReplaceAllString(" "+s, " "))
//
// The space put first lets a code at the start match as one after a space;
// the regexp's second alternative (a code at the very start) then never
// matches, for the text starts with that space.
func stripCodes(s string) string {
	// A code matches after the white space at s[i], i = -1 standing for
	// the space put first. What precedes a code is kept only once it holds
	// more than white space, which TrimSpace would drop: the common reply,
	// codes first and then words, is a part of s, not a copy.
	var b strings.Builder
	start := 0 // s[start:] follows the last code replaced
	for i := -1; i < len(s); i++ {
		if i >= 0 && !isRegexpSpace(s[i]) {
			continue
		}
		end := codeAfterSpace(s, i+1)
		if end < 0 {
			continue
		}
		if gap := s[start:max(i, start)]; b.Len() > 0 || strings.TrimSpace(gap) != "" {
			if b.Len() == 0 {
				b.Grow(len(s) + 1)
			}
			b.WriteString(gap)
			b.WriteByte(' ')
		}
		start = end
		i = end - 1
	}
	if b.Len() == 0 {
		return strings.TrimSpace(s[start:])
	}
	b.WriteString(s[start:])
	return strings.TrimSpace(b.String())
}

// codeAfterSpace returns the end of a reply code at s[j], as
// `[245][0-9][0-9](?:[- ]#?[245]\.[0-9]{1,3}\.[0-9]{1,3})?[- ]` matches it
// (the enhanced code taken when it is there), -1 when none is.
func codeAfterSpace(s string, j int) int {
	if j+4 > len(s) || !isClassDigit(s[j]) || !isDigit(s[j+1]) || !isDigit(s[j+2]) || !isDashSpace(s[j+3]) {
		return -1
	}
	// The enhanced code, when the text goes on as one.
	k := j + 4
	if k < len(s) && s[k] == '#' {
		k++
	}
	if k < len(s) && isClassDigit(s[k]) && k+1 < len(s) && s[k+1] == '.' {
		if k = digitsThen(s, k+2, '.'); k >= 0 {
			if k = digitsThen(s, k, 0); k >= 0 {
				return k
			}
		}
	}
	return j + 4
}

// digitsThen returns the end of one to three digits at s[k] followed by
// the byte want ('.'), or by '-' or ' ' when want is 0, -1 when s does not
// go on so. Digits are greedy and a fourth one is no delimiter, as for
// `[0-9]{1,3}` followed by the delimiter in a regexp.
func digitsThen(s string, k int, want byte) int {
	n := 0
	for k+n < len(s) && isDigit(s[k+n]) {
		n++
	}
	if n == 0 || n > 3 || k+n >= len(s) {
		return -1
	}
	c := s[k+n]
	if want != 0 && c == want || want == 0 && isDashSpace(c) {
		return k + n + 1
	}
	return -1
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isClassDigit(c byte) bool { return c == '2' || c == '4' || c == '5' }
func isDashSpace(c byte) bool  { return c == '-' || c == ' ' }

// isRegexpSpace reports whether c is white space as \s of a Go regexp
// has it: [\t\n\f\r ].
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
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

// tracebackMark starts a Python traceback, which a delivery program written
// in Python prints when it fails (Python documentation, the traceback
// module: "Traceback (most recent call last):", the stack, then the
// exception as "ExceptionType: message" on the last line).
const tracebackMark = "Traceback (most recent call last):"

// tracebackErrorAt returns where the exception line of a Python traceback
// in s starts ("psycopg2.OperationalError: connection ... failed"): the
// cause, where the stack before it says nothing to the reader; 0 when s
// holds no traceback or no exception line after it.
func tracebackErrorAt(s string) int {
	mark := strings.Index(s, tracebackMark)
	if mark < 0 {
		return 0
	}
	at := -1
	for _, suffix := range [...]string{"Error: ", "Exception: "} {
		if i := strings.LastIndex(s, suffix); i > mark && i > at {
			at = i
		}
	}
	if at < 0 {
		return 0
	}
	// Back over the exception's dotted name.
	for at > 0 && (isLetter(s[at-1]) || isDigit(s[at-1]) || s[at-1] == '_' || s[at-1] == '.') {
		at--
	}
	return at
}

// withoutSessionID returns s without the session identifier Gmail puts at
// the end of every reply ("... 5b1f17b1804b1-4367a1b2c3dsi4455.99 -
// gsmtp"): a trace for Google's logs, no words for a person.
func withoutSessionID(s string) string {
	t, ok := strings.CutSuffix(s, " - gsmtp")
	if !ok {
		return s
	}
	i := strings.LastIndexByte(t, ' ')
	if i < 0 {
		return s
	}
	return strings.TrimSpace(t[:i])
}
