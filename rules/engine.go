package rules

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/ndrmilter/ndrmilter/dsn"
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
	reasons map[string]reasonSpec
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
	action  []string
	command []string

	then         thenSpec
	setStatus    code
	hasSetStatus bool
}

type scratch struct {
	text []byte
	hits []uint64
}

// Load returns an Engine with the rules of the given files, in order, followed
// by the built-in rules. First match wins, so local rules override built-in ones.
// Every file is validated: unknown keys, reasons outside the vocabulary, bad
// owners and malformed codes are errors that name the file and the rule.
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

	e := &Engine{reasons: map[string]reasonSpec{}}
	table := &phraseTable{ids: map[string]int32{}}
	ids := map[string]string{}
	for _, src := range srcs {
		f, err := decodeFile(src.name, src.data)
		if err != nil {
			return nil, fmt.Errorf("rules: %v", err)
		}
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
	e.phrases = newPhraseSet(table.list)
	words := e.phrases.words()
	e.scratch.New = func() any {
		return &scratch{text: make([]byte, 0, 512), hits: make([]uint64, words)}
	}
	return e, nil
}

// Classify reads one recipient record.
func (e *Engine) Classify(in Input) Verdict {
	diag := in.Diagnostic
	if len(diag) > maxDiagnostic {
		diag = diag[:maxDiagnostic]
	}
	st, hasStatus := parseCode(in.Status)
	if !hasStatus {
		st, hasStatus = findCode(diag)
	}
	reply := in.ReplyCode
	if reply == "" {
		reply = leadingReply(diag)
	}
	action := strings.ToLower(in.Action)

	sc := e.scratch.Get().(*scratch)
	defer e.scratch.Put(sc)
	sc.text = normalize(sc.text[:0], diag)
	clear(sc.hits)
	e.phrases.match(sc.text, sc.hits)

	var matched *rule
	for _, r := range e.rules {
		if r.matches(&in, st, hasStatus, reply, action, sc) {
			matched = r
			break
		}
	}

	v := Verdict{ReplyCode: reply, Reason: "undefined", Rule: ""}
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
	class := classOf(reply, action, hasStatus, st)
	switch {
	case hasStatus:
		v.Status = st.String()
	case matched != nil && matched.hasSetStatus:
		c := matched.setStatus
		if class != 0 && c.class != 2 {
			c.class = class
		}
		v.Status = c.String()
	case rd.Code != "" && class != 0 && (action == "failed" || action == "delayed"):
		// Only for records of a report: a looked-up reply keeps its own codes.
		v.Status = string(rune('0'+class)) + ".0." + rd.Code
	}
	v.Permanent = strings.HasPrefix(v.Status, "5") || (v.Status == "" && strings.HasPrefix(reply, "5"))

	v.Owner = first(t.Owner, rd.Owner, OwnerUnknown)
	if action == "delayed" {
		v.Owner = OwnerNone // the sending server keeps trying
	}
	hard := rd.HardBounce
	if t.HardBounce != nil {
		hard = t.HardBounce
	}
	v.HardBounce = hard != nil && *hard && !strings.HasPrefix(v.Status, "4") && action != "delayed" &&
		!(v.Status == "" && strings.HasPrefix(reply, "4"))
	v.Summary = first(t.Summary, rd.Summary)
	cause := first(t.Cause, rd.Cause, "the receiving side gave no reason that could be understood")
	v.Explanation = explain(t.Explanation, in, action, v.Status, cause)
	v.Fix = first(t.Fix, rd.Fix)
	if action == "delayed" && (t.Fix == "" || !containsString(matched.action, "delayed")) {
		// The reason's fix is for a final failure; a delay needs none yet.
		v.Fix = delayedFix
	}
	return v
}

// delayedFix is the fix of a delayed record whose rule says nothing about
// delays.
const delayedFix = "Nothing to do yet: the sending server keeps retrying and sends a final report if it gives up. Check the address in the meantime."

// classOf returns the class (2, 4, 5) of a record, or 0 when nothing says.
func classOf(reply, action string, hasStatus bool, st code) int {
	switch {
	case hasStatus:
		return st.class
	case action == "failed" && reply != "" && reply[0] == '4':
		return 4 // a temporary reply that the sending server gave up on
	case action == "failed":
		return 5
	case action == "delayed":
		return 4
	case reply != "" && (reply[0] == '4' || reply[0] == '5' || reply[0] == '2'):
		return int(reply[0] - '0')
	case action == "delivered" || action == "relayed" || action == "expanded":
		return 2
	}
	return 0
}

func (r *rule) matches(in *Input, st code, hasStatus bool, reply, action string, sc *scratch) bool {
	if len(r.action) > 0 && !containsString(r.action, action) {
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
	if len(r.command) > 0 && !containsString(r.command, strings.ToUpper(in.Command)) {
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

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

func first(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// Lookup explains a bare enhanced code ("5.7.509") or a pasted reply line
// ("550 5.7.26 Unauthenticated email ...").
func (e *Engine) Lookup(codeOrReply string) Verdict {
	text := strings.TrimSpace(codeOrReply)
	// A pasted reply is almost always the answer to a recipient (RCPT TO):
	// read it so, rather than as a refusal of unknown origin.
	in := Input{Diagnostic: text, Command: "RCPT"}
	if c, ok := parseCode(text); ok {
		in = Input{Status: c.String()}
	} else if len(text) == 3 && leadingReply(text) != "" {
		in = Input{ReplyCode: text}
	}
	return e.Classify(in)
}

// Reading is the reading of one recipient record of a report.
type Reading struct {
	Kind      dsn.Kind
	Recipient dsn.Recipient
	Verdict
}

// Explain reads every recipient record of r. A report that is not a delivery
// report yields one Reading with its Kind and an empty recipient.
// Auto-replies and feedback reports are never bounces: their records get the
// reasons "vacation" and "feedback".
func (e *Engine) Explain(r *dsn.Report) []Reading {
	if len(r.Recipients) == 0 {
		return []Reading{{Kind: r.Kind, Verdict: e.notBounce(r, dsn.Recipient{})}}
	}
	out := make([]Reading, 0, len(r.Recipients))
	for _, rc := range r.Recipients {
		var v Verdict
		switch r.Kind {
		case dsn.KindAutoreply, dsn.KindFeedback, dsn.KindReceipt, dsn.KindNone:
			v = e.notBounce(r, rc)
		default:
			v = e.Classify(Input{Action: rc.Action, Status: rc.Status, ReplyCode: rc.ReplyCode,
				Diagnostic: rc.Diagnostic, RemoteMTA: rc.RemoteMTA, ReportingMTA: r.ReportingMTA,
				Command: rc.Command, Recipient: rc.Address})
		}
		out = append(out, Reading{Kind: r.Kind, Recipient: rc, Verdict: v})
	}
	return out
}

// notBounce is the verdict for a message that reports no delivery failure.
func (e *Engine) notBounce(r *dsn.Report, rc dsn.Recipient) Verdict {
	v := Verdict{Owner: OwnerNone}
	switch r.Kind {
	case dsn.KindAutoreply:
		v.Reason = "vacation"
		v.Summary = "auto-reply"
		v.Explanation = "This is an automatic reply (for example an out-of-office notice), not a bounce: the message was delivered."
	case dsn.KindFeedback:
		v.Reason = "feedback"
		v.Owner = OwnerSenderAdmin
		v.Summary = "complaint report"
		v.Explanation = "This is a feedback (abuse) report: a recipient or their provider flagged the message, for example as spam. It is not a bounce."
		if r.FeedbackType != "" {
			v.Explanation = fmt.Sprintf("This is a feedback report of type %s: a recipient or their provider flagged the message. It is not a bounce.", sanitize(r.FeedbackType))
		}
		v.Fix = "Stop mailing the recipient who complained, and check why they did not expect the message."
	case dsn.KindReceipt:
		v.Summary = "read receipt"
		v.Explanation = "This is a read receipt (message disposition notification), not a bounce."
	case dsn.KindNone:
		v.Summary = "not a bounce"
		v.Explanation = "This message is not a delivery report."
	default:
		v.Reason = "undefined"
		v.Owner = OwnerUnknown
		v.Summary = "no recipient found"
		v.Explanation = "This looks like a delivery report, but no recipient could be read from it."
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
