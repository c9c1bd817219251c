package rules

import (
	"fmt"
	"sort"
	"strings"
)

// Every sentence ndrmilter writes is data: the fixed sentences in the "texts"
// section of a rules file (the readings of messages that are not bounces,
// the opening of a delay...), and the summary, explanation and fix of each
// reason and rule. Each is a whole sentence (or several) with named
// placeholders, never a sentence glued together from fragments, so that it
// can be reworded or translated as a whole.
//
// A template holds placeholders, {recipient}, and optional parts in square
// brackets, shown only when every placeholder inside has a value: "The
// message[ to {recipient}] was refused[ by {remote}]." reads "The message was
// refused." when neither is known. {?name} is a test: it shows nothing, and
// the template needs the value as {name} would. An explanation or a fix may
// be a list of alternatives: the first whose placeholders outside brackets
// all have values is used, so a sentence that names the block list comes
// first and a fallback that does not comes last. Load checks every
// placeholder against the names the template may use, and that the last
// alternative needs no fact.

// textKey names a fixed text of the "texts" section.
type textKey int

const (
	textUnknownCause textKey = iota
	textDelayedFix
	textDelayedIntro
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
	textAutoreplyQuotedExplanation
	textDepartedSummary
	textDepartedExplanation
	textDepartedFix
	textChallengeSummary
	textChallengeExplanation
	textChallengeFix
	textListBounceNoticeSummary
	textListBounceNoticeExplanation
	textListBounceNoticeFix
	textListBounceNoticeDisabled
	textListBounceNoticeRemoved
	textListBounceNoticeCounted
	textListUncaughtBounceSummary
	textListUncaughtBounceExplanation
	textListUncaughtBounceFix
	textListHeldSummary
	textListHeldExplanation
	textListHeldFix
	textListHeldNonMemberFix
	textFeedbackSummary
	textFeedbackExplanation
	textFeedbackTypedExplanation
	textFeedbackFix
	textReceiptSummary
	textReceiptExplanation
	textReceiptDeletedExplanation
	textReceiptUndisplayedExplanation
	textNotReportSummary
	textNotReportExplanation
	textNoRecipientSummary
	textNoRecipientExplanation
	textDMARCAggregateSummary
	textDMARCAggregateExplanation
	textQuotaWarningSummary
	textQuotaWarningExplanation
	textQuotaWarningFix
	textOwnScannerSummary
	textOwnScannerExplanation
	textOwnScannerFix
	textForwardedIntro
	textForwardedFix
	textForwardedRefused
	textForwardedRefusedFix
	textDelayedLastingFix
	textDelayedMailboxFullFix
	textGaveUpRefused
	textGaveUpFailed
	textInternalHopSummary
	textInternalHopExplanation
	textInternalHopDelayedExplanation
	textInternalHopFix
	textInternalHopDelayedFix
	textLegacyDNSummary
	textLegacyDNExplanation
	textLegacyDNFix
	textForwardingBlockedSummary
	textForwardingBlockedExplanation
	textForwardingBlockedFix
	textForwardingUnknownExplanation
	textForwardingUnknownFix
	textDelayedRefused
	textDelayedNoAnswer
	textDelayedDNS
	textDelayedUnreachable
	textDelayedSummary
	textDelayedDeadline
	textDelayedSenderSideFix
	textDelayedRecipientSideFix
	textRelayOwnExplanation
	textRelayOwnFix
	textRelayEitherExplanation
	textRelayEitherFix
	textLoopHopsNote
	textLoopMyselfNote
	textLoopOwnServerFix
	numTexts
)

// slot names a value a template may hold: a value of the record, or a fact
// (slotFact0 + the fact's index in facts).
type slot uint8

const (
	slotRecipient    slot = iota // {recipient}: the recipient's address
	slotRemote                   // {remote}: the server that refused or took the message
	slotReporting                // {reporting}: the server that wrote the report
	slotStatus                   // {status}: the status code (older local rules use it)
	slotDomain                   // {domain}: the domain of the recipient's address
	slotReply                    // {reply}: the server's reply, shortened, when it can be read
	slotCause                    // {cause}: the cause of an older rule, "the address does not exist there"
	slotCauseCapital             // {Cause}: the cause starting with a capital letter
	slotType                     // {type}: the feedback type of an abuse report
	slotOriginal                 // {original}: the address the sender wrote, which the recipient's side forwarded
	slotFinal                    // {final}: set when the server's refusal was permanent (a class-5 code), not a temporary one given up on
	slotOwnServer                // {own_server}: set when the refusal may have come from the sender's own server (ownServerRefusal)
	slotGivenUp                  // {given_up}: set when the sending server gave up on a temporary failure (Action: failed, a class-4 or no code)
	slotFact0                    // the facts follow, in the order of facts
)

const numSlots = int(slotFact0) + numFacts

var baseSlotNames = [slotFact0]string{"recipient", "remote", "reporting", "status", "domain", "reply", "cause", "Cause", "type", "original", "final", "own_server", "given_up"}

func (s slot) name() string {
	if s < slotFact0 {
		return baseSlotNames[s]
	}
	return string(facts[s-slotFact0])
}

// slotOf returns the slot called name, in any template.
func slotOf(name string) (slot, bool) {
	for i, n := range baseSlotNames {
		if n == name {
			return slot(i), true
		}
	}
	if i, ok := factIndex(name); ok {
		return slotFact0 + slot(i), true
	}
	return 0, false
}

// slotSet is a set of slots (numSlots is below 64).
type slotSet uint64

func setOf(slots ...slot) slotSet {
	var s slotSet
	for _, sl := range slots {
		s |= 1 << sl
	}
	return s
}

func (s slotSet) has(sl slot) bool { return s&(1<<sl) != 0 }

func (s slotSet) String() string {
	var names []string
	for sl := slot(0); int(sl) < numSlots; sl++ {
		if s.has(sl) {
			names = append(names, "{"+sl.name()+"}")
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

// factSlots are the slots of the facts.
var factSlots = func() slotSet {
	var s slotSet
	for i := range facts {
		s |= 1 << (slotFact0 + slot(i))
	}
	return s
}()

// ruleSlots are the placeholders of the explanation and fix of a reason or
// a rule.
var ruleSlots = setOf(slotRecipient, slotRemote, slotReporting, slotStatus, slotDomain, slotReply, slotCause, slotFinal, slotOwnServer, slotGivenUp) | factSlots

// standInSlots are the placeholders the last alternative of a reason's or a
// rule's template may use outside [...]: they get a stand-in word when they
// have no value ("the recipient"), as older local rules expect. Built-in
// templates do not rely on that (a test checks).
var standInSlots = setOf(slotRecipient, slotRemote, slotReporting, slotStatus, slotCause)

// textDefs are the fixed texts, by key: the name in the rules file and the
// placeholders the text may use.
var textDefs = [numTexts]struct {
	name  string
	slots slotSet
}{
	textUnknownCause:                  {"unknown_cause", 0},
	textDelayedFix:                    {"delayed_fix", deadlineSlots},
	textDelayedIntro:                  {"delayed_intro", setOf(slotRecipient, slotRemote)},
	textUnnamedRecipient:              {"unnamed_recipient", 0},
	textUnnamedRemote:                 {"unnamed_remote", 0},
	textUnnamedReporting:              {"unnamed_reporting", 0},
	textExplainDelayed:                {"explain_delayed", setOf(slotRecipient, slotRemote, slotCause)},
	textExplainRefused:                {"explain_refused", setOf(slotRecipient, slotRemote, slotCause)},
	textExplainUndelivered:            {"explain_undelivered", setOf(slotRecipient, slotCause)},
	textExplainDelivered:              {"explain_delivered", setOf(slotRecipient, slotRemote)},
	textExplainRelayed:                {"explain_relayed", setOf(slotRecipient, slotRemote)},
	textExplainExpanded:               {"explain_expanded", setOf(slotRecipient, slotRemote)},
	textExplainCause:                  {"explain_cause", setOf(slotCause, slotCauseCapital)},
	textAutoreplySummary:              {"autoreply_summary", 0},
	textAutoreplyExplanation:          {"autoreply_explanation", 0},
	textAutoreplyQuotedExplanation:    {"autoreply_quoted_explanation", setOf(slotReply)},
	textDepartedSummary:               {"departed_summary", 0},
	textDepartedExplanation:           {"departed_explanation", setOf(slotReply)},
	textDepartedFix:                   {"departed_fix", 0},
	textChallengeSummary:              {"challenge_summary", 0},
	textChallengeExplanation:          {"challenge_explanation", 0},
	textChallengeFix:                  {"challenge_fix", 0},
	textListBounceNoticeSummary:       {"list_bounce_notice_summary", 0},
	textListBounceNoticeExplanation:   {"list_bounce_notice_explanation", 0},
	textListBounceNoticeFix:           {"list_bounce_notice_fix", 0},
	textListBounceNoticeDisabled:      {"list_bounce_notice_disabled", setOf(slotRecipient)},
	textListBounceNoticeRemoved:       {"list_bounce_notice_removed", setOf(slotRecipient)},
	textListBounceNoticeCounted:       {"list_bounce_notice_counted", setOf(slotRecipient)},
	textListUncaughtBounceSummary:     {"list_uncaught_bounce_summary", 0},
	textListUncaughtBounceExplanation: {"list_uncaught_bounce_explanation", 0},
	textListUncaughtBounceFix:         {"list_uncaught_bounce_fix", 0},
	textListHeldSummary:               {"list_held_summary", 0},
	textListHeldExplanation:           {"list_held_explanation", setOf(slotRecipient, slotReply)},
	textListHeldFix:                   {"list_held_fix", 0},
	textListHeldNonMemberFix:          {"list_held_nonmember_fix", 0},
	textFeedbackSummary:               {"feedback_summary", 0},
	textFeedbackExplanation:           {"feedback_explanation", 0},
	textFeedbackTypedExplanation:      {"feedback_typed_explanation", setOf(slotType)},
	textFeedbackFix:                   {"feedback_fix", 0},
	textReceiptSummary:                {"receipt_summary", 0},
	textReceiptExplanation:            {"receipt_explanation", 0},
	textReceiptDeletedExplanation:     {"receipt_deleted_explanation", 0},
	textReceiptUndisplayedExplanation: {"receipt_undisplayed_explanation", 0},
	textNotReportSummary:              {"not_report_summary", 0},
	textNotReportExplanation:          {"not_report_explanation", 0},
	textNoRecipientSummary:            {"no_recipient_summary", 0},
	textNoRecipientExplanation:        {"no_recipient_explanation", 0},
	textDMARCAggregateSummary:         {"dmarc_aggregate_summary", 0},
	textDMARCAggregateExplanation:     {"dmarc_aggregate_explanation", 0},
	textQuotaWarningSummary:           {"quota_warning_summary", 0},
	textQuotaWarningExplanation: {"quota_warning_explanation", setOf(slotFact0+slot(slotIndexOf(FactPercent)),
		slotFact0+slot(slotIndexOf(FactUsed)), slotFact0+slot(slotIndexOf(FactLimit)))},
	textQuotaWarningFix: {"quota_warning_fix", 0},
	// A message stopped for malware by the sender's own outgoing scanner
	// (ownscanner.go).
	textOwnScannerSummary:     {"own_scanner_summary", 0},
	textOwnScannerExplanation: {"own_scanner_explanation", ownScannerSlots},
	textOwnScannerFix:         {"own_scanner_fix", ownScannerSlots},
	textForwardedIntro:        {"forwarded_intro", setOf(slotOriginal, slotRecipient)},
	textForwardedFix:          {"forwarded_fix", setOf(slotOriginal, slotRecipient)},
	textForwardedRefused:      {"forwarded_refused", setOf(slotOriginal, slotRecipient, slotRemote, slotReply, slotFact0+slot(slotIndexOf(FactIP)))},
	textForwardedRefusedFix:   {"forwarded_refused_fix", setOf(slotOriginal, slotRecipient)},
	textDelayedLastingFix:     {"delayed_lasting_fix", setOf(slotRecipient) | deadlineSlots},
	textDelayedMailboxFullFix: {"delayed_mailboxfull_fix", setOf(slotRecipient) | deadlineSlots},
	textGaveUpRefused:         {"gave_up_refused", setOf(slotRemote)},
	textGaveUpFailed:          {"gave_up_failed", 0},
	// The recipient organisation's gateway could not pass the message on
	// to its internal server (internalhop.go).
	textInternalHopSummary:            {"internal_hop_summary", 0},
	textInternalHopExplanation:        {"internal_hop_explanation", internalHopSlots},
	textInternalHopDelayedExplanation: {"internal_hop_delayed_explanation", internalHopSlots},
	textInternalHopFix:                {"internal_hop_fix", internalHopSlots},
	textInternalHopDelayedFix:         {"internal_hop_delayed_fix", internalHopSlots},
	// A stale Exchange X.500 address (IMCEAEX) that no longer resolves
	// (legacydn.go).
	textLegacyDNSummary:     {"legacy_dn_summary", 0},
	textLegacyDNExplanation: {"legacy_dn_explanation", 0},
	textLegacyDNFix:         {"legacy_dn_fix", 0},
	// Exchange Online's 5.7.520 when the recipient's mailbox forwarded the
	// message, or when the report does not show whose (externalforwarding.go).
	textForwardingBlockedSummary:     {"forwarding_blocked_summary", 0},
	textForwardingBlockedExplanation: {"forwarding_blocked_explanation", setOf(slotOriginal, slotRecipient)},
	textForwardingBlockedFix:         {"forwarding_blocked_fix", setOf(slotOriginal, slotRecipient)},
	textForwardingUnknownExplanation: {"forwarding_unknown_explanation", setOf(slotRecipient)},
	textForwardingUnknownFix:         {"forwarding_unknown_fix", setOf(slotRecipient)},
	// A delay read as expired (Sisimai's expired phrases name retries too),
	// whose rule has no words for delays: the cause so far, not an expiry
	// (delayedExpiryText).
	textDelayedRefused:     {"delayed_refused", setOf(slotRecipient, slotFact0+slot(slotIndexOf(FactHost)))},
	textDelayedNoAnswer:    {"delayed_no_answer", setOf(slotRecipient, slotFact0+slot(slotIndexOf(FactHost)))},
	textDelayedDNS:         {"delayed_dns", setOf(slotRecipient, slotDomain)},
	textDelayedUnreachable: {"delayed_unreachable", setOf(slotRecipient, slotRemote, slotReply)},
	textDelayedSummary:     {"delayed_summary", 0},
	// The deadline after a rule's own fix for a delay (Engine.sentences).
	textDelayedDeadline: {"delayed_deadline", deadlineSlots},
	// The fix of a delay whose cause names who must act if it persists
	// (delayedOwner, delay.go).
	textDelayedSenderSideFix: {"delayed_sender_side_fix", deadlineSlots | setOf(slotFact0+slot(slotIndexOf(FactIP)),
		slotFact0+slot(slotIndexOf(FactList)), slotFact0+slot(slotIndexOf(FactURL)))},
	textDelayedRecipientSideFix: {"delayed_recipient_side_fix", deadlineSlots | setOf(slotFact0+slot(slotIndexOf(FactHost)))},
	// A relay refusal by the sender's own relay, or by a server whose side
	// cannot be told (relayside.go).
	textRelayOwnExplanation:    {"relay_own_explanation", setOf(slotRecipient, slotRemote, slotDomain)},
	textRelayOwnFix:            {"relay_own_fix", setOf(slotRecipient, slotRemote, slotDomain)},
	textRelayEitherExplanation: {"relay_either_explanation", setOf(slotRecipient, slotRemote, slotDomain)},
	textRelayEitherFix:         {"relay_either_fix", setOf(slotRecipient, slotRemote, slotDomain)},
	// What a loop's report says of it: the hops and their limit, the
	// domain whose mail servers point back (loopNote).
	textLoopHopsNote:     {"loop_hops_note", setOf(slotFact0+slot(slotIndexOf(FactCount)), slotFact0+slot(slotIndexOf(FactLimit)))},
	textLoopMyselfNote:   {"loop_myself_note", setOf(slotReporting, slotFact0+slot(slotIndexOf(FactHost)))},
	textLoopOwnServerFix: {"loop_own_server_fix", setOf(slotReporting, slotFact0+slot(slotIndexOf(FactHost)))},
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

// textPart is a piece of a compiled template: a literal, a placeholder (or
// a test, {?name}), or an optional group of those.
type textPart struct {
	literal string
	slot    slot
	isSlot  bool
	test    bool // {?name}: needs the value, shows nothing
	group   []textPart
}

// text is one compiled template.
type text []textPart

// slotValues are the values of the placeholders of one rendering.
type slotValues [numSlots]string

// compileText parses a template of a rules file, plain printable ASCII,
// that may use the slots of allowed; errors say what is wrong.
func compileText(s string, allowed slotSet) (text, error) {
	if s == "" {
		return nil, fmt.Errorf("empty")
	}
	if !isPrintableASCII(s) {
		return nil, fmt.Errorf("must be plain printable ASCII")
	}
	return parseText(s, allowed)
}

// parseText parses a template: literals, {placeholders}, {?tests} and
// optional parts in [...].
func parseText(s string, allowed slotSet) (text, error) {
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
			test := strings.HasPrefix(name, "?")
			name = strings.TrimPrefix(name, "?")
			sl, ok := slotOf(name)
			if !ok || !allowed.has(sl) {
				return nil, fmt.Errorf("unknown placeholder {%s} (known here: %s)", s[i+1:i+j], allowed)
			}
			add(textPart{slot: sl, isSlot: true, test: test})
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

// needs returns the slots a template needs: those outside [...].
func (t text) needs() slotSet {
	var s slotSet
	for _, p := range t {
		if p.isSlot {
			s |= 1 << p.slot
		}
	}
	return s
}

// uses returns every slot a template names.
func (t text) uses() slotSet {
	var s slotSet
	for _, p := range t {
		switch {
		case p.isSlot:
			s |= 1 << p.slot
		case p.group != nil:
			s |= text(p.group).uses()
		}
	}
	return s
}

// satisfied reports whether every slot t needs has a value.
func (t text) satisfied(v *slotValues) bool {
	for _, p := range t {
		if p.isSlot && v[p.slot] == "" {
			return false
		}
	}
	return true
}

// plain returns a text without placeholders as a string.
func (t text) plain() string {
	if len(t) == 1 && !t[0].isSlot && t[0].group == nil {
		return t[0].literal
	}
	return t.render(&slotValues{})
}

// render writes the text with the given values, in one allocation.
func (t text) render(v *slotValues) string {
	if len(t) == 1 && t[0].group == nil && !t[0].isSlot {
		return t[0].literal // a text without placeholders is its words
	}
	var b strings.Builder
	b.Grow(walkParts(nil, t, v))
	walkParts(&b, t, v)
	return b.String()
}

// walkParts writes the parts to b, or only measures them when b is nil; it
// returns their length.
func walkParts(b *strings.Builder, parts []textPart, v *slotValues) int {
	n := 0
	for _, p := range parts {
		var s string
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
				n += walkParts(b, p.group, v)
			}
			continue
		case p.isSlot:
			if !p.test {
				s = v[p.slot]
			}
		default:
			s = p.literal
		}
		n += len(s)
		if b != nil {
			b.WriteString(s)
		}
	}
	return n
}

// alts are the alternatives of an explanation or a fix: the first whose
// needs are met is shown, else the last. tr holds the translations of the
// built-in ones, by language index (see languages.go): nil where a language
// has none, which then shows list. Like phrase's, it is shared by the copies
// and filled when first needed.
type alts struct {
	list []text
	uses slotSet
	tr   *[][]text
}

func (a alts) empty() bool { return len(a.list) == 0 }

// in returns the alternatives in language lang, English when there is no
// translation.
func (a *alts) in(lang int) []text {
	if lang > 0 && a.tr != nil && lang < len(*a.tr) && (*a.tr)[lang] != nil {
		return (*a.tr)[lang]
	}
	return a.list
}

// compileAlts compiles the alternatives of a reason's or a rule's explanation
// or fix. The last one may need no fact, {reply} or {domain} but those of
// given (the fact whose words these are): it is the sentence shown when the
// server named nothing more.
func compileAlts(src []string, given slotSet) (alts, error) {
	var a alts
	for i, s := range src {
		t, err := compileText(s, ruleSlots)
		if err != nil {
			if len(src) > 1 {
				return alts{}, fmt.Errorf("alternative %d: %v", i+1, err)
			}
			return alts{}, err
		}
		a.list = append(a.list, t)
		a.uses |= t.uses()
	}
	if n := len(a.list); n > 0 {
		if extra := a.list[n-1].needs() &^ standInSlots &^ given; extra != 0 {
			return alts{}, fmt.Errorf("the last alternative needs %s, which the reply may not give: put it in [...] or add a sentence without it after this one", extra)
		}
		a.tr = new([][]text)
	}
	return a, nil
}

// choose returns, in language lang, the first alternative whose needs are
// met by the values v; failing all, the last, and true: it is to be shown
// with the stand-in words for the values v lacks, which it writes into w.
func (a *alts) choose(lang int, v, standIn, w *slotValues) (_ text, stoodIn bool) {
	list := a.in(lang)
	for i, t := range list {
		if t.satisfied(v) {
			return t, false
		}
		if i == len(list)-1 {
			*w = *v
			for sl := slot(0); int(sl) < numSlots; sl++ {
				if w[sl] == "" {
					w[sl] = standIn[sl]
				}
			}
			return t, true
		}
	}
	return nil, false
}

// sentenceValues are the sets of values the pieces of a reading's
// sentences are written with, by the index a piece names.
type sentenceValues [numValueSets]slotValues

// The sets of sentenceValues. A piece names its set by index, not by
// pointer: a pointer in the piece, whose string may be returned, would
// make the compiler put the sets on the heap (escape analysis does not
// tell a struct's fields apart).
const (
	valuesRecord         = iota // the record's
	valuesOwn                   // the record's, for the rule's or reason's explanation
	valuesExplainStandIn        // valuesOwn with stand-in words
	valuesFixStandIn            // valuesRecord with stand-in words
	valuesExplain               // explain's
	valuesNone                  // none: text.plain
	numValueSets
)

// piece is a part of the sentences of a reading: a text to write with the
// values of set v, or a string as it is (t nil).
type piece struct {
	t text
	v uint8
	s string
}

// textPiece returns the piece of t with the values of set v: a string
// when t is a literal alone.
func textPiece(t text, v uint8) piece {
	if len(t) == 1 && !t[0].isSlot && t[0].group == nil {
		return piece{s: t[0].literal}
	}
	return piece{t: t, v: v}
}

// len returns the length of what p writes.
func (p *piece) len(vs *sentenceValues) int {
	if p.t != nil {
		return walkParts(nil, p.t, &vs[p.v])
	}
	return len(p.s)
}

// write writes p to b.
func (p *piece) write(b *strings.Builder, vs *sentenceValues) {
	if p.t != nil {
		walkParts(b, p.t, &vs[p.v])
		return
	}
	b.WriteString(p.s)
}

// piecesLen returns the length of the pieces written one after the other.
func piecesLen(ps []piece, vs *sentenceValues) int {
	n := 0
	for i := range ps {
		n += ps[i].len(vs)
	}
	return n
}

// joinSentences returns the explanation, the pieces expl written one
// after the other, and the fix, in one allocation at most: both are parts
// of one string, and one that is a string as it is stays that string.
func joinSentences(expl []piece, fix piece, vs *sentenceValues) (explanation, fixText string) {
	explCopy := len(expl) > 1 || len(expl) == 1 && expl[0].t != nil
	fixCopy := fix.t != nil
	size, explLen := 0, 0
	if explCopy {
		explLen = piecesLen(expl, vs)
		size += explLen
	} else if len(expl) == 1 {
		explanation = expl[0].s
	}
	if fixCopy {
		size += fix.len(vs)
	} else {
		fixText = fix.s
	}
	if size == 0 {
		return explanation, fixText
	}
	var b strings.Builder
	b.Grow(size)
	if explCopy {
		for i := range expl {
			expl[i].write(&b, vs)
		}
	}
	if fixCopy {
		fix.write(&b, vs)
	}
	all := b.String()
	if explCopy {
		explanation = all[:explLen]
	}
	if fixCopy {
		fixText = all[explLen:]
	}
	return explanation, fixText
}

// compileTexts compiles the texts of the rules files, given in the order of
// Load: the first file that gives a text wins, as for reasons. A text no
// file gives stays nil (missingTexts checks the whole rule set). from names
// the file each text came from.
func compileTexts(files []namedTexts) (_ *[numTexts]text, from [numTexts]string, _ error) {
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
				return nil, from, fmt.Errorf("%s: texts: unknown text %q (known: %s)", f.file, name, textNames())
			}
			t, err := compileText(f.texts[name], textDefs[key].slots)
			if err != nil {
				return nil, from, fmt.Errorf("%s: texts: %s: %v", f.file, name, err)
			}
			if out[key] == nil {
				out[key] = t
				from[key] = f.file
			}
		}
	}
	return &out, from, nil
}

// missingTexts reports the texts that no rules file gave: every text the
// engine writes must be given by some file.
func missingTexts(texts *[numTexts]text) error {
	var missing []string
	for k := range texts {
		if texts[k] == nil {
			missing = append(missing, textDefs[k].name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("texts: missing %s: every text must be given by some rules file", strings.Join(missing, ", "))
	}
	return nil
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
