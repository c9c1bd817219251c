package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The rules file format (YAML). See rules.yaml for the built-in set and
// the package documentation for a user's override file.
//
//	texts:                # the fixed sentences the engine writes (texts.go)
//	  delayed_intro: "Delivery[ to {recipient}] is delayed, and the sending server keeps trying."
//	  ...                 # every text named in texts.go; [...] is shown when its placeholders have values
//	reasons:              # defaults per reason, used when a rule does not say
//	  userunknown:
//	    owner: sender
//	    hard_bounce: true
//	    code: "911"        # detail of the status filled in when none is known
//	    summary: address does not exist
//	    explanation: "The address[ {recipient}] does not exist[ at {remote}]."
//	    fix: Check the address for typos ...
//	    stages:            # where the SMTP stage changes the meaning
//	      connection: {owner: sender-admin, explanation: ..., fix: ...}
//	    facts:             # where a fact the server named changes it
//	      loop: {summary: mail loop, explanation: ..., fix: ...}
//	extractors:           # facts captured from any record's reply
//	  - id: blocklist-used
//	    text: [blocked using]        # any of these phrases (a cheap test first)
//	    regexp: ['blocked using (?P<list>[a-z0-9.-]+)']
//	    unit: bytes                  # a bare number captured as {limit} is bytes
//	rules:                # first match wins
//	  - id: ms-submission-quota
//	    when:             # every key given must match; within a key, any item
//	      status: [5.2.2, "5.7.606-649", "5.1.*", none]
//	      reply: [550, 5xx, none]
//	      text: [submission quota]   # any of these phrases (case-insensitive)
//	      all: [quota, sender]       # all of these phrases
//	      unless: [mailbox full]     # none of these phrases
//	      regexp: ['quota of (?P<limit>[0-9]+)']  # any of these (RE2), checked last; named groups capture facts
//	      mta: [outlook.com]         # remote or reporting MTA contains
//	      action: [failed, delayed]
//	      command: [MAIL, none]     # SMTP command of the failure; none: unknown
//	    then:
//	      reason: rejected
//	      owner: sender-admin
//	      hard_bounce: false
//	      status: 5.2.2    # filled in when the record has no enhanced code
//	      summary: ...
//	      explanation: ... # a template, or a list of them: the first whose placeholders have values
//	      fix: ...
//	      stages: {...}    # as for reasons
//	      facts: {...}     # as for reasons
//	      cause: ...       # older form: completes "... because <cause>." (explain_refused)
type fileSpec struct {
	Texts      map[string]string     `yaml:"texts"`
	Reasons    map[Reason]reasonSpec `yaml:"reasons"`
	Extractors []extractorSpec       `yaml:"extractors"`
	Rules      []ruleSpec            `yaml:"rules"`
}

type reasonSpec struct {
	Owner       Owner                `yaml:"owner"`
	HardBounce  *bool                `yaml:"hard_bounce"`
	Code        string               `yaml:"code"`
	Summary     string               `yaml:"summary"`
	Cause       string               `yaml:"cause"`
	Explanation textList             `yaml:"explanation"`
	Fix         textList             `yaml:"fix"`
	Stages      map[string]stageSpec `yaml:"stages"`
	Facts       map[string]stageSpec `yaml:"facts"`
}

// stageSpec are the words of a reason or a rule at one SMTP stage.
type stageSpec struct {
	Owner       Owner    `yaml:"owner"`
	Summary     string   `yaml:"summary"`
	Explanation textList `yaml:"explanation"`
	Fix         textList `yaml:"fix"`
}

type extractorSpec struct {
	ID     string   `yaml:"id"`
	Text   []string `yaml:"text"`
	Unless []string `yaml:"unless"`
	Regexp []string `yaml:"regexp"`
	Unit   string   `yaml:"unit"`
}

type ruleSpec struct {
	ID   string   `yaml:"id"`
	When whenSpec `yaml:"when"`
	Then thenSpec `yaml:"then"`
}

type whenSpec struct {
	Status  []string `yaml:"status"`
	Reply   []string `yaml:"reply"`
	Text    []string `yaml:"text"`
	All     []string `yaml:"all"`
	Unless  []string `yaml:"unless"`
	Regexp  []string `yaml:"regexp"`
	MTA     []string `yaml:"mta"`
	Action  []string `yaml:"action"`
	Command []string `yaml:"command"`
	// DiagnosticType is the diagnostic_type key: RFC 3464 Diagnostic-Code types.
	DiagnosticType []string `yaml:"diagnostic_type"`
}

type thenSpec struct {
	Reason      Reason               `yaml:"reason"`
	Owner       Owner                `yaml:"owner"`
	HardBounce  *bool                `yaml:"hard_bounce"`
	Status      string               `yaml:"status"`
	Summary     string               `yaml:"summary"`
	Cause       string               `yaml:"cause"`
	Explanation textList             `yaml:"explanation"`
	Fix         textList             `yaml:"fix"`
	Stages      map[string]stageSpec `yaml:"stages"`
	Facts       map[string]stageSpec `yaml:"facts"`
}

// textList is a template or a list of alternative templates: a string or a
// sequence of strings in the file.
type textList []string

// UnmarshalYAML reads a string or a sequence of strings.
func (t *textList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*t = textList{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(textList, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: expected a sentence, got a %s", c.Line, kindName(c.Kind))
			}
			out = append(out, c.Value)
		}
		*t = out
		return nil
	}
	return fmt.Errorf("line %d: expected a sentence or a list of sentences, got a %s", n.Line, kindName(n.Kind))
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}

// words are what a reading says to people: who must act, a summary, what
// happened and how to fix it. Empty fields defer to the next source (a
// rule's stage, the rule, the reason's stage, the reason).
type words struct {
	owner       Owner
	summary     phrase
	explanation alts
	fix         alts
}

// phrase is a summary: a few words without placeholders, and their
// translations by language index, as alts has them: tr is shared by every
// copy of the phrase and filled when a translation is first needed
// (Engine.translated), so that the copies made while Load merges the
// files get the translations too.
type phrase struct {
	en string
	tr *[]string
}

// in returns the phrase in language lang, English when there is no
// translation.
func (p *phrase) in(lang int) string {
	if lang > 0 && p.tr != nil && lang < len(*p.tr) && (*p.tr)[lang] != "" {
		return (*p.tr)[lang]
	}
	return p.en
}

// fill sets the empty fields of w from o.
func (w *words) fill(o words) {
	if w.owner == "" {
		w.owner = o.owner
	}
	if w.summary.en == "" {
		w.summary = o.summary
	}
	if w.explanation.empty() {
		w.explanation = o.explanation
	}
	if w.fix.empty() {
		w.fix = o.fix
	}
}

// reasonDef is the compiled defaults of a reason.
type reasonDef struct {
	HardBounce *bool
	Code       string
	Cause      string     // the older form of an explanation
	words                 // at any stage
	stages     keyedWords // at an SMTP stage, by index in stageKeys
	byFact     keyedWords // when the fact was captured, by index in facts
}

// fill sets the empty fields of d from o: a reason given by several files
// takes each field from the first file that gives it.
func (d *reasonDef) fill(o reasonDef) {
	if d.HardBounce == nil {
		d.HardBounce = o.HardBounce
	}
	if d.Code == "" {
		d.Code = o.Code
	}
	if d.Cause == "" {
		d.Cause = o.Cause
	}
	d.words.fill(o.words)
	d.stages = d.stages.merged(o.stages)
	d.byFact = d.byFact.merged(o.byFact)
}

// keyedWords are the words of a reason or a rule that apply at some SMTP
// stages or for some facts, sorted by key, each key at most once. Few rules
// have any: a list of the ones given, rather than an array with a place for
// every stage and fact, keeps the compiled rules small (an array of words
// per fact made every rule ~3.9 kB, mostly zeros, that the runtime scanned
// for pointers at every start: issue 14).
type keyedWords []keyWords

// keyWords are the words at one key: the index of a stage in stageKeys or
// of a fact in facts.
type keyWords struct {
	key uint8
	words
}

// at returns the words at key k, zero when there are none.
func (l keyedWords) at(k int) words {
	for i := range l {
		if int(l[i].key) == k {
			return l[i].words
		}
	}
	return words{}
}

// ref returns the words at key k in place, nil when there are none or
// they are zero (the translations attach to them).
func (l keyedWords) ref(k int) *words {
	for i := range l {
		if int(l[i].key) == k && !l[i].isZero() {
			return &l[i].words
		}
	}
	return nil
}

// merged returns l with the empty fields of its words filled from o, key by
// key, and o's other keys added. It does not change l or o: they may be
// another rule set's.
func (l keyedWords) merged(o keyedWords) keyedWords {
	if len(o) == 0 {
		return l
	}
	if len(l) == 0 {
		return o
	}
	out := make(keyedWords, 0, len(l)+len(o))
	i, j := 0, 0
	for i < len(l) || j < len(o) {
		switch {
		case j == len(o) || i < len(l) && l[i].key < o[j].key:
			out = append(out, l[i])
			i++
		case i == len(l) || o[j].key < l[i].key:
			out = append(out, o[j])
			j++
		default:
			kw := l[i]
			kw.fill(o[j].words)
			out = append(out, kw)
			i, j = i+1, j+1
		}
	}
	return out
}

// factWords returns the words of the first fact in fs that has words of its
// own, in the order of the fact vocabulary.
func factWords(byFact keyedWords, fs Facts) words {
	for i := range byFact {
		if fs.v[byFact[i].key] != "" && !byFact[i].isZero() {
			return byFact[i].words
		}
	}
	return words{}
}

// uses returns the slots the explanation and the fix of w can show.
func (w words) uses() slotSet { return w.explanation.uses | w.fix.uses }

// wordsUse returns the slots that any words of a rule's then t and of its
// reason rd can show, at any stage and for any fact.
func wordsUse(t *thenDef, rd *reasonDef) slotSet {
	s := t.words.uses() | rd.words.uses()
	for _, l := range [...]keyedWords{t.stages, rd.stages, t.byFact, rd.byFact} {
		for i := range l {
			s |= l[i].uses()
		}
	}
	return s
}

func (w words) isZero() bool {
	return w.owner == "" && w.summary.en == "" && w.explanation.empty() && w.fix.empty()
}

// thenDef is the compiled "then" of a rule.
type thenDef struct {
	Reason     Reason
	HardBounce *bool
	Cause      string
	words
	stages keyedWords // as reasonDef's
	byFact keyedWords
	// delays says that the rule is written for delay reports (its when
	// names the action delayed): its explanation and fix stand as they are.
	delays bool
	// finals says that the rule is written for final reports only (its
	// when names the action failed and not delayed): its words already say
	// that the sending server gave up, and get no gave_up_* sentence.
	finals bool
}

// decodeFile reads one rules file strictly: unknown keys are errors. It
// also returns the line of each rule and each extractor, in file order.
func decodeFile(name string, data []byte) (f *fileSpec, ruleLines, extractorLines []int, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	f = &fileSpec{}
	if err := dec.Decode(f); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil, nil, nil // an empty file adds nothing
		}
		return nil, nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	// The same document as nodes, for the lines (yaml.v3 keeps them on nodes
	// only; a node's Decode would not be strict).
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			var lines *[]int
			switch m.Content[i].Value {
			case "rules":
				lines = &ruleLines
			case "extractors":
				lines = &extractorLines
			default:
				continue
			}
			for _, item := range m.Content[i+1].Content {
				*lines = append(*lines, item.Line)
			}
		}
	}
	return f, ruleLines, extractorLines, nil
}

// lineOf returns lines[i], 0 when unknown.
func lineOf(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

// validID reports whether id may name a rule or an extractor: it goes into
// logs and is the label of a metric, so it is a short word of letters,
// digits and . _ : -.
func validID(id string) bool {
	if id == "" || len(id) > 100 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// compileRule validates a rule and compiles it against the phrase table.
// Errors name the file and the rule.
func compileRule(file string, index, line int, rs ruleSpec, phrases *phraseTable) (*rule, error) {
	where := fmt.Sprintf("%s: rule %d", file, index+1)
	if line > 0 {
		where = fmt.Sprintf("%s:%d: rule %d", file, line, index+1)
	}
	if rs.ID != "" {
		where += fmt.Sprintf(" (%s)", rs.ID)
	}
	if rs.ID == "" {
		return nil, fmt.Errorf("%s: missing id", where)
	}
	if !validID(rs.ID) {
		return nil, fmt.Errorf("%s: id %q: expected letters, digits and . _ : - (at most 100)", where, rs.ID)
	}
	w := rs.When
	if len(w.Status)+len(w.Reply)+len(w.Text)+len(w.All)+len(w.Regexp)+len(w.MTA)+len(w.Action)+len(w.Command)+len(w.DiagnosticType) == 0 {
		return nil, fmt.Errorf("%s: empty when: a rule must test at least one of status, reply, text, all, regexp, mta, action, command, diagnostic_type", where)
	}
	r := &rule{id: rs.ID, file: file, line: line}
	for _, s := range w.Status {
		p, err := parseStatusPattern(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		r.status = append(r.status, p)
	}
	for _, s := range w.Reply {
		p, err := parseReplyPattern(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		r.reply = append(r.reply, p)
	}
	ids, err := phrases.addAll(w.Text)
	if err != nil {
		return nil, fmt.Errorf("%s: text: %v", where, err)
	}
	r.textIDs = ids
	r.text = newPhraseMask(ids)
	if r.all, err = phrases.addAll(w.All); err != nil {
		return nil, fmt.Errorf("%s: all: %v", where, err)
	}
	if ids, err = phrases.addAll(w.Unless); err != nil {
		return nil, fmt.Errorf("%s: unless: %v", where, err)
	}
	r.unless = newPhraseMask(ids)
	for _, s := range w.Regexp {
		re, err := compileFactRegexp(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		r.regexps = append(r.regexps, newPattern(s, re))
	}
	for _, s := range w.MTA {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			return nil, fmt.Errorf("%s: mta: empty name", where)
		}
		r.mta = append(r.mta, s)
	}
	for _, s := range w.Action {
		a := smtpcode.ParseAction(strings.TrimSpace(s))
		if a == "" {
			return nil, fmt.Errorf("%s: action %q: expected failed, delayed, delivered, relayed or expanded (RFC 3464 section 2.3.3)", where, s)
		}
		r.action = append(r.action, a)
	}
	for _, s := range w.Command {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s == "" {
			return nil, fmt.Errorf("%s: command: empty (write none for a record without a command)", where)
		}
		if s == "NONE" {
			s = ""
		}
		r.command = append(r.command, s)
	}
	if r.diagType, err = diagnosticTypes(w.DiagnosticType); err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}

	t := rs.Then
	if t.Reason == "" {
		return nil, fmt.Errorf("%s: then.reason is missing", where)
	}
	if !t.Reason.Valid() {
		return nil, fmt.Errorf("%s: reason %q is not in the vocabulary (%s)", where, t.Reason, joined(reasons[:]))
	}
	if t.Status != "" {
		c, ok := statusOf(t.Status)
		if !ok {
			return nil, fmt.Errorf("%s: then.status %q: expected an enhanced status code such as 5.1.1", where, t.Status)
		}
		r.setStatus = c
	}
	if !isPrintableASCII(t.Cause) {
		return nil, fmt.Errorf("%s: summary, cause, explanation and fix must be plain printable ASCII", where)
	}
	ws, err := compileWords(t.Owner, t.Summary, t.Explanation, t.Fix, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	st, err := compileStages(t.Stages)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	bf, err := compileFactWords(t.Facts)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	r.then = thenDef{Reason: t.Reason, HardBounce: t.HardBounce, Cause: t.Cause, words: ws, stages: st, byFact: bf,
		delays: slices.Contains(r.action, smtpcode.ActionDelayed),
		finals: slices.Contains(r.action, smtpcode.ActionFailed) && !slices.Contains(r.action, smtpcode.ActionDelayed)}
	return r, nil
}

// compileWords validates and compiles the words of a reason, a rule or a
// stage.
// given are the slots sure to have a value where the words are used (the
// fact of a "facts:" entry).
func compileWords(owner Owner, summary string, explanation, fix textList, given slotSet) (words, error) {
	if owner != "" && !owner.Valid() {
		return words{}, fmt.Errorf("owner %q: expected one of %s", owner, joined(owners[:]))
	}
	if !isPrintableASCII(summary) {
		return words{}, fmt.Errorf("summary, cause, explanation and fix must be plain printable ASCII")
	}
	w := words{owner: owner, summary: phrase{en: summary}}
	if summary != "" {
		w.summary.tr = new([]string)
	}
	var err error
	if w.explanation, err = compileAlts(explanation, given); err != nil {
		return words{}, fmt.Errorf("explanation: %v", err)
	}
	if w.fix, err = compileAlts(fix, given); err != nil {
		return words{}, fmt.Errorf("fix: %v", err)
	}
	return w, nil
}

// compileStages compiles the "stages:" of a reason or a rule.
func compileStages(m map[string]stageSpec) (keyedWords, error) {
	var out keyedWords
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // errors in a stable order
	for _, k := range keys {
		i, ok := stageKeyIndex(k)
		if !ok {
			return out, fmt.Errorf("stages: %q is not a stage (known: %s)", k, strings.Join(stageKeys[:], ", "))
		}
		s := m[k]
		w, err := compileWords(s.Owner, s.Summary, s.Explanation, s.Fix, 0)
		if err != nil {
			return out, fmt.Errorf("stages: %s: %v", k, err)
		}
		out = append(out, keyWords{uint8(i), w})
	}
	slices.SortFunc(out, func(a, b keyWords) int { return int(a.key) - int(b.key) })
	return out, nil
}

// compileFactWords compiles the "facts:" of a reason or a rule.
func compileFactWords(m map[string]stageSpec) (keyedWords, error) {
	var out keyedWords
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		i, ok := factIndex(k)
		if !ok {
			return out, fmt.Errorf("facts: %q is not a fact (known: %s)", k, joined(facts[:]))
		}
		s := m[k]
		w, err := compileWords(s.Owner, s.Summary, s.Explanation, s.Fix, setOf(slotFact0+slot(i)))
		if err != nil {
			return out, fmt.Errorf("facts: %s: %v", k, err)
		}
		out = append(out, keyWords{uint8(i), w})
	}
	slices.SortFunc(out, func(a, b keyWords) int { return int(a.key) - int(b.key) })
	return out, nil
}

func compileReason(file string, name Reason, rs reasonSpec) (reasonDef, error) {
	where := fmt.Sprintf("%s: reasons: %s", file, name)
	if !name.Valid() {
		return reasonDef{}, fmt.Errorf("%s: not in the vocabulary (%s)", where, joined(reasons[:]))
	}
	if rs.Code != "" {
		if _, ok := statusOf("5.0." + rs.Code); !ok {
			return reasonDef{}, fmt.Errorf("%s: code %q: expected a status detail number 0-999", where, rs.Code)
		}
	}
	if !isPrintableASCII(rs.Cause) {
		return reasonDef{}, fmt.Errorf("%s: summary, cause and fix must be plain printable ASCII", where)
	}
	ws, err := compileWords(rs.Owner, rs.Summary, rs.Explanation, rs.Fix, 0)
	if err != nil {
		return reasonDef{}, fmt.Errorf("%s: %v", where, err)
	}
	st, err := compileStages(rs.Stages)
	if err != nil {
		return reasonDef{}, fmt.Errorf("%s: %v", where, err)
	}
	bf, err := compileFactWords(rs.Facts)
	if err != nil {
		return reasonDef{}, fmt.Errorf("%s: %v", where, err)
	}
	return reasonDef{HardBounce: rs.HardBounce, Code: rs.Code, Cause: rs.Cause, words: ws, stages: st, byFact: bf}, nil
}

// compileExtractor validates an extractor: an id, at least one regexp, each
// with named groups that are facts.
func compileExtractor(file string, index, line int, xs extractorSpec, phrases *phraseTable) (*extractor, error) {
	where := fmt.Sprintf("%s: extractor %d", file, index+1)
	if line > 0 {
		where = fmt.Sprintf("%s:%d: extractor %d", file, line, index+1)
	}
	if xs.ID != "" {
		where += fmt.Sprintf(" (%s)", xs.ID)
	}
	if !validID(xs.ID) {
		return nil, fmt.Errorf("%s: id %q: expected letters, digits and . _ : - (at most 100)", where, xs.ID)
	}
	if len(xs.Regexp) == 0 {
		return nil, fmt.Errorf("%s: no regexp: an extractor captures facts with the named groups of its regexps", where)
	}
	x := &extractor{id: xs.ID, file: file, line: line}
	switch xs.Unit {
	case "":
	case "bytes":
		x.bytes = true
	default:
		return nil, fmt.Errorf("%s: unit %q: expected bytes or nothing", where, xs.Unit)
	}
	ids, err := phrases.addAll(xs.Text)
	if err != nil {
		return nil, fmt.Errorf("%s: text: %v", where, err)
	}
	x.text = newPhraseMask(ids)
	if ids, err = phrases.addAll(xs.Unless); err != nil {
		return nil, fmt.Errorf("%s: unless: %v", where, err)
	}
	x.unless = newPhraseMask(ids)
	for _, s := range xs.Regexp {
		re, err := compileFactRegexp(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if !hasCaptures(re) {
			return nil, fmt.Errorf("%s: regexp %q captures nothing: name a group after a fact, (?P<list>...)", where, s)
		}
		x.regexps = append(x.regexps, newPattern(s, re))
	}
	return x, nil
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// phraseTable interns the phrases of all rules, so that each distinct phrase
// is searched once.
type phraseTable struct {
	ids  map[string]int32
	list []string
}

func (t *phraseTable) addAll(ps []string) ([]int32, error) {
	var out []int32
	for _, p := range ps {
		n := string(normalize(nil, p))
		if n == "" {
			return nil, fmt.Errorf("empty phrase")
		}
		id, ok := t.ids[n]
		if !ok {
			id = int32(len(t.list))
			t.ids[n] = id
			t.list = append(t.list, n)
		}
		out = append(out, id)
	}
	return out, nil
}

// diagnosticTypes reads the diagnostic_type key: RFC 3464 Diagnostic-Code
// types (section 2.3.6: "smtp", "x-unix"...), lower case; none for a record
// without one.
func diagnosticTypes(list []string) ([]string, error) {
	var out []string
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		switch {
		case s == "":
			return nil, fmt.Errorf("diagnostic_type: empty (write none for a record without a Diagnostic-Code type)")
		case s == "none":
			s = ""
		case strings.ContainsAny(s, " ;\t"):
			return nil, fmt.Errorf("diagnostic_type %q: expected a type such as smtp or x-unix (RFC 3464 section 2.3.6)", s)
		}
		out = append(out, s)
	}
	return out, nil
}
