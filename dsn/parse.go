package dsn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
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
	p := &parser{rep: &Report{Kind: KindNone}, textCut: -1}
	if len(raw) > MaxInput {
		raw = raw[:MaxInput]
		p.rep.Truncated = true
	}
	h, body, truncated := parseHeader(raw)
	if truncated {
		p.rep.Truncated = true
	}
	if len(h) == 0 {
		if len(bytes.TrimSpace(raw)) == 0 {
			return p.rep, errors.New("dsn: empty message")
		}
		err = errors.New("dsn: expected header fields at the start of the message, found none")
	}
	p.hdr = h
	w := mimeWalker{}
	w.walk(h, body, 0)
	if w.truncated {
		p.rep.Truncated = true
	}
	p.parts = w.parts
	p.read()
	sanitize(p.rep)
	return p.rep, err
}

// sanitize makes every string of r valid UTF-8 (JSON output and header
// values are built from them) and cuts diagnostics at MaxDiagnostic.
func sanitize(r *Report) {
	r.ReportingMTA = validUTF8(r.ReportingMTA)
	r.FeedbackType = validUTF8(r.FeedbackType)
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		rc.Address = validUTF8(rc.Address)
		rc.Action = validUTF8(rc.Action)
		rc.RemoteMTA = validUTF8(rc.RemoteMTA)
		rc.Command = validUTF8(rc.Command)
		if len(rc.Diagnostic) > MaxDiagnostic {
			rc.Diagnostic = rc.Diagnostic[:MaxDiagnostic]
		}
		rc.Diagnostic = validUTF8(rc.Diagnostic)
		if rc.Status != "" && !isStatus(rc.Status) {
			rc.Status = ""
		}
		if rc.ReplyCode != "" && !isReplyCode(rc.ReplyCode) {
			rc.ReplyCode = ""
		}
	}
	o := &r.Original
	o.MessageID, o.From, o.To = validUTF8(o.MessageID), validUTF8(o.From), validUTF8(o.To)
	o.Subject, o.Date, o.Sender = validUTF8(o.Subject), validUTF8(o.Date), validUTF8(o.Sender)
	for i := range o.Received {
		o.Received[i] = validUTF8(o.Received[i])
	}
}

// parser holds the state of one Parse.
type parser struct {
	rep   *Report
	hdr   header // the top-level header
	parts []part

	text      []byte // the human-readable text of the message, decoded, for the free-text scanners
	lowerText []byte // text in ASCII lower case
	textDone  bool
	textCut   int // where the copy of the original starts in text, -1 until known
	seps      []int
	sepsDone  bool

	embedDepth int // how deep this parser is in readEmbedded
}

// read decides what the message is and fills the report.
func (p *parser) read() {
	r := p.rep
	var dsnParts, fbParts, mdnParts []int
	for i := range p.parts {
		switch p.parts[i].mediaType {
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
	for _, i := range dsnParts {
		body, cut := decodePart(&p.parts[i], MaxStatusPart)
		msg, rcpts, truncated := parseDeliveryStatus(body)
		if truncated || cut {
			r.Truncated = true
		}
		if r.ReportingMTA == "" {
			r.ReportingMTA = msg.reportingMTA
		}
		if r.Original.Sender == "" {
			r.Original.Sender = msg.sender
		}
		r.Recipients = append(r.Recipients, rcpts...)
	}
	if len(r.Recipients) > 0 {
		r.Format = "rfc3464"
		if len(r.Recipients) > MaxRecipients {
			r.Recipients = r.Recipients[:MaxRecipients]
			r.Truncated = true
		}
		p.fixRecipients()
		p.enrichFromText()
		p.finish("failed")
		return
	}
	if p.readSES() {
		return
	}
	if isAutoReply(p.hdr) {
		p.loadText()
		if bounceEvidence(p.hdr, p.lowerText) < 2 {
			p.readAutoReply()
			return
		}
	}
	if p.readFreeText() {
		return
	}
	if p.readEmbedded() {
		return
	}
	if isAutoReply(p.hdr) {
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
		have[lowerString(r.Recipients[i].Address)] = true
	}
	known := func(a string) bool { return have[lowerString(a)] }
	var spare []textBlock
	for _, a := range failedRecipientsHeader(p.hdr) {
		if !known(a) {
			spare = append(spare, textBlock{address: a})
		}
	}
	p.loadText()
	cut := p.cut()
	blocks := scanRecipientBlocks(p.text[:cut], p.lowerText[:cut])
	if len(spare) == 0 {
		for _, b := range blocks {
			if !known(b.address) {
				spare = append(spare, b)
			}
		}
	}
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		if plausibleAddress(rc.Address) || len(spare) == 0 {
			continue
		}
		rc.Address = spare[0].address
		spare = spare[1:]
	}
}

// maxEmbedDepth caps how deep readEmbedded looks for a report inside a
// report (a forwarded bounce, a bounce about a bounce).
const maxEmbedDepth = 2

// readEmbedded looks for a bounce inside the message: a forwarded bounce
// ("Begin forwarded message:", quoted with "> "), a bounce copied as the
// "original message" of another, or one attached as message/rfc822. It
// says whether one was found; the report then takes its recipients.
func (p *parser) readEmbedded() bool {
	if p.embedDepth >= maxEmbedDepth {
		return false
	}
	p.loadText()
	var candidates [][]byte
	// Forwarded text, unquoted.
	for _, m := range [...]string{"begin forwarded message", "forwarded message", "original message", "\nfrom mailer-daemon", "message/rfc822"} {
		k := indexString(p.lowerText, m)
		if k < 0 {
			continue
		}
		_, next := nextLine(p.text, k+1)
		candidates = append(candidates, unquote(p.text[next:]))
	}
	for i := range p.parts {
		if p.parts[i].mediaType == "message/rfc822" {
			candidates = append(candidates, p.parts[i].body)
		}
	}
	for _, c := range candidates {
		c = trimLeadingBlank(c)
		if bytes.HasPrefix(c, []byte("From ")) {
			_, n := nextLine(c, 0)
			c = c[n:]
		}
		sub := &parser{rep: &Report{Kind: KindNone}, embedDepth: p.embedDepth + 1, textCut: -1}
		h, body, _ := parseHeader(c)
		if len(h) < 2 {
			continue
		}
		sub.hdr = h
		w := mimeWalker{}
		w.walk(h, body, 0)
		sub.parts = w.parts
		sub.read()
		if sub.rep.Kind != KindBounce && sub.rep.Kind != KindDelay || len(sub.rep.Recipients) == 0 {
			continue
		}
		orig := p.rep.Original
		*p.rep = *sub.rep
		if p.rep.Original.MessageID == "" {
			p.rep.Original = orig
		}
		p.rep.Format = "embedded-" + sub.rep.Format
		return true
	}
	return false
}

// unquote removes the "> " marks of a quoted text.
func unquote(b []byte) []byte {
	if !bytes.Contains(b, []byte("\n>")) && !bytes.HasPrefix(b, []byte(">")) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		line, next := nextLine(b, i)
		i = next
		if len(line) > 0 && line[0] == '>' {
			line = line[1:]
			if len(line) > 0 && line[0] == ' ' {
				line = line[1:]
			}
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

// finish completes the recipient records: codes from the diagnostic text,
// the kind, and the original message from inline text when no part gave it.
func (p *parser) finish(fallbackAction string) {
	r := p.rep
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		rc.Diagnostic = cleanDiagnostic(rc.Diagnostic)
		// The server's own code in its reply is more precise than the
		// reporting MTA's summary in the Status field (Sendmail writes 4.4.7
		// over a "450 4.7.1" refusal).
		if s := diagnosticStatus(rc.Diagnostic, rc.Status); s != "" && (rc.Status == "" || !isGenericStatus(s)) {
			rc.Status = s
		}
		if rc.ReplyCode == "" {
			rc.ReplyCode = findReplyCode(rc.Diagnostic)
		}
		if rc.Command == "" {
			rc.Command = findCommand(rc.Diagnostic)
		}
	}
	settleKinds(r, fallbackAction)
	if r.ReportingMTA == "" {
		p.loadText()
		r.ReportingMTA = generatingServer(p.text, p.lowerText)
	}
	if r.ReportingMTA == "" {
		r.ReportingMTA = receivedReporter(p.hdr)
	}
	if r.Original.MessageID == "" && r.Original.From == "" {
		p.loadText()
		if h := inlineOriginal(p.text, p.separators()); h != nil {
			readOriginal(&r.Original, h)
		}
	}
}

// readOriginalParts reads the original message from the parts that carry it
// (RFC 3462 text/rfc822-headers, message/rfc822, RFC 6533 message/global and
// message/global-headers).
func (p *parser) readOriginalParts() {
	for i := range p.parts {
		pt := &p.parts[i]
		switch pt.mediaType {
		case "text/rfc822-headers", "message/rfc822", "message/global", "message/global-headers", "message/partial":
		default:
			continue
		}
		b := pt.body
		if pt.cte == "base64" || pt.cte == "quoted-printable" {
			b, _ = decodePart(pt, MaxDecodedPart)
		}
		h, _, _ := parseHeader(trimLeadingBlank(b))
		readOriginal(&p.rep.Original, h)
		if p.rep.Original.MessageID != "" {
			return
		}
	}
}

// trimLeadingBlank drops empty lines at the start of b.
func trimLeadingBlank(b []byte) []byte {
	for len(b) > 0 {
		line, next := nextLine(b, 0)
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
	var buf []byte
	plain := false
	for i := range p.parts {
		pt := &p.parts[i]
		if pt.mediaType == "text/plain" || pt.mediaType == "text" {
			plain = true
			break
		}
	}
	for i := range p.parts {
		pt := &p.parts[i]
		switch {
		case pt.mediaType == "text/plain" || pt.mediaType == "text" || pt.mediaType == "text/enriched":
			d, cut := decodePart(pt, min(MaxDecodedPart, MaxScanText-len(buf)+1))
			p.rep.Truncated = p.rep.Truncated || cut
			buf = append(buf, d...)
		case pt.mediaType == "text/html" && !plain:
			d, cut := decodePart(pt, MaxDecodedPart)
			p.rep.Truncated = p.rep.Truncated || cut
			buf = append(buf, stripTags(d)...)
		default:
			continue
		}
		buf = append(buf, '\n')
		if len(buf) > MaxScanText {
			buf = buf[:MaxScanText]
			break
		}
	}
	p.text = buf
	p.lowerText = toLower(buf)
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
		p.seps, p.sepsDone = separatorLines(p.lowerText), true
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
	cut := p.cut()
	p.enrichBlocks(scanRecipientBlocks(p.text[:cut], p.lowerText[:cut]))
}

// readFeedback reads an RFC 5965 feedback report: one recipient record per
// Original-Rcpt-To, else per address of the original's To.
func (p *parser) readFeedback(i int) {
	r := p.rep
	r.Kind = KindFeedback
	r.Format = "arf"
	body, _ := decodePart(&p.parts[i], MaxDecodedPart)
	h, _, _ := parseHeader(body)
	r.FeedbackType = lowerString(h.getString("Feedback-Type"))
	if v := h.getString("Reporting-MTA"); v != "" {
		_, r.ReportingMTA = stripType(v)
	}
	if v := h.getString("Original-Mail-From"); v != "" && r.Original.Sender == "" {
		r.Original.Sender = cleanAddress(v)
	}
	var addrs []string
	for k := range h {
		if equalFoldString(h[k].name, "Original-Rcpt-To") || equalFoldString(h[k].name, "Removal-Recipient") {
			if a := cleanAddress(string(h[k].value())); a != "" {
				addrs = append(addrs, a)
			}
		}
	}
	if len(addrs) == 0 {
		addrs = addressList(r.Original.To)
	}
	for _, a := range addrs {
		if len(r.Recipients) >= MaxRecipients {
			r.Truncated = true
			break
		}
		r.Recipients = append(r.Recipients, Recipient{Address: a})
	}
}

// readReceipt reads an RFC 8098 message disposition notification.
func (p *parser) readReceipt(i int) {
	r := p.rep
	r.Kind = KindReceipt
	r.Format = "mdn"
	body, _ := decodePart(&p.parts[i], MaxDecodedPart)
	h, _, _ := parseHeader(body)
	if v := h.getString("Reporting-UA"); v != "" {
		// "host; product" (RFC 8098 section 3.2.1).
		r.ReportingMTA = cleanHost(v)
	}
	a := h.getString("Final-Recipient")
	if a == "" {
		a = h.getString("Original-Recipient")
	}
	if a != "" {
		r.Recipients = append(r.Recipients, Recipient{Address: recipientAddress(a)})
	}
}

// readAutoReply reads an RFC 3834 auto-reply: the recipient is the one who
// replied (From), the original sender the one the reply goes to (To).
func (p *parser) readAutoReply() {
	r := p.rep
	r.Kind = KindAutoreply
	r.Format = "rfc3834"
	if a := firstAddress(decodeWords(p.hdr.getString("From"))); a != "" {
		r.Recipients = append(r.Recipients, Recipient{Address: a})
	}
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(decodeWords(p.hdr.getString("To")))
	}
}

// receivedReporter guesses the reporting MTA from the report's own
// Received chain: the bottom Received field is the first hop, where the
// report entered transport. When it came "from" a named host other than
// the local one, that host wrote the report; else the "by" host did.
func receivedReporter(h header) string {
	var last []byte
	for i := range h {
		if equalFoldString(h[i].name, "Received") {
			last = h[i].value()
		}
	}
	if last == nil {
		return ""
	}
	l := lowerString(string(last))
	from := ""
	if strings.HasPrefix(l, "from ") {
		from = hostToken(string(last[5:]))
	}
	if from != "" && from != "localhost" && !strings.HasPrefix(from, "127.") && strings.Contains(from, ".") && !isIPv4(from) {
		return from
	}
	if k := strings.Index(l, " by "); k >= 0 || strings.HasPrefix(l, "by ") {
		if k < 0 {
			k = -1
		}
		return hostToken(string(last[k+4:]))
	}
	return ""
}

// isIPv4 says whether s is a dotted quad.
func isIPv4(s string) bool {
	dots := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.':
			dots++
		case !isDigit(s[i]):
			return false
		}
	}
	return dots == 3
}
