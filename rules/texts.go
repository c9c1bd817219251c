package rules

import (
	"fmt"
	"sort"
	"strings"
)

// The sentences and phrases the engine writes itself (explanations of
// records no rule explains, the readings of messages that are not bounces)
// are data, in the "texts" section of a rules file, so that they can be
// reworded or translated without touching the code. Each text has a name;
// Load requires every name below, rejects unknown ones and checks that a
// text uses only the placeholders its name allows.
//
// A text may hold placeholders, {recipient}, and optional parts in square
// brackets, shown only when every placeholder inside has a value:
// "The message[ to {recipient}] was delivered[ by {remote}]." reads "The
// message was delivered." when neither is known.

// textKey names a text.
type textKey int

const (
	textUnknownCause textKey = iota
	textDelayedFix
	textUnnamedRecipient
	textUnnamedRemote
	textUnnamedReporting
	textExplainDelayed
	textExplainRefused
	textExplainUndelivered
	textExplainDelivered
	textExplainRelayed
	textExplainExpanded
	textExplainCause
	textAutoreplySummary
	textAutoreplyExplanation
	textFeedbackSummary
	textFeedbackExplanation
	textFeedbackTypedExplanation
	textFeedbackFix
	textReceiptSummary
	textReceiptExplanation
	textNotReportSummary
	textNotReportExplanation
	textNoRecipientSummary
	textNoRecipientExplanation
	numTexts
)

// slot names a value a text may hold.
type slot uint8

const (
	slotRecipient    slot = iota // {recipient}: the recipient's address
	slotRemote                   // {remote}: the server that refused or took the message
	slotCause                    // {cause}: the cause, "the address does not exist there"
	slotCauseCapital             // {Cause}: the cause starting with a capital letter
	slotType                     // {type}: the feedback type of an abuse report
	numSlots
)

var slotNames = [numSlots]string{"recipient", "remote", "cause", "Cause", "type"}

// textDefs are the texts, by key: the name in the rules file and the
// placeholders the text may use.
var textDefs = [numTexts]struct {
	name  string
	slots []slot
}{
	textUnknownCause:             {"unknown_cause", nil},
	textDelayedFix:               {"delayed_fix", nil},
	textUnnamedRecipient:         {"unnamed_recipient", nil},
	textUnnamedRemote:            {"unnamed_remote", nil},
	textUnnamedReporting:         {"unnamed_reporting", nil},
	textExplainDelayed:           {"explain_delayed", []slot{slotRecipient, slotRemote, slotCause}},
	textExplainRefused:           {"explain_refused", []slot{slotRecipient, slotRemote, slotCause}},
	textExplainUndelivered:       {"explain_undelivered", []slot{slotRecipient, slotCause}},
	textExplainDelivered:         {"explain_delivered", []slot{slotRecipient, slotRemote}},
	textExplainRelayed:           {"explain_relayed", []slot{slotRecipient, slotRemote}},
	textExplainExpanded:          {"explain_expanded", []slot{slotRecipient, slotRemote}},
	textExplainCause:             {"explain_cause", []slot{slotCause, slotCauseCapital}},
	textAutoreplySummary:         {"autoreply_summary", nil},
	textAutoreplyExplanation:     {"autoreply_explanation", nil},
	textFeedbackSummary:          {"feedback_summary", nil},
	textFeedbackExplanation:      {"feedback_explanation", nil},
	textFeedbackTypedExplanation: {"feedback_typed_explanation", []slot{slotType}},
	textFeedbackFix:              {"feedback_fix", nil},
	textReceiptSummary:           {"receipt_summary", nil},
	textReceiptExplanation:       {"receipt_explanation", nil},
	textNotReportSummary:         {"not_report_summary", nil},
	textNotReportExplanation:     {"not_report_explanation", nil},
	textNoRecipientSummary:       {"no_recipient_summary", nil},
	textNoRecipientExplanation:   {"no_recipient_explanation", nil},
}

// textNames lists the names of the texts, sorted, for error messages.
func textNames() string {
	names := make([]string, 0, numTexts)
	for _, d := range textDefs {
		names = append(names, d.name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// textPart is a piece of a compiled text: a literal, a placeholder, or an
// optional group of those.
type textPart struct {
	literal string
	slot    slot
	isSlot  bool
	group   []textPart // an optional part: shown when all its slots have values
}

// text is a compiled text.
type text []textPart

// slotValues are the values of the placeholders of one rendering.
type slotValues [numSlots]string

// compileText parses a text of the given key; errors say what is wrong.
func compileText(key textKey, s string) (text, error) {
	if s == "" {
		return nil, fmt.Errorf("empty")
	}
	if !isPrintableASCII(s) {
		return nil, fmt.Errorf("must be plain printable ASCII")
	}
	var out text
	var group *[]textPart // the open optional part, or nil
	add := func(p textPart) {
		if group != nil {
			*group = append(*group, p)
		} else {
			out = append(out, p)
		}
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "{[]")
		if i < 0 {
			add(textPart{literal: s})
			break
		}
		if i > 0 {
			add(textPart{literal: s[:i]})
		}
		switch s[i] {
		case '[':
			if group != nil {
				return nil, fmt.Errorf("optional parts [...] cannot nest")
			}
			out = append(out, textPart{})
			group = &out[len(out)-1].group
			s = s[i+1:]
		case ']':
			if group == nil {
				return nil, fmt.Errorf("] without [")
			}
			if !hasSlot(*group) {
				return nil, fmt.Errorf("an optional part [...] needs a placeholder")
			}
			group = nil
			s = s[i+1:]
		case '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return nil, fmt.Errorf("unclosed {")
			}
			name := s[i+1 : i+j]
			sl, ok := slotOf(key, name)
			if !ok {
				return nil, fmt.Errorf("unknown placeholder {%s} (known here: %s)", name, slotList(key))
			}
			add(textPart{slot: sl, isSlot: true})
			s = s[i+j+1:]
		}
	}
	if group != nil {
		return nil, fmt.Errorf("unclosed [")
	}
	return out, nil
}

func hasSlot(parts []textPart) bool {
	for _, p := range parts {
		if p.isSlot {
			return true
		}
	}
	return false
}

// slotOf returns the slot called name, if the text key may use it.
func slotOf(key textKey, name string) (slot, bool) {
	for _, sl := range textDefs[key].slots {
		if slotNames[sl] == name {
			return sl, true
		}
	}
	return 0, false
}

func slotList(key textKey) string {
	if len(textDefs[key].slots) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, sl := range textDefs[key].slots {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("{" + slotNames[sl] + "}")
	}
	return b.String()
}

// plain returns a text without placeholders as a string.
func (t text) plain() string {
	if len(t) == 1 && !t[0].isSlot && t[0].group == nil {
		return t[0].literal
	}
	return t.render(&slotValues{})
}

// render writes the text with the given values.
func (t text) render(v *slotValues) string {
	var b strings.Builder
	writeParts(&b, t, v)
	return b.String()
}

func writeParts(b *strings.Builder, parts []textPart, v *slotValues) {
	for _, p := range parts {
		switch {
		case p.group != nil:
			shown := true
			for _, q := range p.group {
				if q.isSlot && v[q.slot] == "" {
					shown = false
					break
				}
			}
			if shown {
				writeParts(b, p.group, v)
			}
		case p.isSlot:
			b.WriteString(v[p.slot])
		default:
			b.WriteString(p.literal)
		}
	}
}

// compileTexts compiles the texts of the rules files, given in the order of
// Load: the first file that gives a text wins, as for reasons. Every text
// must be given by some file.
func compileTexts(files []namedTexts) (*[numTexts]text, error) {
	var out [numTexts]text
	for _, f := range files {
		names := make([]string, 0, len(f.texts))
		for name := range f.texts {
			names = append(names, name)
		}
		sort.Strings(names) // errors in a stable order
		for _, name := range names {
			key, ok := textKeyOf(name)
			if !ok {
				return nil, fmt.Errorf("%s: texts: unknown text %q (known: %s)", f.file, name, textNames())
			}
			t, err := compileText(key, f.texts[name])
			if err != nil {
				return nil, fmt.Errorf("%s: texts: %s: %v", f.file, name, err)
			}
			if out[key] == nil {
				out[key] = t
			}
		}
	}
	var missing []string
	for k := range out {
		if out[k] == nil {
			missing = append(missing, textDefs[k].name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("texts: missing %s: every text must be given by some rules file", strings.Join(missing, ", "))
	}
	return &out, nil
}

// namedTexts are the texts of one rules file.
type namedTexts struct {
	file  string
	texts map[string]string
}

func textKeyOf(name string) (textKey, bool) {
	for k, d := range textDefs {
		if d.name == name {
			return textKey(k), true
		}
	}
	return 0, false
}
