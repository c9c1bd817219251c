package rules

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// maxDiagnostic caps how much of a diagnostic text Classify reads: replies
// are short, and the cause is stated at the start; the cap bounds the time
// spent on hostile input.
const maxDiagnostic = 4096

// maxNotice caps the part of Input.Notice the extractors read (as
// dsn.MaxNotice caps dsn.Report.Notice).
const maxNotice = 8 << 10

// Engine classifies recipient records with a loaded rule set. An Engine is
// immutable after Load and safe for concurrent use.
type Engine struct {
	rules      []*rule
	textFree   *textFreeIndex // of rules
	reasons    map[Reason]*reasonDef
	extractors []*extractor
	texts      *[numTexts]text  // in English
	textsFrom  [numTexts]string // the file each text came from: only the built-in ones are translated
	trOnce     sync.Once
	tr         *engineTranslations // set by trOnce: use translated()
	phrases    *phraseSet
	phraseList []string // the phrases by id, as normalized, for Matched
	byPhrase   phraseIndex
	scratch    sync.Pool // *scratch
}

// rule is a compiled rule: every non-empty condition must hold.
type rule struct {
	id       string
	file     string // the rules file, BuiltinName for the built-in one
	line     int    // the line of the rule in it, 0 when unknown
	status   []statusPattern
	reply    []replyPattern
	text     phraseMask // any
	textIDs  []int32    // the same phrases in file order, for Matched
	all      []int32    // all
	unless   phraseMask // none
	regexps  []*pattern
	mta      []string
	action   []smtpcode.Action
	command  []string
	diagType []string // Diagnostic-Code types, lower case ("" for none)

	then      thenDef
	setStatus smtpcode.Status // the zero Status when the rule sets none
}

type scratch struct {
	text []byte // the diagnostic as normalize made it
	orig []byte // the same bytes with their case (foldSpace), for captures
	hits []uint64
	// The same three of the notice (Input.Notice), made only when a fact
	// is looked for in it.
	ntext, norig []byte
	nhits        []uint64
	// ruleSet has a bit per rule, the rules a record may match
	// (candidates).
	ruleSet []uint64
	// class says whether the patterns' literals hold in text
	// (textClass, literalFilter).
	class textClass
	// The pairSets of text and ntext, made when a filter first needs
	// them.
	pairs, npairs pairSet
}

// StatusSource says where the status of a reading came from.
type StatusSource string

// The sources of a status.
const (
	StatusNone     StatusSource = ""         // the reading has no status
	StatusServer   StatusSource = "server"   // the report or the server's reply gave it
	StatusInferred StatusSource = "inferred" // ndrmilter filled it in from the rule or the reason (a pseudo-code such as 5.0.911): no server sent it
)

// record is a record made ready for the rules: its codes read, its text
// normalized and its phrases found.
type record struct {
	// in is a copy of the record read: with a pointer to the caller's,
	// the compiler kept the caller's on the heap (an allocation per
	// record; issue 14).
	in        Input
	diag      string // the diagnostic, cut at maxDiagnostic
	st        smtpcode.Status
	stText    string // the code st was read from
	hasStatus bool
	reply     string
	rp        smtpcode.Reply
	action    smtpcode.Action
	sc        *scratch
}

// prepare reads in for the rules; the caller returns rec.sc to the pool.
func (e *Engine) prepare(in *Input) record {
	rec := record{in: *in, diag: in.Diagnostic}
	if len(rec.diag) > maxDiagnostic {
		rec.diag = rec.diag[:maxDiagnostic]
	}
	rec.stText = in.Status
	rec.st, rec.hasStatus = statusOf(rec.stText)
	if !rec.hasStatus {
		rec.stText = smtpcode.FindStatus(rec.diag)
		rec.st, rec.hasStatus = statusOf(rec.stText)
	}
	rec.reply = in.ReplyCode
	if rec.reply == "" {
		rec.reply = smtpcode.FindReply(rec.diag)
	}
	rec.rp = replyOf(rec.reply)
	rec.action = smtpcode.ParseAction(string(in.Action)) // "" when not an RFC 3464 action

	rec.sc = e.scratch.Get().(*scratch)
	rec.sc.text = normalize(rec.sc.text[:0], rec.diag)
	rec.sc.pairs.reset()
	rec.sc.orig = rec.sc.orig[:0]
	rec.sc.class = classOfText(rec.sc.text)
	clear(rec.sc.hits)
	e.phrases.match(rec.sc.text, rec.sc.hits)
	return rec
}

// firstMatch returns the first rule that rec matches, nil when none does.
func (e *Engine) firstMatch(rec *record) *rule {
	key, ok := statusKey(rec.st, rec.hasStatus)
	if ok && noHits(rec.sc.hits) {
		// No phrase in the text: only the rules that require none can
		// match, and the index has them in order.
		for _, i := range e.textFree[key] {
			if r := e.rules[i]; rec.matches(r) {
				return r
			}
		}
		return nil
	}
	if ok {
		// Only the rules that its phrases let through or that require
		// none, in order.
		sc := rec.sc
		if n := (len(e.rules) + 63) / 64; len(sc.ruleSet) != n {
			sc.ruleSet = make([]uint64, n)
		}
		clear(sc.ruleSet)
		e.candidates(key, sc.hits, sc.ruleSet)
		for w, word := range sc.ruleSet {
			for b := word; b != 0; b &= b - 1 {
				if r := e.rules[w*64+bits.TrailingZeros64(b)]; rec.matches(r) {
					return r
				}
			}
		}
		return nil
	}
	for _, r := range e.rules {
		if rec.matches(r) {
			return r
		}
	}
	return nil
}

func (rec *record) matches(r *rule) bool {
	return r.matches(&rec.in, rec.st, rec.hasStatus, rec.rp, rec.action, rec.sc)
}

// Classify reads one recipient record, in English.
func (e *Engine) Classify(in Input) Classification {
	return e.classify(in, 0)
}

// ClassifyIn reads one recipient record and writes its summary,
// explanation and fix in the language tag: one of Languages, or a tag of
// the same base language; English for any other. Everything else of the
// reading is the same in every language.
func (e *Engine) ClassifyIn(tag language.Tag, in Input) Classification {
	return e.classify(in, e.langIndex(tag))
}

func (e *Engine) classify(in Input, lang int) Classification {
	rec := e.prepare(&in)
	defer e.scratch.Put(rec.sc)
	st, hasStatus, reply, rp, action := rec.st, rec.hasStatus, rec.reply, rec.rp, rec.action

	matched := e.firstMatch(&rec)

	v := Classification{ReplyCode: reply, Reason: ReasonUndefined, Rule: ""}
	t := &noThen
	if matched != nil {
		t = &matched.then
		v.Reason = t.Reason
		v.Rule = matched.id
		v.Matched = e.matchedBy(matched, &rec)
	}
	rd := e.reasons[v.Reason]
	if rd == nil {
		rd = &noReason
	}

	// The status: the record's own, else the rule's, else one made from the
	// reason (as Sisimai does: class from the reply code or the action,
	// detail from the reason's code), so that every failure carries a code.
	class := classOf(rp.Class(), action, hasStatus, st)
	switch {
	case hasStatus:
		v.Status = statusString(st, rec.stText)
	case matched != nil && !matched.setStatus.IsZero():
		c := matched.setStatus
		if class != 0 && c.Class != smtpcode.ClassSuccess {
			c.Class = class
		}
		v.Status = c.String()
	case rd.Code != "" && class != 0 && (action == smtpcode.ActionFailed || action == smtpcode.ActionDelayed):
		// Only for records of a report: a looked-up reply keeps its own codes.
		v.Status = pseudoStatus(class, rd.Code)
	}
	switch {
	case hasStatus:
		v.StatusSource = StatusServer
	case v.Status != "":
		v.StatusSource = StatusInferred
	}
	v.Permanent = permanent(action, v.Status, rp)

	if v.Reason != ReasonDelivered {
		v.Facts = e.captureFacts(matched, &rec, nil, wordsUse(t, rd))
		if a := v.Facts.Get(FactAddress); a != "" && strings.EqualFold(a, strings.TrimSpace(in.Recipient)) {
			v.Facts.v[slotIndexOf(FactAddress)] = "" // the recipient, not a contact
		}
	}

	// The words: the rule's at this stage, for a fact it names, in general;
	// then the reason's, in the same order.
	v.Stage = StageOf(in.Command)
	if in.lookup {
		v.Stage = StageUnknown // a pasted reply: the stage Lookup assumes is not known
	}
	si := v.Stage.index()
	ruleWords := t.stages.at(si)
	ruleWords.fill(factWords(t.byFact, v.Facts))
	ruleWords.fill(t.words)
	w := ruleWords
	w.fill(rd.stages.at(si))
	w.fill(factWords(rd.byFact, v.Facts))
	w.fill(rd.words)

	v.Owner = first(w.owner, OwnerUnknown)
	lasting := delayPasses
	if action == smtpcode.ActionDelayed {
		lasting = lastingDelay(&v, &rec.in)
	}
	if action == smtpcode.ActionDelayed && lasting == delayPasses && !(t.delays && ruleWords.owner != "") {
		// The sending server keeps trying. A rule written for delays
		// that names who acts meanwhile (a provider's deferral for the
		// sending server's volume or complaints) keeps its owner; else
		// the cause says who acts if it persists, if anyone (delay.go).
		v.Owner = delayedOwner(&v, &rec.in)
	}
	hard := rd.HardBounce
	if t.HardBounce != nil {
		hard = t.HardBounce
	}
	v.HardBounce = hard != nil && *hard && hardBounce(action, v.Status, rp)
	v.Summary = w.summary.in(lang)
	if action == smtpcode.ActionDelayed && v.Reason == ReasonExpired && ruleWords.summary.en == "" {
		// Not timed out yet: the sending server keeps trying (delay.go).
		v.Summary = e.textsFor(lang)[textDelayedSummary].plain()
	}

	v.Explanation, v.Fix = e.sentences(&rec, &v, t, rd, ruleWords, w, lasting, lang)
	e.relayReading(&v, &rec, lang)       // whose server refused to relay (relayside.go)
	e.ownLoopReading(&v, &rec, lang)     // a loop the sender's own server found in itself (loop.go)
	e.internalHopReading(&v, &rec, lang) // the recipient's gateway and its internal server (internalhop.go)
	e.legacyDNReading(&v, &rec, lang)    // a stale Exchange X.500 address (legacydn.go)
	e.ownScannerReading(&v, &rec, lang)  // malware stopped by the sender's own scanner (ownscanner.go)
	return v
}

// noThen and noReason stand for the rule and the reason of a record that
// none decides or defines.
var (
	noThen   thenDef
	noReason reasonDef
)

// slotIndexOf returns the index of f in facts.
func slotIndexOf(f Fact) int {
	i, _ := factIndex(string(f))
	return i
}

// sentences writes the explanation and the fix of a reading in language
// lang. lasting says whether the record is a delay that retries alone will
// not fix, and why (lastingDelay).
func (e *Engine) sentences(rec *record, v *Classification, t *thenDef, rd *reasonDef, ruleWords, w words, lasting delayLasting, lang int) (explanation, fix string) {
	in, action := &rec.in, rec.action
	texts := e.textsFor(lang)
	cause := first(t.Cause, rd.Cause, texts[textUnknownCause].plain())
	var vs sentenceValues
	vals := &vs[valuesRecord]
	var standIn slotValues
	vals[slotRecipient] = sanitize(in.Recipient)
	vals[slotRemote] = sanitize(namedRemote(in.RemoteMTA))
	vals[slotReporting] = sanitize(in.ReportingMTA)
	vals[slotStatus] = v.Status
	vals[slotCause] = cause
	if _, domain, ok := strings.Cut(vals[slotRecipient], "@"); ok {
		vals[slotDomain] = domain
	}
	for i, f := range v.Facts.v {
		vals[slotFact0+slot(i)] = f
	}
	localDurations(lang, vals) // "5 Tage", not "5 days", in German
	if (w.explanation.uses | w.fix.uses).has(slotReply) {
		vals[slotReply] = quoteReply(rec.diag)
	}
	if strings.HasPrefix(v.Status, "5") || (v.Status == "" && rec.rp.Class() == smtpcode.ClassPermanent) {
		vals[slotFinal] = "yes" // {?final}: the server's refusal was permanent
	} else if action == smtpcode.ActionFailed && (strings.HasPrefix(v.Status, "4") || (v.Status == "" && rec.rp.Class() == smtpcode.ClassTransient)) {
		// {?given_up}: a temporary failure the sending server stopped
		// retrying (qmail's "I'm not going to try again", a 4.4.7
		// expiry): "it retries on its own" would be wrong.
		vals[slotGivenUp] = "yes"
	}
	if ownServerRefusal(in) {
		vals[slotOwnServer] = "yes" // {?own_server}
	}
	standIn[slotRecipient] = texts[textUnnamedRecipient].plain()
	standIn[slotRemote] = texts[textUnnamedRemote].plain()
	standIn[slotReporting] = texts[textUnnamedReporting].plain()

	// The explanation is an opening, a sentence and a note, joined by
	// spaces; it and the fix are written into one string (joinSentences).
	var expl [7]piece
	n := 0
	delayed := action == smtpcode.ActionDelayed
	switch {
	case action.Success():
		expl[0] = textPiece(e.explain(in, action, cause, lang, &vs[valuesExplain]), valuesExplain)
		n = 1
	case ruleWords.explanation.empty() && t.Cause != "":
		// An older rule: its cause in the texts' sentence.
		expl[0] = textPiece(e.explain(in, action, cause, lang, &vs[valuesExplain]), valuesExplain)
		n = 1
	case delayed && !t.delays && (v.Reason == ReasonExpired || v.Reason == ReasonNetworkError && delayedConnection(&v.Facts)):
		// Not expired yet: the cause so far (delay.go), also after a
		// rule whose own words say the server gave up (ms-4.4.7: the
		// reporting server's 4.4.7 in a warning). A refused or
		// unanswered connection read as a network error is said the
		// same way, not as a failure ("could not be delivered").
		k := delayedExpiryText(&v.Facts)
		if k == textDelayedUnreachable && vals[slotReply] == "" {
			vals[slotReply] = quoteReply(rec.diag)
		}
		expl[0] = textPiece(texts[k], valuesRecord)
		n = 1
	case !w.explanation.empty():
		vs[valuesOwn] = *vals
		if delayed && !t.delays {
			vs[valuesOwn][slotRecipient] = "" // the opening sentence names the recipient
			expl[0], expl[1] = textPiece(texts[textDelayedIntro], valuesRecord), piece{s: " "}
			n = 2
		}
		tx, stoodIn := w.explanation.choose(lang, &vs[valuesOwn], &standIn, &vs[valuesExplainStandIn])
		expl[n] = textPiece(tx, valuesOwn)
		if stoodIn {
			expl[n].v = valuesExplainStandIn
		}
		n++
	default:
		expl[0] = textPiece(e.explain(in, action, cause, lang, &vs[valuesExplain]), valuesExplain)
		n = 1
	}
	if k, ok := loopNote(&v.Facts, vals); ok && piecesLen(expl[:n], &vs) > 0 {
		// What the report says of the loop (loopNote).
		expl[n], expl[n+1] = piece{s: " "}, textPiece(texts[k], valuesRecord)
		n += 2
	}
	if gaveUpOnTemporary(action, v, t) && piecesLen(expl[:n], &vs) > 0 {
		// Issue 8 (grading 4): a temporary failure retried until the
		// sending server gave up reads as such, whatever its reason.
		note := texts[textGaveUpFailed]
		if rec.rp.Class() == smtpcode.ClassTransient {
			note = texts[textGaveUpRefused] // the receiving server answered, with a temporary refusal
		}
		expl[n], expl[n+1] = piece{s: " "}, textPiece(note, valuesRecord)
		n += 2
	}
	var fixPiece piece
	switch {
	case lasting == delayConfigLasts:
		// Issue 8: waiting does not help; the recipient's side must act.
		fixPiece = textPiece(texts[textDelayedLastingFix], valuesRecord)
	case lasting == delayMailboxFull:
		// The retries get through once the recipient makes room.
		fixPiece = textPiece(texts[textDelayedMailboxFullFix], valuesRecord)
	case delayed && (ruleWords.fix.empty() || !t.delays):
		// The reason's fix is for a final failure; a delay needs none
		// yet, but says who acts if it persists (delayedOwner).
		k := textDelayedFix
		switch v.Owner {
		case OwnerSenderAdmin:
			k = textDelayedSenderSideFix
		case OwnerRecipientAdmin:
			k = textDelayedRecipientSideFix
		}
		fixPiece = textPiece(texts[k], valuesRecord)
	default:
		tx, stoodIn := w.fix.choose(lang, vals, &standIn, &vs[valuesFixStandIn])
		fixPiece = textPiece(tx, valuesRecord)
		if stoodIn {
			fixPiece.v = valuesFixStandIn
		}
	}
	explanation, fix = joinSentences(expl[:n], fixPiece, &vs)
	if delayed && lasting == delayPasses && t.delays && !ruleWords.fix.empty() && w.fix.uses&deadlineSlots == 0 && v.Facts.set()&deadlineFactSet != 0 {
		// A rule's own words for a delay: the deadline the report states
		// is said after them (delay.go).
		fix += " " + texts[textDelayedDeadline].render(vals)
	}
	return explanation, fix
}

// gaveUpOnTemporary says whether a record is a temporary failure (a
// class-4 status) that the sending server retried until it gave up (Action
// failed): RFC 3464 section 2.3.3 and RFC 3463 class 4, "the message as
// sent is valid, but persistence of some temporary condition has caused
// abandonment". Not for the expired reason, whose words say it, nor for a
// rule written for final reports only.
func gaveUpOnTemporary(action smtpcode.Action, v *Classification, t *thenDef) bool {
	return action == smtpcode.ActionFailed && strings.HasPrefix(v.Status, "4") &&
		v.Reason != ReasonExpired && !t.finals
}

// captureFacts returns the facts of a record: those the named groups of the
// deciding rule's matching regexp capture, then those of the extractors, in
// order, each fact from the first that gives it. src, when not nil, gets
// where each came from.
//
// The notice is read only for the facts that the words of the reading can
// show (want): it is long, and a fact that no sentence shows is not worth
// its regexps.
func (e *Engine) captureFacts(r *rule, rec *record, src *[numFacts]factSource, want slotSet) Facts {
	var fs Facts
	sc := rec.sc
	if len(sc.text) > 0 {
		if len(sc.orig) == 0 {
			sc.orig = foldSpace(sc.orig[:0], rec.diag)
		}
		if len(sc.orig) != len(sc.text) {
			return fs // cannot happen: both fold the same bytes
		}
		if r != nil {
			for _, p := range r.regexps {
				if !p.captures {
					if p.matchIn(sc.text, sc.class, &sc.pairs) {
						break // the regexp that matched captures nothing
					}
					continue
				}
				if m := p.findIn(sc.text, sc.class, &sc.pairs); m != nil {
					capture(p.subexpNames(), m, sc.orig, rec.diag, &fs, src, factSource{r.id, r.file, r.line}, false)
					break // the regexp that matched
				}
			}
		}
		e.extract(sc.text, sc.orig, rec.diag, sc.hits, sc.class, &sc.pairs, &fs, src)
		// A domain name is the same in any case (RFC 4343); Microsoft's
		// replies write the sending domain in capitals ("[CONTOSO.COM]").
		if i := slotIndexOf(FactSenderDomain); fs.v[i] != "" {
			fs.v[i] = ascii.LowerString(fs.v[i])
		}
	}
	if rec.action == smtpcode.ActionDelayed {
		// The deadline of a delay: the delay fixes say it (delay.go).
		want |= deadlineSlots
		if i := slotIndexOf(FactRetryUntil); fs.v[i] == "" {
			if fs.v[i] = retryUntil(rec.in.RetryUntil); fs.v[i] != "" && src != nil {
				src[i] = factSource{from: "Will-Retry-Until (RFC 3464 section 2.3.9)"}
			}
		}
	}
	e.noticeFacts(rec, &fs, src, want)
	oneDeadline(&fs)
	// Derived only where the words use it (the size-limit fixes).
	if i, l := slotIndexOf(FactAttachmentBudget), fs.Get(FactLimit); l != "" && fs.v[i] == "" && want.has(slotFact0+slot(i)) {
		if fs.v[i] = attachmentBudget(l); fs.v[i] != "" && src != nil {
			src[i] = factSource{from: "limit (3/4: base64, RFC 2045 section 6.8)"}
		}
	}
	if i := slotIndexOf(FactOrgText); want.has(slotFact0 + slot(i)) {
		if fs.v[i] = organisationText(rec.diag, rec.in.Notice, rec.in.Recipient); fs.v[i] != "" && src != nil {
			src[i] = factSource{from: "transport rule's text (organisationText)"}
		}
	}
	return fs
}

// extract runs the extractors on text (normalized; orig is the same with its
// case kept, folded from base; hits its phrases, ps its pairSet), for the
// facts not set yet.
func (e *Engine) extract(text, orig []byte, base string, hits []uint64, tc textClass, ps *pairSet, fs *Facts, src *[numFacts]factSource) {
	have := fs.set()
	for _, x := range e.extractors {
		if (len(x.text) > 0 && !x.text.any(hits)) || (len(x.unless) > 0 && x.unless.any(hits)) {
			continue
		}
		for _, p := range x.regexps {
			if b := p.captureBits(); b != 0 && b&^have == 0 {
				continue // every fact it captures is set: capture would keep none
			}
			if m := p.findIn(text, tc, ps); m != nil {
				capture(p.subexpNames(), m, orig, base, fs, src, factSource{x.id, x.file, x.line}, x.bytes)
				have = fs.set()
			}
		}
	}
}

// noticeFacts fills the noticeFacts that the diagnostic did not give from
// the record's notice, by the extractors: a notice often states in prose
// only ("could not be delivered for 5 days", "Virus found in attachment
// 'invoice.zip'") what its diagnostic leaves out.
func (e *Engine) noticeFacts(rec *record, fs *Facts, src *[numFacts]factSource, want slotSet) {
	n := rec.in.Notice
	if n == "" {
		return
	}
	// lacking says which notice facts are wanted and not captured yet.
	lacking := func(i int) bool {
		return isNoticeFact(facts[i]) && fs.v[i] == "" && want.has(slotFact0+slot(i))
	}
	var lack factSet
	for _, f := range noticeFacts {
		if i := slotIndexOf(f); lacking(i) {
			lack |= 1 << i
		}
	}
	if lack == 0 {
		return
	}
	if len(n) > maxNotice {
		n = n[:maxNotice]
	}
	sc := rec.sc
	sc.ntext = normalize(sc.ntext[:0], n)
	sc.npairs.reset()
	if len(sc.ntext) == 0 {
		return
	}
	sc.norig = sc.norig[:0] // made when a regexp matches
	if len(sc.nhits) != len(sc.hits) {
		sc.nhits = make([]uint64, len(sc.hits))
	}
	clear(sc.nhits)
	e.phrases.match(sc.ntext, sc.nhits)
	var got Facts
	var gotSrc [numFacts]factSource
	tc := classOfText(sc.ntext)
	for _, x := range e.extractors {
		// Only the extractors that capture a notice fact still missing:
		// the others' regexps would run over the notice for nothing.
		need := false
		for _, p := range x.regexps {
			if p.captureBits()&lack != 0 {
				need = true
			}
		}
		if !need || (len(x.text) > 0 && !x.text.any(sc.nhits)) || (len(x.unless) > 0 && x.unless.any(sc.nhits)) {
			continue
		}
		for _, p := range x.regexps {
			if p.captureBits()&lack&^got.set() == 0 {
				continue // it captures no fact still lacking: got would keep none that is copied
			}
			if m := p.findIn(sc.ntext, tc, &sc.npairs); m != nil {
				if len(sc.norig) == 0 {
					sc.norig = foldSpace(sc.norig[:0], n)
					if len(sc.norig) != len(sc.ntext) {
						return // cannot happen: both fold the same bytes
					}
				}
				capture(p.subexpNames(), m, sc.norig, n, &got, &gotSrc, factSource{x.id, x.file, x.line}, x.bytes)
			}
		}
	}
	for _, f := range noticeFacts {
		i := slotIndexOf(f)
		if lacking(i) && got.v[i] != "" {
			fs.v[i] = got.v[i]
			if src != nil {
				src[i] = gotSrc[i]
				src[i].from += " (notice)"
			}
		}
	}
}

// statusOf reads an enhanced status code; false when code is not one.
func statusOf(code string) (smtpcode.Status, bool) {
	if code == "" || !smtpcode.IsStatus(code) {
		return smtpcode.Status{}, false
	}
	st, err := smtpcode.ParseStatus(code)
	return st, err == nil
}

// statusString returns st written out (Status.String), src itself when it
// is written so already: no copy of a code the record gives as it is.
func statusString(st smtpcode.Status, src string) string {
	if st.IsZero() {
		return ""
	}
	var b [16]byte
	out := st.Append(b[:0])
	if string(out) == src {
		return src
	}
	return string(out)
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
	// The phrases first: most rules name some, and a record holds the
	// phrases of few, so that most rules fail on a few bit tests.
	if len(r.text) > 0 && !r.text.any(sc.hits) {
		return false
	}
	for _, id := range r.all {
		if sc.hits[id>>6]&(1<<(uint(id)&63)) == 0 {
			return false
		}
	}
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
	if !r.matchesDiagnosticType(in) {
		return false
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
		for _, p := range r.regexps {
			if p.matchIn(sc.text, sc.class, &sc.pairs) {
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
// ASCII case, without allocating. It jumps with IndexByte from one
// occurrence of sub's first byte (in either case) to the next, rather than
// comparing at every position: the diagnostics it reads are long and
// uncapped.
func containsFold(s, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	lower, upper := sub[0], sub[0]
	if 'a' <= lower && lower <= 'z' {
		upper -= 'a' - 'A'
	}
	nextLower, nextUpper := -1, -1 // the next occurrence of each at or after i, len(s) for none
	for i := 0; i+n <= len(s); i++ {
		if nextLower < i {
			nextLower = indexByteFrom(s, lower, i)
		}
		if nextUpper < i {
			nextUpper = indexByteFrom(s, upper, i)
		}
		if i = min(nextLower, nextUpper); i+n > len(s) {
			return false
		}
		if hasPrefixFoldAt(s, i, sub) {
			return true
		}
	}
	return false
}

// indexByteFrom returns the first position at or after from where c occurs
// in s, len(s) when it does not.
func indexByteFrom(s string, c byte, from int) int {
	if j := strings.IndexByte(s[from:], c); j >= 0 {
		return from + j
	}
	return len(s)
}

// hasPrefixFoldAt reports whether s[i:] starts with sub (lower case ASCII),
// ignoring ASCII case.
func hasPrefixFoldAt(s string, i int, sub string) bool {
	for j := 0; j < len(sub); j++ {
		b := s[i+j]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != sub[j] {
			return false
		}
	}
	return true
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
	return e.lookup(codeOrReply, 0)
}

// LookupIn is Lookup with the words in the language tag (see ClassifyIn).
func (e *Engine) LookupIn(tag language.Tag, codeOrReply string) Classification {
	return e.lookup(codeOrReply, e.langIndex(tag))
}

func (e *Engine) lookup(codeOrReply string, lang int) Classification {
	text := strings.TrimSpace(codeOrReply)
	// A pasted reply is almost always the answer to a recipient (RCPT TO):
	// read it so, rather than as a refusal of unknown origin.
	in := Input{Diagnostic: text, Command: "RCPT", lookup: true}
	if st, ok := statusOf(text); ok {
		in = Input{Status: st.String(), lookup: true}
	} else if smtpcode.IsReply(text) {
		in = Input{ReplyCode: text, lookup: true}
	}
	return e.classify(in, lang)
}

// InputOf returns what the rules read of one recipient record of a report.
func InputOf(r *dsn.Report, rc dsn.Recipient) Input {
	return Input{Action: rc.Action, Status: rc.Status, ReplyCode: rc.ReplyCode,
		Diagnostic: rc.Diagnostic, RemoteMTA: rc.RemoteMTA, ReportingMTA: r.ReportingMTA,
		Command: rc.Command, Recipient: rc.Address, DiagnosticType: rc.DiagnosticType, Notice: r.Notice,
		RetryUntil: rc.WillRetryUntil, SenderDomain: senderDomain(r)}
}

// senderDomain returns the domain of the sender of the message r reports
// on, lower case: the original's envelope sender, else its From, else the
// report's own recipient; "" when none names a domain.
func senderDomain(r *dsn.Report) string {
	for _, a := range [...]string{r.Original.Sender, r.Original.From, r.Addressee} {
		if _, d, ok := strings.Cut(strings.TrimSpace(a), "@"); ok && d != "" && !strings.ContainsAny(d, "@ <>") {
			return strings.ToLower(strings.TrimSuffix(d, "."))
		}
	}
	return ""
}

// matchesDiagnosticType says whether the record's Diagnostic-Code type is one
// the rule's diagnostic_type names (any type when it names none).
func (r *rule) matchesDiagnosticType(in *Input) bool {
	return len(r.diagType) == 0 || slices.Contains(r.diagType, strings.ToLower(strings.TrimSpace(in.DiagnosticType)))
}

// Reading is the reading of one recipient record of a report.
type Reading struct {
	Kind      dsn.Kind
	Recipient dsn.Recipient
	// ForwardedFrom is the address the sender wrote and ForwardedTo the
	// address the recipient's side forwarded it to, where delivery failed
	// (dsn.Report.Forward); both "" without such a forward. ForwardedTo is
	// Recipient.Address, or for Sendmail (which reports the alias
	// written) the address it expanded to.
	ForwardedFrom, ForwardedTo string
	Classification
}

// Explain reads every recipient record of r, in English. A report that is
// not a delivery report yields one Reading with its Kind and an empty
// recipient. Auto-replies and feedback reports are never bounces: their
// records get the reasons "vacation" and "feedback".
func (e *Engine) Explain(r *dsn.Report) []Reading {
	return e.explainReport(r, 0)
}

// ExplainIn is Explain with the words in the language tag (see
// ClassifyIn).
func (e *Engine) ExplainIn(tag language.Tag, r *dsn.Report) []Reading {
	return e.explainReport(r, e.langIndex(tag))
}

func (e *Engine) explainReport(r *dsn.Report, lang int) []Reading {
	if len(r.Recipients) == 0 {
		return []Reading{{Kind: r.Kind, Classification: e.notBounce(r, lang)}}
	}
	out := make([]Reading, 0, len(r.Recipients))
	for _, rc := range r.Recipients {
		var v Classification
		var from, to string
		switch r.Kind {
		case dsn.KindAutoreply, dsn.KindFeedback, dsn.KindReceipt, dsn.KindNone:
			v = e.notBounce(r, lang)
		default:
			if forwardedRecord(r.Kind) {
				from, to = r.Forward(&rc)
			}
			if from == "" {
				v = e.classify(InputOf(r, rc), lang)
				if v.Rule == externalForwardingRule {
					e.externalForwarding(&v, r, &rc, lang) // whose forwarding (externalforwarding.go)
				}
				if forwardedByRoute(&v) && forwardedRecord(r.Kind) {
					// An SPF refusal of mail the route shows was
					// forwarded (forwarded.go, forwardedByRoute).
					if from = r.RelayedFrom(&rc); from != "" {
						to = rc.Address
						e.forwarded(&v, from, to, rc.RemoteMTA, rc.Diagnostic, lang)
					}
				}
				break
			}
			// The words name the address that failed, the forward target.
			target := rc
			target.Address = to
			v = e.classify(InputOf(r, target), lang)
			e.forwarded(&v, from, to, rc.RemoteMTA, rc.Diagnostic, lang)
		}
		if r.Format == dsn.FormatListBounceNotice || r.Format == dsn.FormatListUncaughtBounce {
			e.listBounceNotice(&v, r, lang)
		}
		out = append(out, Reading{Kind: r.Kind, Recipient: rc, ForwardedFrom: from, ForwardedTo: to, Classification: v})
	}
	return out
}

// listBounceNotice tells the reading of a member's bounce that a mailing
// list's notice carries (format: dsn.FormatListBounceNotice, or
// dsn.FormatListUncaughtBounce for a bounce the list could not read) as
// the list's notice: its reader sent nothing, the list's owners act on the
// member, so the bounce's own reading, if any, follows the notice's
// opening, and the fix is the notice's.
//
// When the notice says what the list did (r.ListAction: Mailman's "Action:
// Subscription disabled.", its subjects), the opening says that, with the
// list's address (r.List), not the three things a list may do.
func (e *Engine) listBounceNotice(v *Classification, r *dsn.Report, lang int) {
	t := e.textsFor(lang)
	explanation, fix := textListBounceNoticeExplanation, textListBounceNoticeFix
	switch {
	case r.Format == dsn.FormatListUncaughtBounce:
		explanation, fix = textListUncaughtBounceExplanation, textListUncaughtBounceFix
	case r.ListAction == dsn.ListActionDisabled:
		explanation = textListBounceNoticeDisabled
	case r.ListAction == dsn.ListActionRemoved:
		explanation = textListBounceNoticeRemoved
	case r.ListAction == dsn.ListActionCounted:
		explanation = textListBounceNoticeCounted
	}
	v.Owner = OwnerGroupOwner
	opening := t[explanation].render(&slotValues{slotRecipient: sanitize(r.List)})
	v.Explanation = strings.TrimSuffix(opening+" "+v.Explanation, " ")
	v.Fix = t[fix].plain()
}

// notBounce is the reading of a message that reports no delivery failure,
// or of a report without a recipient.
func (e *Engine) notBounce(r *dsn.Report, lang int) Classification {
	v := Classification{Owner: OwnerNone}
	t := e.textsFor(lang)
	switch r.Kind {
	case dsn.KindAutoreply:
		v.Reason = ReasonVacation
		if r.Format == dsn.FormatListHeld {
			// Held for a person, who may still reject it: not a
			// vacation reply (see listHeld).
			v = e.listHeld(r, lang)
			break
		}
		if r.Format == dsn.FormatChallengeResponse {
			// Not refused, but held: only its sender can release it.
			v.Owner = OwnerSender
			v.Summary = t[textChallengeSummary].plain()
			v.Explanation = t[textChallengeExplanation].plain()
			v.Fix = t[textChallengeFix].plain()
			break
		}
		if departed(r.Notice) {
			// Delivered, but nobody will read it: the sender acts.
			v.Owner = OwnerSender
			v.Summary = t[textDepartedSummary].plain()
			v.Explanation = t[textDepartedExplanation].render(&slotValues{slotReply: autoreplyQuoteFor(r.Notice, e.readerLang(lang))})
			v.Fix = t[textDepartedFix].plain()
			break
		}
		v.Summary = t[textAutoreplySummary].plain()
		v.Explanation = t[textAutoreplyExplanation].plain()
		if q := autoreplyQuoteFor(r.Notice, e.readerLang(lang)); q != "" {
			// Its own first sentences: the return date, the person
			// to write to meanwhile.
			v.Explanation = t[textAutoreplyQuotedExplanation].render(&slotValues{slotReply: q})
		}
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
		switch r.Disposition {
		case dsn.DispositionDeleted:
			v.Explanation = t[textReceiptDeletedExplanation].plain()
		case dsn.DispositionDispatched, dsn.DispositionProcessed:
			v.Explanation = t[textReceiptUndisplayedExplanation].plain()
		default:
			v.Explanation = t[textReceiptExplanation].plain()
		}
	case dsn.KindNone:
		if r.Format == dsn.FormatListBounceNotice {
			// No bounce attached: the notice's words alone.
			v.Summary = t[textListBounceNoticeSummary].plain()
			e.listBounceNotice(&v, r, lang)
			break
		}
		if r.Format == dsn.FormatListUncaughtBounce {
			// The bounce it carries was not read here either.
			v.Summary = t[textListUncaughtBounceSummary].plain()
			e.listBounceNotice(&v, r, lang)
			break
		}
		if r.Format == dsn.FormatQuotaWarning {
			// The reader's own mailbox: they act in person.
			v = e.quotaWarning(r, lang)
			break
		}
		if r.Format == dsn.FormatDMARCAggregate {
			v.Summary = t[textDMARCAggregateSummary].plain()
			v.Explanation = t[textDMARCAggregateExplanation].plain()
			break
		}
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

// pseudoStatus returns class.0.code, the status made from a reason's code
// (Sisimai's pseudo-codes 900-999) and a class: for the classes 4 and 5 a
// part of pseudoStatuses, with no allocation per record (issue 14).
func pseudoStatus(class smtpcode.Class, code string) string {
	if (class == smtpcode.ClassTransient || class == smtpcode.ClassPermanent) && len(code) == 3 &&
		code[0] == '9' && ascii.IsDigit(code[1]) && ascii.IsDigit(code[2]) {
		i := (int(class-smtpcode.ClassTransient)*100 + int(code[1]-'0')*10 + int(code[2]-'0')) * len("4.0.900")
		return pseudoStatuses()[i : i+len("4.0.900")]
	}
	return string(rune('0'+class)) + ".0." + code
}

// pseudoStatuses are "4.0.900" to "4.0.999" then "5.0.900" to "5.0.999",
// one after the other, made on first use.
var pseudoStatuses = sync.OnceValue(func() string {
	var b strings.Builder
	for _, class := range []byte{'4', '5'} {
		for n := 900; n <= 999; n++ {
			b.WriteByte(class)
			b.WriteString(".0.")
			b.WriteString(strconv.Itoa(n))
		}
	}
	return b.String()
})
