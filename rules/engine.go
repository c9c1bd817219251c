package rules

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

//go:embed rules.yaml
var builtinRules []byte

// BuiltinName is the name the built-in rules file goes by in error messages.
const BuiltinName = "rules.yaml (built-in)"

// maxDiagnostic caps how much of a diagnostic text Classify reads: replies
// are short, and the cause is stated at the start; the cap bounds the time
// spent on hostile input.
const maxDiagnostic = 4096

// Engine classifies recipient records with a loaded rule set. An Engine is
// immutable after Load and safe for concurrent use.
type Engine struct {
	rules   []*rule
	reasons map[Reason]reasonSpec
	texts   *[numTexts]text
	phrases *phraseSet
	scratch sync.Pool // *scratch
}

// rule is a compiled rule: every non-empty condition must hold.
type rule struct {
	id      string
	status  []statusPattern
	reply   []replyPattern
	text    phraseMask // any
	all     []int32    // all
	unless  phraseMask // none
	regexps []*regexp.Regexp
	mta     []string
	action  []smtpcode.Action
	command []string

	then      thenSpec
	setStatus smtpcode.Status // the zero Status when the rule sets none
}

type scratch struct {
	text []byte
	hits []uint64
}

// Load returns an Engine with the rules of the given files, in order, followed
// by the built-in rules. First match wins, so local rules override built-in ones.
// Every file is validated: unknown keys, reasons outside the vocabulary, bad
// owners, malformed codes and texts are errors that name the file and the
// rule; the texts of all files together must give every text the engine
// writes.
func Load(files ...string) (*Engine, error) {
	type named struct {
		name string
		data []byte
	}
	var srcs []named
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("rules: %v", err)
		}
		srcs = append(srcs, named{f, data})
	}
	srcs = append(srcs, named{BuiltinName, builtinRules})

	e := &Engine{reasons: map[Reason]reasonSpec{}}
	table := &phraseTable{ids: map[string]int32{}}
	ids := map[string]string{}
	var texts []namedTexts
	for _, src := range srcs {
		f, err := decodeFile(src.name, src.data)
		if err != nil {
			return nil, fmt.Errorf("rules: %v", err)
		}
		texts = append(texts, namedTexts{src.name, f.Texts})
		for name, rs := range f.Reasons {
			if err := checkReason(src.name, name, rs); err != nil {
				return nil, fmt.Errorf("rules: %v", err)
			}
			if _, seen := e.reasons[name]; !seen {
				e.reasons[name] = rs // first definition wins, like rules
			}
		}
		for i, rs := range f.Rules {
			r, err := compileRule(src.name, i, rs, table)
			if err != nil {
				return nil, fmt.Errorf("rules: %v", err)
			}
			if prev, dup := ids[r.id]; dup && prev == src.name {
				return nil, fmt.Errorf("rules: %s: rule %d: id %q is used twice in the file", src.name, i+1, r.id)
			}
			ids[r.id] = src.name
			e.rules = append(e.rules, r)
		}
	}
	var err error
	if e.texts, err = compileTexts(texts); err != nil {
		return nil, fmt.Errorf("rules: %v", err)
	}
	e.phrases = newPhraseSet(table.list)
	words := e.phrases.words()
	e.scratch.New = func() any {
		return &scratch{text: make([]byte, 0, 512), hits: make([]uint64, words)}
	}
	return e, nil
}

// Classify reads one recipient record.
func (e *Engine) Classify(in Input) Classification {
	diag := in.Diagnostic
	if len(diag) > maxDiagnostic {
		diag = diag[:maxDiagnostic]
	}
	st, hasStatus := statusOf(in.Status)
	if !hasStatus {
		st, hasStatus = statusOf(smtpcode.FindStatus(diag))
	}
	reply := in.ReplyCode
	if reply == "" {
		reply = smtpcode.FindReply(diag)
	}
	rp := replyOf(reply)
	action := smtpcode.ParseAction(string(in.Action)) // "" when not an RFC 3464 action

	sc := e.scratch.Get().(*scratch)
	defer e.scratch.Put(sc)
	sc.text = normalize(sc.text[:0], diag)
	clear(sc.hits)
	e.phrases.match(sc.text, sc.hits)

	var matched *rule
	for _, r := range e.rules {
		if r.matches(&in, st, hasStatus, rp, action, sc) {
			matched = r
			break
		}
	}

	v := Classification{ReplyCode: reply, Reason: ReasonUndefined, Rule: ""}
	var t thenSpec
	if matched != nil {
		t = matched.then
		v.Reason = t.Reason
		v.Rule = matched.id
	}
	rd := e.reasons[v.Reason]

	// The status: the record's own, else the rule's, else one made from the
	// reason (as Sisimai does: class from the reply code or the action,
	// detail from the reason's code), so that every failure carries a code.
	class := classOf(rp.Class(), action, hasStatus, st)
	switch {
	case hasStatus:
		v.Status = st.String()
	case matched != nil && !matched.setStatus.IsZero():
		c := matched.setStatus
		if class != 0 && c.Class != smtpcode.ClassSuccess {
			c.Class = class
		}
		v.Status = c.String()
	case rd.Code != "" && class != 0 && (action == smtpcode.ActionFailed || action == smtpcode.ActionDelayed):
		// Only for records of a report: a looked-up reply keeps its own codes.
		v.Status = string(rune('0'+class)) + ".0." + rd.Code
	}
	v.Permanent = permanent(action, v.Status, rp)

	v.Owner = first(t.Owner, rd.Owner, OwnerUnknown)
	if action == smtpcode.ActionDelayed {
		v.Owner = OwnerNone // the sending server keeps trying
	}
	hard := rd.HardBounce
	if t.HardBounce != nil {
		hard = t.HardBounce
	}
	v.HardBounce = hard != nil && *hard && hardBounce(action, v.Status, rp)
	v.Summary = first(t.Summary, rd.Summary)
	cause := first(t.Cause, rd.Cause, e.texts[textUnknownCause].plain())
	v.Explanation = e.explain(t.Explanation, in, action, v.Status, cause)
	v.Fix = first(t.Fix, rd.Fix)
	if action == smtpcode.ActionDelayed && (t.Fix == "" || !slices.Contains(matched.action, smtpcode.ActionDelayed)) {
		// The reason's fix is for a final failure; a delay needs none yet.
		v.Fix = e.texts[textDelayedFix].plain()
	}
	return v
}

// statusOf reads an enhanced status code; false when code is not one.
func statusOf(code string) (smtpcode.Status, bool) {
	if code == "" || !smtpcode.IsStatus(code) {
		return smtpcode.Status{}, false
	}
	st, err := smtpcode.ParseStatus(code)
	return st, err == nil
}

// replyOf reads a reply code; 0 when code is not one.
func replyOf(code string) smtpcode.Reply {
	if !smtpcode.IsReply(code) {
		return 0
	}
	r, _ := smtpcode.ParseReply(code)
	return r
}

// classOf returns the class of a record, or 0 when nothing says. reply is
// the class of its reply code, 0 when it has none.
func classOf(reply smtpcode.Class, action smtpcode.Action, hasStatus bool, st smtpcode.Status) smtpcode.Class {
	switch {
	case hasStatus:
		return st.Class
	case action == smtpcode.ActionFailed && reply == smtpcode.ClassTransient:
		return smtpcode.ClassTransient // a temporary reply that the sending server gave up on
	case action == smtpcode.ActionFailed:
		return smtpcode.ClassPermanent
	case action == smtpcode.ActionDelayed:
		return smtpcode.ClassTransient
	case reply != 0:
		return reply
	case action.Success():
		return smtpcode.ClassSuccess
	}
	return 0
}

func (r *rule) matches(in *Input, st smtpcode.Status, hasStatus bool, reply smtpcode.Reply, action smtpcode.Action, sc *scratch) bool {
	if len(r.action) > 0 && !slices.Contains(r.action, action) {
		return false
	}
	if len(r.status) > 0 {
		ok := false
		for _, p := range r.status {
			if p.match(st, hasStatus) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(r.reply) > 0 {
		ok := false
		for _, p := range r.reply {
			if p.match(reply) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(r.command) > 0 && !slices.Contains(r.command, strings.ToUpper(in.Command)) {
		return false
	}
	if len(r.text) > 0 && !r.text.any(sc.hits) {
		return false
	}
	for _, id := range r.all {
		if sc.hits[id>>6]&(1<<(uint(id)&63)) == 0 {
			return false
		}
	}
	if len(r.unless) > 0 && r.unless.any(sc.hits) {
		return false
	}
	if len(r.mta) > 0 {
		ok := false
		for _, m := range r.mta {
			if containsFold(in.RemoteMTA, m) || containsFold(in.ReportingMTA, m) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(r.regexps) > 0 {
		ok := false
		for _, re := range r.regexps {
			if re.Match(sc.text) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains sub (lower case ASCII), ignoring
// ASCII case, without allocating.
func containsFold(s, sub string) bool {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			b := s[i+j]
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			if b != sub[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

func first[T ~string](s ...T) T {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// Lookup explains a bare enhanced code ("5.7.509"), a bare reply code
// ("550") or a pasted reply line ("550 5.7.26 Unauthenticated email ...").
// A reply line is read as the diagnostic of a bounce is: the same codes
// come out of it (package smtpcode reads both).
func (e *Engine) Lookup(codeOrReply string) Classification {
	text := strings.TrimSpace(codeOrReply)
	// A pasted reply is almost always the answer to a recipient (RCPT TO):
	// read it so, rather than as a refusal of unknown origin.
	in := Input{Diagnostic: text, Command: "RCPT"}
	if st, ok := statusOf(text); ok {
		in = Input{Status: st.String()}
	} else if smtpcode.IsReply(text) {
		in = Input{ReplyCode: text}
	}
	return e.Classify(in)
}

// Reading is the reading of one recipient record of a report.
type Reading struct {
	Kind      dsn.Kind
	Recipient dsn.Recipient
	Classification
}

// Explain reads every recipient record of r. A report that is not a delivery
// report yields one Reading with its Kind and an empty recipient.
// Auto-replies and feedback reports are never bounces: their records get the
// reasons "vacation" and "feedback".
func (e *Engine) Explain(r *dsn.Report) []Reading {
	if len(r.Recipients) == 0 {
		return []Reading{{Kind: r.Kind, Classification: e.notBounce(r)}}
	}
	out := make([]Reading, 0, len(r.Recipients))
	for _, rc := range r.Recipients {
		var v Classification
		switch r.Kind {
		case dsn.KindAutoreply, dsn.KindFeedback, dsn.KindReceipt, dsn.KindNone:
			v = e.notBounce(r)
		default:
			v = e.Classify(Input{Action: rc.Action, Status: rc.Status, ReplyCode: rc.ReplyCode,
				Diagnostic: rc.Diagnostic, RemoteMTA: rc.RemoteMTA, ReportingMTA: r.ReportingMTA,
				Command: rc.Command, Recipient: rc.Address})
		}
		out = append(out, Reading{Kind: r.Kind, Recipient: rc, Classification: v})
	}
	return out
}

// notBounce is the reading of a message that reports no delivery failure,
// or of a report without a recipient.
func (e *Engine) notBounce(r *dsn.Report) Classification {
	v := Classification{Owner: OwnerNone}
	t := e.texts
	switch r.Kind {
	case dsn.KindAutoreply:
		v.Reason = ReasonVacation
		v.Summary = t[textAutoreplySummary].plain()
		v.Explanation = t[textAutoreplyExplanation].plain()
	case dsn.KindFeedback:
		v.Reason = ReasonFeedback
		v.Owner = OwnerSenderAdmin
		v.Summary = t[textFeedbackSummary].plain()
		v.Explanation = t[textFeedbackExplanation].plain()
		if r.FeedbackType != "" {
			v.Explanation = t[textFeedbackTypedExplanation].render(&slotValues{slotType: sanitize(r.FeedbackType)})
		}
		v.Fix = t[textFeedbackFix].plain()
	case dsn.KindReceipt:
		v.Summary = t[textReceiptSummary].plain()
		v.Explanation = t[textReceiptExplanation].plain()
	case dsn.KindNone:
		v.Summary = t[textNotReportSummary].plain()
		v.Explanation = t[textNotReportExplanation].plain()
	default:
		v.Reason = ReasonUndefined
		v.Owner = OwnerUnknown
		v.Summary = t[textNoRecipientSummary].plain()
		v.Explanation = t[textNoRecipientExplanation].plain()
	}
	return v
}

// phraseMask is a set of phrase ids as the non-zero words of a bitset, so
// that "does any of these phrases occur" is a few ANDs.
type phraseMask []maskWord

type maskWord struct {
	index int
	bits  uint64
}

func newPhraseMask(ids []int32) phraseMask {
	var m phraseMask
	for _, id := range ids {
		w, bit := int(id>>6), uint64(1)<<(uint(id)&63)
		found := false
		for i := range m {
			if m[i].index == w {
				m[i].bits |= bit
				found = true
				break
			}
		}
		if !found {
			m = append(m, maskWord{w, bit})
		}
	}
	return m
}

// any reports whether hits holds any phrase of m.
func (m phraseMask) any(hits []uint64) bool {
	for _, w := range m {
		if hits[w.index]&w.bits != 0 {
			return true
		}
	}
	return false
}
