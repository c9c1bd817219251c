package explanation

import (
	"golang.org/x/text/language"

	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

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

// codeArgument matches what a code query explains (after an optional
// "Diagnostic-Code:" and an optional RFC 3464 diagnostic type such as
// "smtp;"): a reply code (RFC 5321, section 4.2: three digits, the first 2
// to 5, the second 0 to 5) or an enhanced status code (RFC 3463, section 2:
// class 2, 4 or 5, then subject and detail of one to three digits), alone or
// at the start of a reply line.
// It is compiled on first use, not at every start of the binary (issue 14).
var codeArgument = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^(?:diagnostic-code:\s*)?(?:[a-z][a-z0-9-]*;\s*)?` +
		`((?:[2-5][0-5][0-9](?:[ \t-]|$)|[245]\.[0-9]{1,3}\.[0-9]{1,3}(?:[ \t]|$)).*)$`)
})

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
	m := codeArgument().FindStringSubmatch(text)
	if m == nil {
		return CodeQuery{}, fmt.Errorf("%q is %w: expected an enhanced status code (5.7.509), "+
			"a reply code (550) or a reply line that starts with one ('550 5.7.26 ...'); to read a whole message, explain it",
			clip(text, 60), ErrNotACode)
	}
	return CodeQuery{Text: text, lookup: m[1]}, nil
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
