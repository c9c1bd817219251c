package explanation

import (
	"golang.org/x/text/language"

	"errors"
	"fmt"
	"strings"

	"github.com/ndrmilter/ndrmilter/rules"
)

// CodeRecord is the reading of a status code or a reply line: the object of
// "code --json" and of GET /api/v1/code. Keys are fixed by the issue
// "Bounce understanding": add keys, never rename them.
type CodeRecord struct {
	Code         string             `json:"code"`
	Status       string             `json:"status"`
	StatusSource rules.StatusSource `json:"status_source"` // server (it was in the query), inferred, or ""
	ReplyCode    string             `json:"reply_code"`
	Reason       rules.Reason       `json:"reason"`
	Permanent    bool               `json:"permanent"`
	HardBounce   bool               `json:"hard_bounce"`
	Owner        rules.Owner        `json:"owner"`
	Summary      string             `json:"summary"`
	Explanation  string             `json:"explanation"`
	Fix          string             `json:"fix"`
	Rule         string             `json:"rule"`    // the rule that decided, "" when none
	Matched      string             `json:"matched"` // what decided in it: the code, a phrase...
	Facts        rules.Facts        `json:"facts"`   // what the server named: list, limit, host...
}

// ErrNoCode is wrapped by the error of ParseCodeQuery for a query that is
// empty.
var ErrNoCode = errors.New("give an enhanced status code (5.7.509), a reply code (550) or a reply line ('550 5.7.26 ...')")

// ErrNotACode is wrapped by the error of ParseCodeQuery for a query that is
// not a code or a reply line.
var ErrNotACode = errors.New("not a status code or a reply")

// codeArgument returns where in q the code of a code query starts, and
// whether q is one: after an optional "Diagnostic-Code:" and an optional RFC
// 3464 diagnostic type such as "smtp;" (each followed by optional white
// space), a reply code (RFC 5321, section 4.2: three digits, the first 2 to
// 5, the second 0 to 5, then a space, a tab, a hyphen or the end) or an
// enhanced status code (RFC 3463, section 2: class 2, 4 or 5, then subject
// and detail of one to three digits, then a space, a tab or the end), alone
// or at the start of a reply line.
//
// It reads q as the regular expression codeArgumentPattern of the tests
// does (case folded as Go's (?i) folds: "ſ" is an "s", the Kelvin sign a
// "k"); by hand, because compiling that expression was a quarter of a
// millisecond of every "ndrmilter code" (issue 14).
func codeArgument(q string) (int, bool) {
	i := 0
	if n, ok := prefixFold(q, "diagnostic-code:"); ok {
		i = skipRE2Space(q, n)
	}
	// The diagnostic type: a letter, then letters, digits and hyphens, then
	// ";". Nothing else can start a code, so there is no other reading.
	if _, n := foldedLetter(q, i); n > 0 {
		j := i + n
		for j < len(q) {
			if _, n := foldedLetter(q, j); n > 0 {
				j += n
			} else if isDigit(q[j]) || q[j] == '-' {
				j++
			} else {
				break
			}
		}
		if j < len(q) && q[j] == ';' {
			i = skipRE2Space(q, j+1)
		}
	}
	return i, replyCodeAt(q, i) || statusCodeAt(q, i)
}

// replyCodeAt says whether a reply code starts at q[i], followed by a space,
// a tab, a hyphen or the end.
func replyCodeAt(q string, i int) bool {
	if len(q)-i < 3 || q[i] < '2' || q[i] > '5' || q[i+1] < '0' || q[i+1] > '5' || !isDigit(q[i+2]) {
		return false
	}
	return i+3 == len(q) || q[i+3] == ' ' || q[i+3] == '\t' || q[i+3] == '-'
}

// statusCodeAt says whether an enhanced status code starts at q[i],
// followed by a space, a tab or the end.
func statusCodeAt(q string, i int) bool {
	if len(q)-i < 5 || q[i] != '2' && q[i] != '4' && q[i] != '5' || q[i+1] != '.' {
		return false
	}
	j := digitsAt(q, i+2)
	if j < 0 || j == len(q) || q[j] != '.' {
		return false
	}
	j = digitsAt(q, j+1)
	return j >= 0 && (j == len(q) || q[j] == ' ' || q[j] == '\t')
}

// digitsAt returns the end of the one to three digits at q[i], -1 when
// there are none or more than three.
func digitsAt(q string, i int) int {
	j := i
	for j < len(q) && isDigit(q[j]) {
		j++
	}
	if j == i || j-i > 3 {
		return -1
	}
	return j
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipRE2Space returns the index of the first byte from q[i] on that is
// not white space as the regular expressions' \s means it (RE2: tab, line
// feed, form feed, carriage return, space).
func skipRE2Space(q string, i int) int {
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\f' || q[i] == '\r') {
		i++
	}
	return i
}

// foldedLetter returns the lower-case ASCII letter at q[i] as Go's (?i)
// folds (an ASCII letter, "ſ" for s, the Kelvin sign for k) and its length
// in bytes, 0 when q[i] starts none.
func foldedLetter(q string, i int) (byte, int) {
	if i >= len(q) {
		return 0, 0
	}
	switch c := q[i] | 0x20; {
	case 'a' <= c && c <= 'z':
		return c, 1
	case strings.HasPrefix(q[i:], "\u017f"):
		return 's', len("\u017f")
	case strings.HasPrefix(q[i:], "\u212a"):
		return 'k', len("\u212a")
	}
	return 0, 0
}

// prefixFold returns the length in q of the lower-case ASCII prefix p
// (letters folded as foldedLetter folds them) when q starts with it.
func prefixFold(q, p string) (int, bool) {
	i := 0
	for k := 0; k < len(p); k++ {
		if 'a' <= p[k] && p[k] <= 'z' {
			c, n := foldedLetter(q, i)
			if n == 0 || c != p[k] {
				return 0, false
			}
			i += n
			continue
		}
		if i >= len(q) || q[i] != p[k] {
			return 0, false
		}
		i++
	}
	return i, true
}

// CodeQuery is a query that ParseCodeQuery accepted.
type CodeQuery struct {
	Text   string // the query as given, trimmed: the "code" of the CodeRecord
	lookup string // what is looked up: the code and what follows it
}

// ParseCodeQuery reads what a user asks to have explained: an enhanced
// status code (5.7.509), a reply code (550) or a reply line that starts with
// one ("550 5.7.26 ...", with an optional "Diagnostic-Code: smtp;" prefix).
// Anything else is an error wrapping ErrNoCode or ErrNotACode, which says
// what was expected: a whole message is explained, not looked up.
func ParseCodeQuery(q string) (CodeQuery, error) {
	text := strings.TrimSpace(q)
	if text == "" {
		return CodeQuery{}, ErrNoCode
	}
	start, ok := codeArgument(text)
	if !ok {
		return CodeQuery{}, fmt.Errorf("%q is %w: expected an enhanced status code (5.7.509), "+
			"a reply code (550) or a reply line that starts with one ('550 5.7.26 ...'); to read a whole message, explain it",
			clip(text, 60), ErrNotACode)
	}
	return CodeQuery{Text: text, lookup: text[start:]}, nil
}

// Lookup reads the query with the rules engine, in English.
func (q CodeQuery) Lookup(e *rules.Engine) CodeRecord {
	return q.LookupIn(e, language.English)
}

// LookupIn reads the query with the rules engine, its summary, explanation
// and fix in the language tag (rules.Engine.LookupIn).
func (q CodeQuery) LookupIn(e *rules.Engine, tag language.Tag) CodeRecord {
	v := e.LookupIn(tag, q.lookup)
	return CodeRecord{Code: q.Text, Status: v.Status, StatusSource: v.StatusSource, ReplyCode: v.ReplyCode,
		Reason: v.Reason, Permanent: v.Permanent, HardBounce: v.HardBounce, Owner: v.Owner, Summary: v.Summary,
		Explanation: v.Explanation, Fix: v.Fix, Rule: v.Rule, Matched: v.Matched, Facts: v.Facts}
}

// clip shortens s to at most n bytes for an error message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
