package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// A Match is a rule that matches a record: where it is written and what in
// the record it matched, so that an admin can see why a reading came out as
// it did and write a local rule that overrides it.
type Match struct {
	Rule    string // the rule's id
	File    string // the rules file: BuiltinName, or a file given to Load
	Line    int    // the rule's line in File, 0 when unknown
	Matched string // what decided in the rule: a phrase, a code, a host...
	Reason  Reason // the reason the rule gives
}

// A FactFrom is a fact of a record and where it was captured.
type FactFrom struct {
	Fact  Fact
	Value string
	From  string // the id of the rule or extractor that captured it
	File  string
	Line  int
}

// A Trace is how a record was read: every rule that matches it, in
// precedence order (the first one decided), and the facts captured.
type Trace struct {
	Matches []Match
	Facts   []FactFrom
}

// Trace reads in as Classify does, but tries every rule: it returns all the
// rules that match, in the order they are tried (local files first), and
// where each fact came from. It is for explaining a reading (ndrmilter
// explain --why), not for the milter: it reads every rule.
func (e *Engine) Trace(in Input) Trace {
	rec := e.prepare(&in)
	defer e.scratch.Put(rec.sc)
	var tr Trace
	var first *rule
	for _, r := range e.rules {
		if !rec.matches(r) {
			continue
		}
		if first == nil {
			first = r
		}
		tr.Matches = append(tr.Matches, Match{Rule: r.id, File: r.file, Line: r.line,
			Matched: e.matchedBy(r, &rec), Reason: r.then.Reason})
	}
	var src [numFacts]factSource
	t, rd := &noThen, (*reasonDef)(nil)
	if first != nil {
		t = &first.then
		rd = e.reasons[t.Reason]
	}
	if rd == nil {
		rd = &noReason
	}
	fs := e.captureFacts(first, &rec, &src, wordsUse(t, rd))
	for i, v := range fs.v {
		if v != "" {
			tr.Facts = append(tr.Facts, FactFrom{Fact: facts[i], Value: v, From: src[i].from, File: src[i].file, Line: src[i].line})
		}
	}
	if v := (Classification{Reason: t.Reason, Facts: fs}); internalHopReason(&v) {
		if h := internalHop(&rec.in, rec.diag, fs.Get(FactHost)); h != "" {
			tr.Facts = append(tr.Facts, FactFrom{Fact: FactInternalHop, Value: sanitize(h), From: internalHopSource})
		}
	}
	return tr
}

// maxMatched caps the text Matched quotes from a regexp's match.
const maxMatched = 80

// matchedBy says what in the record made r match, the most telling first:
// a phrase of its text (or all its phrases), the text its regexp matched,
// the status code, the reply code, the host, the SMTP command, the action.
func (e *Engine) matchedBy(r *rule, rec *record) string {
	sc := rec.sc
	for _, id := range r.textIDs {
		if sc.hits[id>>6]&(1<<(uint(id)&63)) != 0 {
			return e.phraseList[id]
		}
	}
	if len(r.all) > 0 {
		ps := make([]string, len(r.all))
		for i, id := range r.all {
			ps[i] = e.phraseList[id]
		}
		return strings.Join(ps, " + ")
	}
	for _, p := range r.regexps {
		if loc := p.find(sc.text, sc.class); loc != nil {
			if len(sc.orig) != len(sc.text) {
				sc.orig = foldSpace(sc.orig[:0], rec.diag)
			}
			m := sc.text[loc[0]:loc[1]]
			if len(sc.orig) == len(sc.text) {
				m = sc.orig[loc[0]:loc[1]]
			}
			return textclean.ASCII(string(m), maxMatched)
		}
	}
	switch {
	case len(r.status) > 0 && rec.hasStatus:
		return statusString(rec.st, rec.stText) // rec.st.String(), the record's own text when it is that

	case len(r.status) > 0:
		return "no status code"
	case len(r.reply) > 0 && rec.rp != 0:
		return rec.reply
	case len(r.reply) > 0:
		return "no reply code"
	}
	for _, m := range r.mta {
		if containsFold(rec.in.RemoteMTA, m) || containsFold(rec.in.ReportingMTA, m) {
			return "host " + m
		}
	}
	if len(r.command) > 0 {
		if rec.in.Command == "" {
			return "no SMTP command"
		}
		return "command " + strings.ToUpper(rec.in.Command)
	}
	if len(r.diagType) > 0 {
		return "Diagnostic-Code type " + strings.ToLower(strings.TrimSpace(rec.in.DiagnosticType))
	}
	if len(r.action) > 0 {
		return "action " + string(rec.action)
	}
	return ""
}
