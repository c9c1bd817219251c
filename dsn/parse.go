package dsn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// ErrInternal is wrapped by the error Parse returns when it met a bug while
// reading a message (a recovered panic). The report is then empty.
var ErrInternal = errors.New("dsn: internal error while reading the message")

// Parse reads raw (an RFC 5322 message, LF or CRLF line ends) into a Report.
// It never panics; on input it cannot make sense of it returns a best-effort
// Report (often KindNone) and, for malformed input, an error saying what was
// expected and what came.
func Parse(raw []byte) (rep *Report, err error) {
	defer func() {
		// A bug must not take the milter down with it: the message passes
		// unexplained, and the error says why.
		if x := recover(); x != nil {
			rep = &Report{Kind: KindNone}
			err = fmt.Errorf("%w: %v", ErrInternal, x)
		}
	}()
	p := parserPool.Get().(*parser)
	*p = parser{textCut: -1, ev: -1, arena: message.NewArena(), sc: p.sc}
	p.report.Kind = KindNone
	p.rep = &p.report
	defer p.release()
	if len(raw) > MaxInput {
		raw = raw[:MaxInput]
		p.rep.Truncated = true
	}
	m := p.arena.Read(raw)
	if m.Truncated {
		p.rep.Truncated = true
	}
	if len(m.Header) == 0 {
		if len(bytes.TrimSpace(raw)) == 0 {
			return finalReport(p.rep), errors.New("dsn: empty message")
		}
		err = errors.New("dsn: expected header fields at the start of the message, found none")
	}
	p.hdr = m.Header
	p.parts = m.Parts
	p.read()
	if f := listBounceNoticeSubject(p.hdr); f != "" {
		p.markListBounceNotice(f)
	}
	if len(p.rep.Recipients) > 0 {
		p.rep.Notice = p.notice()
	}
	if p.rep.Kind == KindNone && p.rep.Format == "" && p.dmarcAggregate() {
		p.rep.Format = FormatDMARCAggregate
	}
	sanitize(p.rep)
	return finalReport(p.rep), err
}

// parserPool holds parsers, and their scratch memory, between Parses.
var parserPool = sync.Pool{New: func() any { return &parser{sc: &scratch{}} }}

// release gives the parser's memory back once the Parse is done: nothing
// read through the arena or written to the scratch may be used after.
func (p *parser) release() {
	p.arena.Release()
	sc := p.sc
	if !sc.reset() {
		sc = &scratch{}
	}
	*p = parser{sc: sc}
	parserPool.Put(p)
}

// parser holds the state of one Parse.
type parser struct {
	rep    *Report        // the report being read: report, or a readEmbedded parser's own
	report Report         // Parse's report until finalReport copies it out
	hdr    message.Header // the top-level header
	parts  []message.Part

	text      []byte // the human-readable text of the message, decoded, for the free-text scanners
	lowerText []byte // text in ASCII lower case
	textDone  bool
	firstText int // the length of the first text part in text
	textCut   int // where the copy of the original starts in text, -1 until known
	seps      []int
	sepRoom   [4]int // room for seps in the pooled parser: a text has one or two
	sepsDone  bool

	arena        *message.Arena // the memory of the reading; nil (allocate) in readEmbedded's parsers
	sc           *scratch       // memory for the strings made while reading (see scratch), shared with readEmbedded's parsers
	embedDepth   int            // how deep this parser is in readEmbedded
	ev           int            // bounceEvidence, -1 until known
	originalPart bool           // the original message came in a part of its own

	origHdr   message.Header // the original message's header (see originalHeader)
	origDone  bool           // origHdr is final
	senders   []string       // senderAddresses, nil until known
	origRcpts []string       // originalRecipients of origHdr, nil until known
	hev       uint8          // headerEvidence: 0 until known, then 1 | sender<<1 | subject<<2
	autoHdr   uint8          // isAutoReply of the header: 0 until known, then 1 | yes<<1
}

// evidence returns bounceEvidence for the message, computed once; the
// text is read only when the header does not decide.
func (p *parser) evidence() int {
	if p.ev < 0 {
		sender, subject := p.headerEvidence()
		p.ev = bounceEvidence(p.hdr, sender, subject, func() []byte {
			p.loadText()
			return p.lowerText
		})
	}
	return p.ev
}

// headerEvidence returns headerEvidence of the message's header, computed once.
func (p *parser) headerEvidence() (sender, subject bool) {
	if p.hev == 0 {
		s, j := headerEvidence(p.hdr)
		p.hev = 1 | b2i(s)<<1 | b2i(j)<<2
	}
	return p.hev&2 != 0, p.hev&4 != 0
}

// autoReplyHeader returns isAutoReply of the message's header, computed once.
func (p *parser) autoReplyHeader() bool {
	if p.autoHdr == 0 {
		p.autoHdr = 1 | b2i(isAutoReply(p.hdr))<<1
	}
	return p.autoHdr&2 != 0
}

func b2i(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// read decides what the message is and fills the report.
func (p *parser) read() {
	r := p.rep
	// The report parts are few: their indexes stay on the stack.
	var dsnRoom, fbRoom, mdnRoom [4]int
	dsnParts, fbParts, mdnParts := dsnRoom[:0], fbRoom[:0], mdnRoom[:0]
	for i := range p.parts {
		switch p.parts[i].MediaType {
		case "message/delivery-status", "message/global-delivery-status":
			dsnParts = append(dsnParts, i)
		case "message/feedback-report":
			fbParts = append(fbParts, i)
		case "message/disposition-notification", "message/global-disposition-notification":
			mdnParts = append(mdnParts, i)
		}
	}
	p.readOriginalParts()
	switch {
	case len(fbParts) > 0:
		p.readFeedback(fbParts[0])
		return
	case len(mdnParts) > 0 && len(dsnParts) == 0:
		p.readReceipt(mdnParts[0])
		return
	}
	var unfinished []int // recipients whose diagnostic is a reply's first line alone
	for _, i := range dsnParts {
		body, cut := p.parts[i].Decode(MaxStatusPart)
		msg, rcpts, truncated := parseDeliveryStatus(body, p.sc)
		for _, k := range msg.unfinished {
			unfinished = append(unfinished, len(r.Recipients)+k)
		}
		if truncated || cut {
			r.Truncated = true
		}
		if r.ReportingMTA == "" {
			r.ReportingMTA = msg.reportingMTA
		}
		if r.Original.Sender == "" {
			r.Original.Sender = msg.sender
		}
		if r.Recipients == nil {
			r.Recipients = rcpts // its own: no copy
		} else {
			r.Recipients = append(r.Recipients, rcpts...)
		}
	}
	if len(r.Recipients) > 0 {
		r.Format = "rfc3464"
		if len(r.Recipients) > MaxRecipients {
			r.Recipients = r.Recipients[:MaxRecipients]
			r.Truncated = true
		}
		p.fixRecipients()
		p.enrichFromText()
		p.completeReplies(unfinished)
		// A record without an Action: the notice says whether the server
		// still tries.
		p.finish(p.fallbackAction)
		return
	}
	if p.readAdminNotice() || p.readQuotaWarning() || p.readSES() || p.readFML() || p.readTextReceipt() || p.readModerationHold() || p.readListRejection() {
		return
	}
	if p.autoReplied() {
		p.readAutoReply()
		return
	}
	if p.readFreeText() {
		return
	}
	if p.readEmbedded() {
		return
	}
	if p.autoReplyHeader() {
		p.readAutoReply()
	}
}

// fixRecipients replaces RFC 3464 recipients that are not addresses (Exim
// writes the pipe or file it delivered to, Sendmail sometimes "@host") by
// the addresses the report gives elsewhere: X-Failed-Recipients, or the
// recipient lines of the text.
func (p *parser) fixRecipients() {
	r := p.rep
	bad := 0
	for i := range r.Recipients {
		if !plausibleAddress(r.Recipients[i].Address) {
			bad++
		}
	}
	if bad == 0 {
		return
	}
	have := make(map[string]bool, len(r.Recipients))
	for i := range r.Recipients {
		have[ascii.LowerString(r.Recipients[i].Address)] = true
	}
	known := func(a string) bool { return have[ascii.LowerString(a)] }
	var spare []textBlock
	for _, a := range failedRecipientsHeader(p.hdr, p.sc) {
		if !known(a) {
			spare = append(spare, textBlock{address: a})
		}
	}
	p.loadText()
	cut := p.cut()
	blocks := scanRecipientBlocks(p.sc, p.text[:cut], p.lowerText[:cut])
	if len(spare) == 0 {
		for _, b := range blocks {
			if !known(b.address) {
				spare = append(spare, b)
			}
		}
	}
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		if plausibleAddress(rc.Address) {
			continue
		}
		if len(spare) > 0 {
			rc.Address = spare[0].address
			spare = spare[1:]
			continue
		}
		if a := p.completeLocal(rc.Address); a != "" {
			// "Final-Recipient: rfc822; jdoe": a local part whose domain
			// is certain.
			rc.Address = a
		}
	}
}

// finish completes the recipient records: codes from the diagnostic text,
// the kind, and the original message from inline text when no part gave it.
//
// fallback gives the action of the records that have none and whose status
// does not decide it (see settleKinds); it is called at most once, and only
// when needed: the notice need not be searched for a report whose records
// all say.
func (p *parser) finish(fallback func() smtpcode.Action) {
	r := p.rep
	var memo smtpcode.Action
	fallbackAction := func() smtpcode.Action {
		if memo == "" {
			memo = fallback()
		}
		return memo
	}
	var outs []programOutput // Exim's returned program output, read once
	outsRead := false
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		if rc.Action == smtpcode.ActionDelayed && summaryOnlyDelay(rc.Diagnostic) {
			// The cause so far is the last attempt's reply, not the
			// reporting server's X.4.7 summary (lastattempt.go).
			p.loadText()
			if a := lastAttemptReply(p.text, p.lowerText, rc.Address); a != nil {
				rc.Diagnostic = p.sc.add(a)
				rc.ReplyCode = ""
			}
		}
		if strings.Contains(rc.Diagnostic, "pipe to |") {
			// Exim's bounce quotes the failed program's own output
			// below its boilerplate (programoutput.go).
			if !outsRead {
				p.loadText()
				outs, outsRead = programOutputs(p.text, p.lowerText), true
			}
			if o := pipeOutputFor(outs, rc.Address, len(r.Recipients) == 1); o != nil {
				rc.Diagnostic = p.sc.add(o)
				rc.DiagnosticType = "x-unix"
			}
		}
		if reply, cmd := transcriptFailure(rc.Diagnostic); reply != "" {
			// A quoted session: its last error reply is the result,
			// never its greeting, "220 Ready to start TLS" or "250 Ok".
			if rc.RemoteMTA == "" {
				rc.RemoteMTA = findRemoteHost(rc.Diagnostic) // "while talking to host:" is left out of the reply
			}
			rc.Diagnostic = reply
			if cmd != "" {
				rc.Command = cmd
			}
		} else if indexFold(rc.Diagnostic, "transcript") >= 0 {
			if notes := transcriptNotes(rc.Diagnostic); notes != "" {
				// MDaemon's transcript of an attempt no server
				// answered: its last notes say why.
				rc.Diagnostic = notes
			}
		}
		rc.Diagnostic = cleanDiagnostic(p.sc, rc.Diagnostic)
		// The server's own code in its reply is more precise than the
		// reporting MTA's summary in the Status field (Sendmail writes 4.4.7
		// over a "450 4.7.1" refusal).
		rc.Status = recordStatus(rc.Diagnostic, rc.Status)
		if rc.ReplyCode == "" {
			rc.ReplyCode = smtpcode.FindReply(rc.Diagnostic)
		}
		if rc.Action == "" && (strings.HasPrefix(rc.Status, "2") || strings.HasPrefix(rc.ReplyCode, "2")) && !fallbackAction().Success() {
			// A free-text failure: a success code in its text is the
			// transcript's "250 2.1.0 Ok" or a version number
			// ("X-Mailman-Version: 2.1.12"), never its status.
			if strings.HasPrefix(rc.Status, "2") {
				rc.Status = failureCode(rc.Diagnostic, smtpcode.FindStatus)
			}
			if strings.HasPrefix(rc.ReplyCode, "2") {
				rc.ReplyCode = failureCode(rc.Diagnostic, smtpcode.FindReply)
			}
		}
		rc.Reply = replyFrom(rc.Diagnostic, rc.ReplyCode)
		if rc.Command == "" {
			rc.Command = findCommand(rc.Diagnostic)
		}
		if rc.RemoteMTA == "" {
			rc.RemoteMTA = findRemoteHost(rc.Diagnostic)
		}
	}
	settleKinds(r, fallbackAction)
	if r.ReportingMTA == "" {
		p.loadText()
		r.ReportingMTA = generatingServer(p.text, p.lowerText)
	}
	if r.ReportingMTA == "" {
		r.ReportingMTA = receivedReporter(p.hdr, p.sc)
	}
	if r.Original.MessageID == "" && r.Original.From == "" {
		if h := p.originalHeader(); h != nil {
			readOriginal(&r.Original, h, p.sc)
		}
	}
	if r.Addressee == "" {
		r.Addressee = firstAddress(decodeWords(p.sc, headerString(p.hdr, "To"))) // a view: detach copies it
	}
}

// replyFrom returns the server's reply in the diagnostic d: d from the
// reply code code on, as smtpcode.FindReply finds it (see Recipient.Reply);
// "" when code is not a reply code of d.
func replyFrom(d, code string) string {
	if code == "" {
		return ""
	}
	for off := 0; off < len(d); {
		i := smtpcode.IndexReply(d[off:])
		if i < 0 {
			break
		}
		if i += off; d[i:i+3] == code {
			r := d[i:]
			if i > 0 && (d[i-1] == '\'' || d[i-1] == '"') && r[len(r)-1] == d[i-1] {
				r = r[:len(r)-1] // Exchange's "Remote Server returned '550 ...'"
			}
			if r[len(r)-1] == ')' && strings.Count(d[:i], "(") > strings.Count(d[:i], ")") &&
				strings.Count(r, ")") > strings.Count(r, "(") {
				r = r[:len(r)-1] // Sendmail's "(reason: 550 Host unknown)": the parenthesis opened before the reply
			}
			if k := strings.Index(r, " Giving up on "); k > 0 {
				r = r[:k] // qmail-remote's own words after the reply
			}
			return r
		}
		off = i + 3
	}
	return ""
}

// failureCode returns the first code find finds in d that is not of
// class 2, "" when there is none.
func failureCode(d string, find func(string) string) string {
	for n := 0; n < maxCodeSearch; n++ {
		c := find(d)
		if c == "" || c[0] != '2' {
			return c
		}
		k := strings.Index(d, c)
		if k < 0 {
			return ""
		}
		d = d[k+len(c):]
	}
	return ""
}

// maxCodeSearch caps how many codes failureCode passes over.
const maxCodeSearch = 16

// readOriginalParts reads the original message from the parts that carry it
// (RFC 3462 text/rfc822-headers, message/rfc822, RFC 6533 message/global and
// message/global-headers).
func (p *parser) readOriginalParts() {
	for i := range p.parts {
		pt := &p.parts[i]
		switch pt.MediaType {
		case "text/rfc822-headers", "message/rfc822", "message/global", "message/global-headers", "message/partial":
		default:
			continue
		}
		p.originalPart = true
		b := pt.Body
		if pt.TransferEncoding == "base64" || pt.TransferEncoding == "quoted-printable" {
			b, _ = pt.Decode(MaxDecodedPart)
		}
		h, _, _ := p.arena.ReadHeader(trimLeadingBlank(b))
		if p.origHdr == nil && len(h) > 0 {
			p.origHdr = h
		}
		readOriginal(&p.rep.Original, h, p.sc)
		if p.rep.Original.MessageID != "" {
			return
		}
	}
}

// trimLeadingBlank drops empty lines at the start of b.
func trimLeadingBlank(b []byte) []byte {
	for len(b) > 0 {
		line, next := ascii.NextLine(b, 0)
		if len(bytes.TrimSpace(line)) != 0 {
			return b
		}
		b = b[next:]
	}
	return b
}

// loadText gathers the human-readable text of the message once: its
// text/plain parts (text/html, tags stripped, when there is no plain text),
// decoded, up to MaxScanText.
func (p *parser) loadText() {
	if p.textDone {
		return
	}
	p.textDone = true
	plain := false
	for i := range p.parts {
		pt := &p.parts[i]
		if pt.MediaType == "text/plain" || pt.MediaType == "text" {
			plain = true
			break
		}
	}
	var pieces [][]byte
	total := 0
	for i := range p.parts {
		if total > MaxScanText {
			break
		}
		pt := &p.parts[i]
		var d []byte
		var cut bool
		switch {
		case pt.MediaType == "text/plain" || pt.MediaType == "text" || pt.MediaType == "text/enriched":
			d, cut = pt.Decode(min(MaxDecodedPart, MaxScanText-total+1))
		case pt.MediaType == "text/html" && !plain:
			d, cut = pt.Decode(MaxDecodedPart)
			d = message.HTMLText(d)
		default:
			continue
		}
		p.rep.Truncated = p.rep.Truncated || cut
		pieces = append(pieces, d)
		total += len(d) + 1
	}
	if len(pieces) > 0 {
		p.firstText = len(pieces[0])
	}
	var buf []byte
	if len(pieces) == 1 {
		// One text part, often the body itself: no copy. The text is
		// only read, never changed.
		buf = pieces[0]
	} else {
		buf = make([]byte, 0, total)
		for _, d := range pieces {
			buf = append(buf, d...)
			buf = append(buf, '\n')
		}
	}
	if len(buf) > MaxScanText {
		buf = buf[:MaxScanText]
	}
	p.text = buf
	p.lowerText = p.arena.Lower(buf)
}

// notice returns Report.Notice: the human-readable part of the message,
// capped, copied out of the arena's memory.
func (p *parser) notice() string {
	p.loadText()
	var n []byte
	if p.originalPart {
		// The original has a part of its own; its text parts may follow
		// the notice's in text: the first is the notice.
		n = p.text[:min(p.firstText, len(p.text))]
	} else {
		n = p.text[:p.cut()]
	}
	if len(n) > MaxNotice {
		n = n[:MaxNotice]
	}
	return view(bytes.TrimSpace(n)) // detach copies it
}

// cut returns where the copy of the original message starts in the text
// (see cutOriginal), computed once.
func (p *parser) cut() int {
	p.loadText()
	if p.textCut < 0 {
		p.textCut = cutOriginal(p.text, p.separators())
	}
	return p.textCut
}

// separators returns the starts of the separator lines of the text (see
// separatorLines), computed once.
func (p *parser) separators() []int {
	p.loadText()
	if !p.sepsDone {
		p.seps, p.sepsDone = appendSeparatorLines(p.sepRoom[:0], p.lowerText), true
	}
	return p.seps
}

// enrichFromText completes RFC 3464 recipient records from the
// human-readable part: a diagnostic where the delivery-status part gave
// none, the SMTP command and the remote host.
func (p *parser) enrichFromText() {
	r := p.rep
	need := false
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		if rc.Diagnostic == "" || rc.RemoteMTA == "" || rc.Command == "" {
			need = true
		}
	}
	if !need {
		return
	}
	p.loadText()
	if len(p.text) == 0 {
		return
	}
	cut := len(p.text)
	if !p.originalPart {
		// The copy of the original may be in the text: stop before it.
		// When it has a part of its own, the text is the notice alone.
		cut = p.cut()
	}
	p.enrichBlocks(scanRecipientBlocks(p.sc, p.text[:cut], p.lowerText[:cut]))
	p.listRefusalDiagnostic(cut)
}

// listRefusalDiagnostic gives the one failed record of a report, when the
// notice is a mailing list's refusal of the post (listRejectPhrases) and
// the record does not say why, the notice's sentence of the refusal as its
// diagnostic: Google Groups sends its "the group you tried to contact
// (NAME) may not exist, or you may not have permission to post messages to
// the group" as an RFC 3464 report whose record holds only Status 5.0.0;
// Sympa's reports (mail_tt2/delivery_status_notification.tt2) give as
// "Diagnostic-Code: X-Sympa;" the registry's text of the status alone
// (Sympa.pm %diag_messages: "Delivery not authorized, message refused"
// for 5.7.1), and the notice the scenario's reason ("Message
// distribution in the list is restricted to list subscribers"), which
// then follows that text. The notice is searched up to cut (the start of
// the copy of the original).
func (p *parser) listRefusalDiagnostic(cut int) {
	r := p.rep
	if len(r.Recipients) != 1 || r.Recipients[0].Action != smtpcode.ActionFailed {
		return
	}
	rc := &r.Recipients[0]
	sympa := strings.EqualFold(rc.DiagnosticType, "x-sympa")
	if rc.Diagnostic != "" && !sympa {
		return
	}
	at := listRejectPhrases.find(p.lowerText[:cut])
	if at < 0 {
		return
	}
	d := strings.Join(strings.Fields(paragraphAndReasons(string(p.text[:cut]), at, maxListDiagnostic)), " ")
	if rc.Diagnostic != "" {
		d = strings.TrimRight(rc.Diagnostic, ". ") + ". " + d
	}
	rc.Diagnostic = d
}
