package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The rules file format (YAML). See rules.yaml for the built-in set and
// README.md for a user's override file.
//
//	texts:                # the sentences the engine writes itself (texts.go)
//	  unknown_cause: the receiving side gave no reason that could be understood
//	  explain_delayed: "Delivery of the message[ to {recipient}] is delayed[ at {remote}] because {cause}; ..."
//	  ...                 # every text named in texts.go; [...] is shown when its placeholders have values
//	reasons:              # defaults per reason, used when a rule does not say
//	  userunknown:
//	    owner: sender
//	    hard_bounce: true
//	    code: "911"        # detail of the status filled in when none is known
//	    summary: address does not exist
//	    cause: the address does not exist there
//	    fix: Check the address for typos ...
//	rules:                # first match wins
//	  - id: ms-submission-quota
//	    when:             # every key given must match; within a key, any item
//	      status: [5.2.2, "5.7.606-649", "5.1.*", none]
//	      reply: [550, 5xx, none]
//	      text: [submission quota]   # any of these phrases (case-insensitive)
//	      all: [quota, sender]       # all of these phrases
//	      unless: [mailbox full]     # none of these phrases
//	      regexp: ['quota .* exceeded']  # any of these (RE2), checked last
//	      mta: [outlook.com]         # remote or reporting MTA contains
//	      action: [failed, delayed]
//	      command: [MAIL, none]     # SMTP command of the failure; none: unknown
//	    then:
//	      reason: rejected
//	      owner: sender-admin
//	      hard_bounce: false
//	      status: 5.2.2    # filled in when the record has no enhanced code
//	      summary: ...
//	      cause: ...       # completes "... because <cause>."
//	      explanation: ... # full template instead: {recipient} {remote} {reporting} {status} {cause}
//	      fix: ...
type fileSpec struct {
	Texts   map[string]string     `yaml:"texts"`
	Reasons map[Reason]reasonSpec `yaml:"reasons"`
	Rules   []ruleSpec            `yaml:"rules"`
}

type reasonSpec struct {
	Owner      Owner  `yaml:"owner"`
	HardBounce *bool  `yaml:"hard_bounce"`
	Code       string `yaml:"code"`
	Summary    string `yaml:"summary"`
	Cause      string `yaml:"cause"`
	Fix        string `yaml:"fix"`
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
}

type thenSpec struct {
	Reason      Reason `yaml:"reason"`
	Owner       Owner  `yaml:"owner"`
	HardBounce  *bool  `yaml:"hard_bounce"`
	Status      string `yaml:"status"`
	Summary     string `yaml:"summary"`
	Cause       string `yaml:"cause"`
	Explanation string `yaml:"explanation"`
	Fix         string `yaml:"fix"`
}

// decodeFile reads one rules file strictly: unknown keys are errors.
func decodeFile(name string, data []byte) (*fileSpec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f fileSpec
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return &f, nil // an empty file adds nothing
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &f, nil
}

// compileRule validates a rule and compiles it against the phrase table.
// Errors name the file and the rule.
func compileRule(file string, index int, rs ruleSpec, phrases *phraseTable) (*rule, error) {
	where := fmt.Sprintf("%s: rule %d", file, index+1)
	if rs.ID != "" {
		where += fmt.Sprintf(" (%s)", rs.ID)
	}
	if rs.ID == "" {
		return nil, fmt.Errorf("%s: missing id", where)
	}
	w := rs.When
	if len(w.Status)+len(w.Reply)+len(w.Text)+len(w.All)+len(w.Regexp)+len(w.MTA)+len(w.Action)+len(w.Command) == 0 {
		return nil, fmt.Errorf("%s: empty when: a rule must test at least one of status, reply, text, all, regexp, mta, action, command", where)
	}
	r := &rule{id: rs.ID, then: rs.Then}
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
	r.text = newPhraseMask(ids)
	if r.all, err = phrases.addAll(w.All); err != nil {
		return nil, fmt.Errorf("%s: all: %v", where, err)
	}
	if ids, err = phrases.addAll(w.Unless); err != nil {
		return nil, fmt.Errorf("%s: unless: %v", where, err)
	}
	r.unless = newPhraseMask(ids)
	for _, s := range w.Regexp {
		re, err := regexp.Compile("(?i)" + s)
		if err != nil {
			return nil, fmt.Errorf("%s: regexp %q: %v", where, s, err)
		}
		r.regexps = append(r.regexps, re)
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

	t := rs.Then
	if t.Reason == "" {
		return nil, fmt.Errorf("%s: then.reason is missing", where)
	}
	if !t.Reason.Valid() {
		return nil, fmt.Errorf("%s: reason %q is not in the vocabulary (%s)", where, t.Reason, joined(reasons[:]))
	}
	if t.Owner != "" && !t.Owner.Valid() {
		return nil, fmt.Errorf("%s: owner %q: expected one of %s", where, t.Owner, joined(owners[:]))
	}
	if t.Status != "" {
		c, ok := statusOf(t.Status)
		if !ok {
			return nil, fmt.Errorf("%s: then.status %q: expected an enhanced status code such as 5.1.1", where, t.Status)
		}
		r.setStatus = c
	}
	if err := checkTemplate(t.Explanation); err != nil {
		return nil, fmt.Errorf("%s: explanation: %v", where, err)
	}
	for _, s := range []string{t.Summary, t.Cause, t.Explanation, t.Fix} {
		if !isPrintableASCII(s) {
			return nil, fmt.Errorf("%s: summary, cause, explanation and fix must be plain printable ASCII", where)
		}
	}
	return r, nil
}

func checkReason(file string, name Reason, rs reasonSpec) error {
	where := fmt.Sprintf("%s: reasons: %s", file, name)
	if !name.Valid() {
		return fmt.Errorf("%s: not in the vocabulary (%s)", where, joined(reasons[:]))
	}
	if rs.Owner != "" && !rs.Owner.Valid() {
		return fmt.Errorf("%s: owner %q: expected one of %s", where, rs.Owner, joined(owners[:]))
	}
	if rs.Code != "" {
		if _, ok := statusOf("5.0." + rs.Code); !ok {
			return fmt.Errorf("%s: code %q: expected a status detail number 0-999", where, rs.Code)
		}
	}
	for _, s := range []string{rs.Summary, rs.Cause, rs.Fix} {
		if !isPrintableASCII(s) {
			return fmt.Errorf("%s: summary, cause and fix must be plain printable ASCII", where)
		}
	}
	return nil
}

var templateVars = []string{"{recipient}", "{remote}", "{reporting}", "{status}", "{cause}"}

func checkTemplate(t string) error {
	for i := strings.IndexByte(t, '{'); i >= 0; {
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return fmt.Errorf("unclosed { in %q", t)
		}
		v := t[i : i+j+1]
		known := false
		for _, k := range templateVars {
			known = known || v == k
		}
		if !known {
			return fmt.Errorf("unknown placeholder %s (known: %s)", v, strings.Join(templateVars, " "))
		}
		next := strings.IndexByte(t[i+j+1:], '{')
		if next < 0 {
			break
		}
		i = i + j + 1 + next
	}
	return nil
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
