package dsn

import (
	"bytes"
	"strings"
)

// Free-text reports: bounces without an RFC 3464 part, as qmail, Exim,
// Exchange 2003, Gmail, Yahoo and many appliances send them. The scanner is
// generic: it finds the part of the text before the copy of the original
// message, the recipient lines in it ("<user@example.com>:", an address
// alone on a line, "Recipient: user@example.com", Sendmail's ">>> RCPT
// To:<user@example.com>"), and takes the lines under each as its diagnostic.

// textBlock is what the free-text scanners read about one recipient.
type textBlock struct {
	address    string
	diagnostic string
	remoteMTA  string
	command    string
	before     string   // the paragraph just above the recipient line
	earlier    []string // the paragraphs above it, nearest last
}

// maxBlockText caps the diagnostic text gathered for one recipient.
const maxBlockText = 2048

// readFreeText reads a report that has no RFC 3464 part. It says whether the
// message was recognised as a report: the header or the text must show a
// bounce, and recipients must be found.
func (p *parser) readFreeText() bool {
	p.loadText()
	r := p.rep
	ev := bounceEvidence(p.hdr, p.lowerText)
	if ev == 0 {
		return false
	}
	cut := p.cut()
	section, lowerSection := p.text[:cut], p.lowerText[:cut]

	// An RFC 3464 report pasted into the text (Amazon WorkMail, forwarded reports).
	if k := fieldLineIndex(lowerSection, "final-recipient:"); k >= 0 {
		start := k
		if j := fieldLineIndex(lowerSection, "reporting-mta:"); j >= 0 && j < k {
			start = j
		}
		msg, rcpts, _ := parseDeliveryStatus(section[start:])
		if len(rcpts) > 0 {
			r.Recipients = rcpts
			r.ReportingMTA = msg.reportingMTA
			r.Format = "rfc3464-text"
			p.enrichBlocks(scanRecipientBlocks(section[:start], lowerSection[:start]))
			p.finish(p.fallbackAction())
			return true
		}
	}

	blocks := scanRecipientBlocks(section, lowerSection)
	failed := failedRecipientsHeader(p.hdr)
	switch {
	case len(failed) > 0:
		// X-Failed-Recipients (Exim, Google) names them for sure.
		idx := indexBlocks(blocks)
		for _, a := range failed {
			rc := Recipient{Address: a}
			if k, ok := idx[lowerString(a)]; ok {
				b := &blocks[k]
				rc.Diagnostic, rc.RemoteMTA, rc.Command = b.diagnostic, b.remoteMTA, b.command
			}
			if rc.Diagnostic == "" {
				rc.Diagnostic = sectionSummary(section)
			}
			r.Recipients = append(r.Recipients, rc)
		}
	case len(blocks) > 0:
		for _, b := range blocks {
			if len(r.Recipients) >= MaxRecipients {
				r.Truncated = true
				break
			}
			r.Recipients = append(r.Recipients, Recipient{Address: b.address, Diagnostic: b.diagnostic, RemoteMTA: b.remoteMTA, Command: b.command})
		}
	default:
		if ev < 2 {
			return false
		}
		// A bounce that names its recipient only in a sentence
		// ("could not be delivered to <user@example.com>"), or not at all.
		a := sentenceRecipient(section, lowerSection)
		if a == "" {
			if h := inlineOriginal(p.text, p.separators()); h != nil {
				readOriginal(&r.Original, h)
			}
			a = firstAddress(r.Original.To)
		}
		if a == "" {
			return false
		}
		r.Recipients = append(r.Recipients, Recipient{Address: a, Diagnostic: sectionSummary(section)})
	}
	r.Format = textFamily(lowerSection)
	p.finish(p.fallbackAction())
	return true
}

// textFamilies name the writer of a free-text report from a phrase of its
// boilerplate, for logs and tests: the reading itself is the same for all.
var textFamilies = []struct{ phrase, family string }{
	{"qmail-send program", "qmail"},
	{"this message was created automatically by mail delivery software", "exim"},
	{"this is the mail system at host", "postfix"},
	{"this is the postfix program", "postfix"},
	{"transcript of session follows", "sendmail"},
	{"the original message was received at", "sendmail"},
	{"did not reach the following recipient", "exchange2003"},
	{"delivery has failed to these recipients or groups", "exchange2007"},
	{"google tried to deliver your message", "gmail"},
	{"delivery to the following recipient failed permanently", "gmail"},
	{"we were unable to deliver your message to the following address", "yahoo"},
	{"this is the mailer-daemon, please do not reply", "opensmtpd"},
	{"failure reasons", "notes"},
	{"dragonfly mail agent", "dragonfly"},
	{"courier mail server", "courier"},
}

// textFamily returns the family of a free-text report, "text" when unknown.
func textFamily(lowerSection []byte) string {
	for _, f := range textFamilies {
		if containsString(lowerSection, f.phrase) {
			return f.family
		}
	}
	return "text"
}

// enrichBlocks completes recipient records from free-text blocks.
func (p *parser) enrichBlocks(blocks []textBlock) {
	if len(blocks) == 0 {
		return
	}
	idx := indexBlocks(blocks)
	for i := range p.rep.Recipients {
		rc := &p.rep.Recipients[i]
		k, ok := idx[lowerString(rc.Address)]
		if !ok {
			continue
		}
		b := &blocks[k]
		if rc.Diagnostic == "" {
			rc.Diagnostic = b.diagnostic
		}
		if rc.RemoteMTA == "" {
			rc.RemoteMTA = b.remoteMTA
		}
		if rc.Command == "" {
			rc.Command = b.command
		}
	}
}

// indexBlocks maps the lower-case address of each block to its index.
func indexBlocks(blocks []textBlock) map[string]int {
	idx := make(map[string]int, len(blocks))
	for i := range blocks {
		a := lowerString(blocks[i].address)
		if _, ok := idx[a]; !ok {
			idx[a] = i
		}
	}
	return idx
}

// fallbackAction is the action of recipients whose status does not say:
// "delayed" when the subject or text says the message is delayed.
func (p *parser) fallbackAction() string {
	s := lowerString(decodeWords(p.hdr.getString("Subject")))
	for _, w := range delaySubjects {
		if strings.Contains(s, w) {
			return "delayed"
		}
	}
	return "failed"
}

// delaySubjects are lower-case subject words of delay warnings.
var delaySubjects = []string{"delayed", "delay)", "warning: message", "still being retried", "will retry", "not yet been delivered"}

// failedRecipientsHeader reads X-Failed-Recipients (Exim, Gmail).
func failedRecipientsHeader(h header) []string {
	var out []string
	for i := range h {
		if equalFoldString(h[i].name, "X-Failed-Recipients") {
			out = append(out, addressList(string(h[i].value()))...)
		}
	}
	return out
}

// bounceEvidence says how sure the header and text make it that the
// message is a bounce: 0 not at all, 1 the header says so (a mailer daemon
// sender or a bounce subject), 2 the header and the text both do, or the
// text does with an empty envelope sender.
func bounceEvidence(h header, lowerText []byte) int {
	score := 0
	from := lowerString(decodeWords(h.getString("From")))
	for _, w := range daemonSenders {
		if strings.Contains(from, w) {
			score = 1
			break
		}
	}
	if score == 0 {
		subj := lowerString(decodeWords(h.getString("Subject")))
		for _, w := range bounceSubjects {
			if strings.Contains(subj, w) {
				score = 1
				break
			}
		}
	}
	if h.has("X-Failed-Recipients") {
		return 2
	}
	text := false
	for _, w := range bouncePhrases {
		if containsString(lowerText, w) {
			text = true
			break
		}
	}
	if text {
		if score == 1 {
			return 2
		}
		if rp := h.getString("Return-Path"); rp == "<>" || rp == "" && h.getString("From") == "" {
			return 2
		}
	}
	return score
}

// daemonSenders are lower-case parts of the From of automatic bounce senders.
var daemonSenders = []string{
	"mailer-daemon", "mailer_daemon", "mailerdaemon", "postmaster", "mail-daemon", "mail delivery",
	"maildelivery", "mail administrator", "system administrator", "mail_delivery", "nobody@",
	"bounce", "mailadmin", "mail-system", "mail system", "mmdf", "mdaemon", "internet mail delivery",
	"returned mail", "post_master", "no-reply@", "noreply@", "daemon@", "notify@", "mta@", "smtp@",
}

// bounceSubjects are lower-case subject words of bounces and delay warnings.
var bounceSubjects = []string{
	"undeliver", "undelivered", "delivery fail", "delivery status notification", "failure notice",
	"returned mail", "mail delivery failed", "delivery problem", "could not be delivered",
	"not delivered", "non remis", "unzustellbar", "nicht zustellbar", "returned to sender",
	"delivery failure", "failed delivery", "mail failure", "delivery notification", "nondeliverable",
	"non-deliverable", "bounce", "warning: message", "delayed mail", "delivery delayed",
	"mail delivery", "mail system error", "message not delivered", "rejected", "error sending message",
	"permanent error", "delivery report", "no se puede entregar", "onbestelbaar", "não entregue",
	"配信", "エラー", "不達", "未送达", "退信", "недоставлен", "не доставлен", "не может быть доставлено",
}

// bouncePhrases are lower-case phrases of bounce texts.
var bouncePhrases = []string{
	"could not be delivered", "couldn't be delivered", "was not delivered", "undeliverable",
	"unable to deliver", "delivery has failed", "delivery failed", "failed permanently",
	"permanent error", "permanent failure", "did not reach", "not be delivered", "user unknown",
	"no such user", "returned to sender", "the following address", "following recipient",
	"delivery to the following", "i'm afraid i wasn't able to deliver", "not able to deliver",
	"error delivering", "fatal error", "delivery error", "rejected", "mailbox unavailable",
	"message delivery failed", "smtp error", "remote host said", "does not exist", "deliver your message",
	"failed to deliver", "delivery attempt", "has not been delivered", "has been delayed",
	"temporary failure", "transcript of session", "not yet been delivered", "could not deliver",
	"unknown user", "invalid recipient", "recipient address rejected", "address rejected",
	"mailbox full", "quota", "host unknown", "message not delivered", "non-delivery", "nondelivery",
	"delivery status", "your message", "giving up", "following addresses", "failed recipient",
	"配信", "送信できません", "届きません", "не может быть доставлено", "не доставлено",
}

// fieldLineIndex returns the index in lowerText of the first line that starts
// with name (a lower-case "field:"), or -1.
func fieldLineIndex(lowerText []byte, name string) int {
	n := []byte(name)
	for i := 0; i < len(lowerText); {
		k := bytes.Index(lowerText[i:], n)
		if k < 0 {
			return -1
		}
		k += i
		if k == 0 || lowerText[k-1] == '\n' {
			return k
		}
		i = k + len(n)
	}
	return -1
}

// cutOriginal returns where the copy of the original message starts in the
// text: at the first known separator line, or at the first block of two or
// more header fields. len(text) when there is none.
func cutOriginal(text []byte, seps []int) int {
	cut := len(text)
	if len(seps) > 0 {
		cut = seps[0]
	}
	if k := headerBlockStart(text[:cut]); k >= 0 && k < cut {
		cut = k
	}
	return cut
}

// copiedFields are the fields that start a copied header block.
var copiedFields = []string{
	"return-path", "received", "message-id", "date", "from", "to", "subject", "mime-version",
	"content-type", "dkim-signature", "delivered-to", "reply-to", "x-mailer", "authentication-results",
	"x-originating-ip", "x-received", "arc-seal", "envelope-to", "sender",
}

// headerBlockStart finds a line that starts a copied header: a field from
// copiedFields followed by at least two more fields or continuation lines
// (a summary of two lines, "Subject: x" and "Date: y", is not a copy).
// -1 when there is none.
func headerBlockStart(text []byte) int {
	for i := 0; i < len(text); {
		line, next := nextLine(text, i)
		if isCopiedField(line) && next < len(text) {
			n, j := 0, next
			for n < 2 && j < len(text) {
				nl, nn := nextLine(text, j)
				if len(nl) == 0 || !(nl[0] == ' ' || nl[0] == '\t' || isHeaderLine(nl)) {
					break
				}
				n++
				j = nn
			}
			if n == 2 {
				return i
			}
		}
		i = next
	}
	return -1
}

// isCopiedField says whether line is a field of copiedFields.
func isCopiedField(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 || colon > 30 {
		return false
	}
	name := line[:colon]
	for _, f := range copiedFields {
		if equalFoldString(name, f) {
			return true
		}
	}
	return false
}

// isHeaderLine says whether line looks like a header field: a field name
// without spaces, a colon and a value.
func isHeaderLine(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	return colon > 0 && colon < 60 && isFieldName(line[:colon]) && colon+1 < len(line) && line[colon+1] == ' '
}

// sectionSummary is the text of a report section made one line, cut to
// maxBlockText: the diagnostic when the recipient has no block of its own.
func sectionSummary(section []byte) string {
	s := collapseSpace(string(section))
	if len(s) > maxBlockText {
		s = s[:maxBlockText]
	}
	return s
}

// sentenceRecipient finds a recipient named in a sentence: an address in
// angle brackets or after "to" near a bounce phrase. "" when none.
func sentenceRecipient(section, lowerSection []byte) string {
	for _, w := range [...]string{"delivering your mail to", "delivered to", "deliver to", "delivery to", "recipient", "message to", "mail to", "address"} {
		k := indexString(lowerSection, w)
		if k < 0 {
			continue
		}
		line, _ := nextLine(section, k+len(w))
		if a, _ := findAddress(string(line), 0); a != "" {
			return a
		}
	}
	return ""
}

// scanRecipientBlocks finds the recipient blocks of a free-text report
// section: each recipient line and the lines under it, up to the next
// recipient line, or to an empty line once the block has text.
func scanRecipientBlocks(text, lowerText []byte) []textBlock {
	var blocks []textBlock
	seen := map[string]int{} // lower-case address -> index in blocks
	var cur *textBlock
	var buf []byte
	sendmail := false // inside a ">>> RCPT To:" transcript block
	end := func() {
		if cur == nil {
			return
		}
		if sendmail {
			buf = transcriptReplies(buf)
		}
		d := cleanDiagnostic(string(buf))
		if d == "" {
			// Lotus Notes and others give the reason above the address.
			d = cur.before
		}
		if !hasCode([]byte(d)) {
			// "Could not be delivered because of / 550 5.1.1 User unknown /
			// The following recipients were affected: / user@example.com":
			// the server's reply is in a paragraph above.
			for k := len(cur.earlier) - 1; k >= 0; k-- {
				if hasCode([]byte(cur.earlier[k])) {
					d = collapseSpace(cur.earlier[k] + " " + d)
					break
				}
			}
		}
		if len(d) > maxBlockText {
			d = d[:maxBlockText]
		}
		cur.diagnostic = d
		cur.remoteMTA = findRemoteHost(d)
		if c := findCommand(d); c != "" || cur.command == "" {
			cur.command = c
		}
		if cur.command == "" && sendmail {
			cur.command = "RCPT"
		}
		// The same recipient twice (a report in two languages, or a summary
		// and then details for admins): keep the first, unless only the
		// second has the server's reply.
		key := lowerString(cur.address)
		if i, ok := seen[key]; ok {
			switch {
			case blocks[i].diagnostic == "":
				blocks[i] = *cur
			case cur.diagnostic != "" && !hasCode([]byte(blocks[i].diagnostic)) && hasCode([]byte(cur.diagnostic)):
				blocks[i].diagnostic = collapseSpace(blocks[i].diagnostic + " " + cur.diagnostic)
				if blocks[i].remoteMTA == "" {
					blocks[i].remoteMTA = cur.remoteMTA
				}
				if blocks[i].command == "" {
					blocks[i].command = cur.command
				}
			}
			cur, buf = nil, buf[:0]
			return
		}
		if len(blocks) < MaxRecipients {
			seen[key] = len(blocks)
			blocks = append(blocks, *cur)
		}
		cur, buf = nil, buf[:0]
	}
	lastTalk := ""
	var para []byte      // the paragraph before a recipient line, outside blocks
	var earlier []string // the last paragraphs before para, outside blocks
	reopen := false      // after a heading line, text joins the last block
	paras := 0           // paragraphs read into the current block
	for i := 0; i < len(text); {
		line, next := nextLine(text, i)
		lline := lowerText[i : i+len(line)]
		i = next
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			if cur != nil && len(bytes.TrimSpace(buf)) > 0 {
				// A paragraph without a reply or status code ("Technical
				// details of permanent failure:") is often followed by the
				// one that has it: read on, a few paragraphs at most.
				if hasCode(buf) || paras >= maxBlockParagraphs {
					end()
					sendmail = false
				} else {
					paras++
				}
			}
			if cur == nil && len(para) > 0 {
				earlier = pushParagraph(earlier, para)
			}
			para = para[:0]
			reopen = false
			continue
		}
		if bytes.Contains(lline, []byte("while talking to ")) {
			lastTalk = string(t)
		}
		if isSeparatorLine(t) {
			para = para[:0]
			if !isLabelledSeparator(lline) {
				// "=====", "------- Returned Message -------": ends a
				// block that has text; an address alone reads on.
				if cur != nil && len(bytes.TrimSpace(buf)) == 0 {
					continue
				}
				if cur != nil {
					end()
					sendmail = false
				}
				reopen = false
				continue
			}
			// "----- Non-delivered information -----", "-------server
			// message": a heading inside the report. What follows belongs
			// to the recipient just read.
			if cur == nil && len(blocks) > 0 {
				reopen = true
			}
			continue
		}
		if reopen && cur == nil {
			if _, _, k := recipientLine(t); k == lineNone {
				b := &blocks[len(blocks)-1]
				if len(b.diagnostic) < maxBlockText {
					b.diagnostic = collapseSpace(b.diagnostic + " " + validUTF8(string(t)))
				}
				if b.command == "" {
					b.command = findCommand(string(t))
					if b.command == "" && len(t) <= 8 {
						b.command = bareCommand(t)
					}
				}
				continue
			}
		}
		addr, rest, kind := recipientLine(t)
		if addr != "" {
			if cur != nil && strings.EqualFold(cur.address, addr) {
				// The recipient already being read, named again in its text.
				buf = appendLine(buf, t)
				continue
			}
			end()
			paras = 0
			cur = &textBlock{address: addr, before: collapseSpace(string(para))}
			if cur.before == "" && len(earlier) > 0 {
				cur.before = earlier[len(earlier)-1]
			}
			if len(para) > 0 {
				cur.earlier = pushParagraph(append([]string(nil), earlier...), para)
			} else {
				cur.earlier = append([]string(nil), earlier...)
			}
			buf = buf[:0]
			if lt := bytes.TrimSpace(lline); kind == lineLabelled && (bytes.HasPrefix(lt, []byte("rcpt to:")) || bytes.HasPrefix(lt, []byte("rcpt:"))) {
				cur.command = "RCPT"
			}
			if kind == lineSentence {
				// "Delivery failed 20 attempts: user@example.com": the
				// sentence is the diagnostic.
				rest = t
			} else if bytes.HasPrefix(bytes.TrimSpace(lline), []byte("generated by ")) {
				// Exim: "pipe to |/usr/bin/x" then "generated by user@...".
				if k := bytes.LastIndexByte(para, '\n'); k >= 0 {
					buf = appendLine(buf, para[k+1:])
				} else if len(para) > 0 {
					buf = appendLine(buf, para)
				}
			}
			para = para[:0]
			sendmail = kind == lineTranscript
			if sendmail && lastTalk != "" {
				buf = appendLine(buf, []byte(lastTalk))
			}
			if len(rest) > 0 {
				buf = appendLine(buf, rest)
			}
			continue
		}
		if cur != nil {
			if len(buf) < maxBlockText {
				buf = appendLine(buf, t)
			}
		} else if len(para) < maxBlockText {
			para = appendLine(para, t)
		}
	}
	end()
	return blocks
}

// appendLine adds a line to a diagnostic being built, with a line end
// between (cleanDiagnostic makes it one line).
func appendLine(buf, line []byte) []byte {
	if len(buf) > 0 {
		buf = append(buf, '\n')
	}
	return append(buf, line...)
}

// transcriptReplies keeps, of an SMTP transcript block, the error replies
// of the server (4xx and 5xx lines, without the "<<<" or "Out:" marks) and
// the line that names the host; all of it when there are none.
func transcriptReplies(buf []byte) []byte {
	var out []byte
	for i := 0; i < len(buf); {
		line, next := nextLine(buf, i)
		i = next
		t := bytes.TrimSpace(line)
		for _, mark := range [...]string{"<<<", "Out:"} {
			if bytes.HasPrefix(t, []byte(mark)) {
				t = bytes.TrimSpace(t[len(mark):])
			}
		}
		if len(t) >= 3 && (t[0] == '4' || t[0] == '5') && isReplyCode(string(t[:3])) || bytes.Contains(toLowerPrefix(t, 20), []byte("while talking")) {
			out = appendLine(out, t)
		}
	}
	if len(out) == 0 {
		return buf
	}
	return out
}

// Kinds of recipient line.
const (
	lineNone       = iota
	lineAddress    // "<user@example.com>: ...", "user@example.com ..."
	lineLabelled   // "Recipient: user@example.com"
	lineTranscript // Sendmail's ">>> RCPT To:<user@example.com>", Postfix's "In: RCPT TO:<...>"
	lineSentence   // "Delivery to user@example.com failed"
)

// recipientLabels are lower-case labels before a recipient's address.
var recipientLabels = []string{
	"recipient:", "recipients:", "recipient address:", "failed recipient:", "original recipient:",
	"unknown recipient:", "invalid recipient:", "original-recipient:", "final-recipient:",
	"address:", "e-mail address:", "email address:", "mail address:", "rcpt to:", "rcpt:",
	"failed address:", "undeliverable address:", "bad address:", "recipient(s):", "to address:",
	"destinataire :", "destinataire:", "empfänger:", "адресат:", "получатель:", "generated by ",
}

// recipientLine says whether a trimmed line names a recipient, and returns
// the address and the rest of the line.
func recipientLine(t []byte) (addr string, rest []byte, kind int) {
	if bytes.IndexByte(t, '@') < 0 {
		// Every form names an address.
		return "", nil, lineNone
	}
	// A list item: "* user@example.com", "- user@example.com".
	if len(t) > 2 && (t[0] == '*' || t[0] == '-' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		t = bytes.TrimLeft(t[1:], " \t")
	} else if bytes.HasPrefix(t, []byte("\u2022")) {
		t = bytes.TrimLeft(t[len("\u2022"):], " \t")
	}
	// Sendmail transcript: ">>> RCPT To:<user@example.com>".
	if bytes.HasPrefix(t, []byte(">>> ")) || bytes.HasPrefix(t, []byte("In: ")) {
		c := bytes.TrimLeft(t[4:], " ")
		l := toLower(c)
		if bytes.HasPrefix(l, []byte("rcpt to:")) {
			a := cleanAddress(string(c[8:]))
			if strings.IndexByte(a, '@') > 0 {
				return a, nil, lineTranscript
			}
		}
		return "", nil, lineNone
	}
	if t[0] == '<' {
		gt := bytes.IndexByte(t, '>')
		if gt < 0 {
			return "", nil, lineNone
		}
		a := cleanAddress(string(t[1:gt]))
		if !plausibleAddress(a) {
			return "", nil, lineNone
		}
		rest = bytes.TrimLeft(t[gt+1:], " \t:")
		if len(rest) > 0 && rest[0] == ',' {
			return "", nil, lineNone
		}
		return a, rest, lineAddress
	}
	if lt := toLowerPrefix(t, 40); len(lt) > 0 {
		for _, lab := range recipientLabels {
			if len(lt) >= len(lab) && string(lt[:len(lab)]) == lab {
				v := bytes.TrimSpace(t[len(lab):])
				a, end := findAddress(string(v), 0)
				if a == "" || !plausibleAddress(a) {
					return "", nil, lineNone
				}
				_, v2 := stripType(string(v))
				if !strings.Contains(v2, a) {
					return "", nil, lineNone
				}
				return a, bytes.TrimLeft(v[min(end+1, len(v)):], " \t:>"), lineLabelled
			}
		}
	}
	// An address as the first word of the line.
	sp := bytes.IndexAny(t, " \t")
	first := t
	if sp > 0 {
		first = t[:sp]
	}
	if at := bytes.IndexByte(first, '@'); at > 0 {
		a := string(bytes.Trim(first, "\"'<>:;,."))
		if plausibleAddress(a) && isBareAddress(a) {
			if sp > 0 {
				rest = bytes.TrimLeft(t[sp:], " \t:")
			}
			return a, rest, lineAddress
		}
	}
	// An address after a bounce phrase in a sentence: "Delivery failed 20
	// attempts: user@example.com", "undeliverable to user@example.com".
	if a, rest := sentenceAddress(t); a != "" {
		return a, rest, lineSentence
	}
	return "", nil, lineNone
}

// sentenceMarkers are lower-case words after which a bounce sentence names
// the recipient on the same line.
var sentenceMarkers = []string{
	"undeliverable to ", "could not be delivered to ", "couldn't be delivered to ",
	"delivering your mail to ", "delivering your message to ", "was not delivered to ",
	"wasn't delivered to ", "your message to ", "could not deliver mail to ",
	"delivery to the following recipient failed", "permanent errors: ", "permanent error: ",
	"failed recipient ", "unknown user ", "user unknown ", "no such user ", "invalid recipient ",
	"recipient address rejected", "delivery to ", "delivery failed", "userid: ", "unable to deliver to ",
	"could not deliver to ", "undeliverable: ", "rejected: ", "not delivered: ",
}

// sentenceAddress finds an address after a sentence marker in line t.
func sentenceAddress(t []byte) (string, []byte) {
	if bytes.IndexByte(t, '@') < 0 {
		return "", nil
	}
	l := toLower(t)
	for _, m := range sentenceMarkers {
		k := indexString(l, m)
		if k < 0 {
			continue
		}
		s := string(t[k+len(m):])
		a, end := findAddress(s, 0)
		if a == "" || !plausibleAddress(a) {
			continue
		}
		// The address must come soon after the marker, not at the end of a paragraph.
		if strings.Index(s, a) > 60 {
			continue
		}
		return a, bytes.TrimLeft([]byte(s[min(end, len(s)):]), " \t:>).")
	}
	return "", nil
}

// toLowerPrefix returns the lower-case copy of at most n bytes of t.
func toLowerPrefix(t []byte, n int) []byte {
	if len(t) > n {
		t = t[:n]
	}
	return toLower(t)
}

// plausibleAddress says whether a is an address: a local part, an @ and a
// domain with a dot.
func plausibleAddress(a string) bool {
	at := strings.LastIndexByte(a, '@')
	if at <= 0 || at == len(a)-1 || len(a) > 320 {
		return false
	}
	d := a[at+1:]
	if !strings.Contains(d, ".") && !strings.HasPrefix(d, "[") {
		return false
	}
	return !strings.ContainsAny(a, " \t<>()[],;\"")
}

// isBareAddress says whether a contains only address characters.
func isBareAddress(a string) bool {
	for i := 0; i < len(a); i++ {
		if !isAddrChar(a[i]) && a[i] != '@' {
			return false
		}
	}
	return true
}

// findRemoteHost returns the remote server a diagnostic names: "host
// mx.example.com[192.0.2.1] said", "host mx.example.com [192.0.2.1]:",
// "while talking to mx.example.com.", qmail's "192.0.2.1 does not like
// recipient", "Giving up on 192.0.2.1". "" when it names none.
func findRemoteHost(d string) string {
	l := lowerString(d)
	for _, w := range [...]string{"host ", "while talking to ", "connected to ", "giving up on ", "remote server ", "remote mta "} {
		for from := 0; from < len(l); {
			k := strings.Index(l[from:], w)
			if k < 0 {
				break
			}
			k += from
			from = k + len(w)
			if k > 0 && isAlpha(l[k-1]) {
				continue
			}
			if h := hostToken(d[k+len(w):]); h != "" {
				return h
			}
		}
	}
	// Gmail: "... rejected by the server for the recipient domain
	// example.org by mx.example.org. [192.0.2.1]."
	for from := 0; from < len(l); {
		k := strings.Index(l[from:], " by ")
		if k < 0 {
			break
		}
		k += from
		from = k + 4
		h := hostToken(d[k+4:])
		if h == "" {
			continue
		}
		rest := strings.TrimLeft(d[k+4+len(h):], ".")
		if strings.HasPrefix(rest, " [") || strings.HasPrefix(rest, "[") {
			return h
		}
	}
	// qmail: "192.0.2.1 does not like recipient."
	if k := strings.Index(l, " does not like "); k > 0 {
		s := strings.LastIndexByte(d[:k], ' ')
		if h := hostToken(d[s+1 : k]); h != "" {
			return h
		}
	}
	return ""
}

// hostToken reads a host name or IP address at the start of s: letters,
// digits, dots and dashes with at least one dot; a trailing dot goes.
func hostToken(s string) string {
	n := 0
	for n < len(s) && (isAlpha(s[n]) || isDigit(s[n]) || s[n] == '.' || s[n] == '-' || s[n] == '_') {
		n++
	}
	h := strings.TrimRight(s[:n], ".-")
	if !strings.Contains(h, ".") || len(h) < 4 {
		return ""
	}
	return h
}

// isSeparatorLine says whether a trimmed line is a separator: it starts
// with a run of three or more dashes, equal signs, stars or underscores.
func isSeparatorLine(t []byte) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '=' && c != '*' && c != '_' {
		return false
	}
	return t[1] == c && t[2] == c
}

// isLabelledSeparator says whether a separator line carries a heading that
// is not the start of the original message.
func isLabelledSeparator(lline []byte) bool {
	words := false
	for _, c := range lline {
		if isAlpha(c) || c >= 0x80 {
			words = true
			break
		}
	}
	if !words {
		return false
	}
	for _, w := range [...]string{"original", "returned message", "copy", "header", "unsent", "message follows", "below this line", "attached"} {
		if containsString(lline, w) {
			return false
		}
	}
	return true
}

// bareCommand reads a line that is only an SMTP command name.
func bareCommand(t []byte) string {
	switch string(bytes.ToUpper(bytes.TrimSpace(t))) {
	case "RCPT", "RCPT TO":
		return "RCPT"
	case "MAIL", "MAIL FROM":
		return "MAIL"
	case "DATA":
		return "DATA"
	case "EHLO", "HELO", "STARTTLS", "AUTH":
		return string(bytes.ToUpper(bytes.TrimSpace(t)))
	}
	return ""
}

// maxBlockParagraphs is how many paragraphs a recipient block may run
// over while looking for the server's reply.
const maxBlockParagraphs = 3

// hasCode says whether text holds an SMTP reply code or an enhanced status code.
func hasCode(text []byte) bool {
	s := string(text)
	if c := findStatus(s); c != "" && c[0] != '2' {
		return true
	}
	c := findReplyCode(s)
	return c != "" && c[0] != '2'
}

// generatingServer reads Exchange's "Generating server: host" line.
func generatingServer(text, lowerText []byte) string {
	k := bytes.Index(lowerText, []byte("generating server:"))
	if k < 0 {
		return ""
	}
	line, _ := nextLine(text, k+len("generating server:"))
	return hostToken(strings.TrimSpace(string(line)))
}

// maxEarlier is how many paragraphs above a recipient line are kept to
// look for the server's reply.
const maxEarlier = 3

// pushParagraph adds a paragraph to the list of the last maxEarlier ones.
func pushParagraph(list []string, para []byte) []string {
	list = append(list, collapseSpace(string(para)))
	if len(list) > maxEarlier {
		list = list[len(list)-maxEarlier:]
	}
	return list
}
