package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
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
	before     [2]int             // the paragraph just above the recipient line, as offsets in the text
	hasBefore  bool               // before is set
	earlier    [maxEarlier][2]int // the paragraphs above it as offsets in the text, nearest last
	nEarlier   int
}

// maxBlockText caps the diagnostic text gathered for one recipient.
const maxBlockText = 2048

// readFreeText reads a report that has no RFC 3464 part. It says whether the
// message was recognised as a report: the header or the text must show a
// bounce, and recipients must be found.
func (p *parser) readFreeText() bool {
	r := p.rep
	ev := p.evidence()
	if ev == 0 {
		return false
	}
	p.loadText()
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
			if k := idx.find(blocks, a); k >= 0 {
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

// enrichBlocks completes recipient records from free-text blocks.
func (p *parser) enrichBlocks(blocks []textBlock) {
	if len(blocks) == 0 {
		return
	}
	idx := indexBlocks(blocks)
	for i := range p.rep.Recipients {
		rc := &p.rep.Recipients[i]
		k := idx.find(blocks, rc.Address)
		if k < 0 {
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

// indexBlocks returns the index of blocks by address.
func indexBlocks(blocks []textBlock) *blockIndex {
	x := &blockIndex{}
	x.update(blocks)
	return x
}

// smallBlocks is how many blocks a blockIndex searches in turn before it
// builds a map: reports name few recipients, and a map cost more to make
// than the searches.
const smallBlocks = 16

// blockIndex finds a block by its address, without regard to ASCII case;
// the first block with the address when there are several.
type blockIndex struct {
	m map[string]int // lower-case address -> index, once there are many blocks
	n int            // blocks in m
}

// update indexes the blocks added since the last call.
func (x *blockIndex) update(blocks []textBlock) {
	if x.m == nil {
		if len(blocks) <= smallBlocks {
			return
		}
		x.m = make(map[string]int, 2*len(blocks))
	}
	for ; x.n < len(blocks); x.n++ {
		a := ascii.LowerString(blocks[x.n].address)
		if _, ok := x.m[a]; !ok {
			x.m[a] = x.n
		}
	}
}

// find returns the index of the block for addr, -1 if none.
func (x *blockIndex) find(blocks []textBlock, addr string) int {
	if x.m != nil {
		if i, ok := x.m[ascii.LowerString(addr)]; ok {
			return i
		}
		return -1
	}
	for i := range blocks {
		if equalFoldASCII(blocks[i].address, addr) {
			return i
		}
	}
	return -1
}

// scanRecipientBlocks finds the recipient blocks of a free-text report
// section: each recipient line and the lines under it, up to the next
// recipient line, or to an empty line once the block has text.
func scanRecipientBlocks(text, lowerText []byte) []textBlock {
	var blocks []textBlock
	var seen blockIndex // the blocks by address
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
			// (Copied only now: most blocks have their own text.)
			if cur.hasBefore {
				d = collapseSpace(string(text[cur.before[0]:cur.before[1]]))
			}
		}
		if !hasCode(d) {
			// "Could not be delivered because of / 550 5.1.1 User unknown /
			// The following recipients were affected: / user@example.com":
			// the server's reply is in a paragraph above.
			for k := cur.nEarlier - 1; k >= 0; k-- {
				if e := text[cur.earlier[k][0]:cur.earlier[k][1]]; hasCode(string(e)) {
					d = collapseSpace(string(e) + " " + d)
					break
				}
			}
		}
		full := d // the host and command may be named in the words around the reply
		d = serverReply(d)
		if len(d) > maxBlockText {
			d = d[:maxBlockText]
		}
		cur.diagnostic = d
		cur.remoteMTA = findRemoteHost(full)
		if c := findCommand(full); c != "" || cur.command == "" {
			cur.command = c
		}
		if cur.command == "" && sendmail {
			cur.command = "RCPT"
		}
		// The same recipient twice (a report in two languages, or a summary
		// and then details for admins): keep the first, unless only the
		// second has the server's reply.
		if i := seen.find(blocks, cur.address); i >= 0 {
			switch {
			case blocks[i].diagnostic == "":
				blocks[i] = *cur
			case cur.diagnostic != "" && !hasCode(blocks[i].diagnostic) && hasCode(cur.diagnostic):
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
			blocks = append(blocks, *cur)
			seen.update(blocks)
		}
		cur, buf = nil, buf[:0]
	}
	lastTalk := ""
	// The paragraph outside blocks before a recipient line, and the ones
	// before it, as [start, end) offsets in text: most are never used, so
	// they are not copied.
	paraStart, paraEnd := -1, -1
	var earlier [maxEarlier][2]int
	nEarlier := 0
	pushPara := func() {
		if paraStart < 0 {
			return
		}
		if nEarlier == maxEarlier {
			copy(earlier[:], earlier[1:])
			nEarlier--
		}
		earlier[nEarlier] = [2]int{paraStart, paraEnd}
		nEarlier++
	}
	reopen := false // after a heading line, text joins the last block
	paras := 0      // paragraphs read into the current block
	for i := 0; i < len(text); {
		lineStart := i
		line, next := ascii.NextLine(text, i)
		i = next
		ts, te := trimASCIISpace(line)
		t := line[ts:te]
		lt := lowerText[lineStart+ts : lineStart+te]
		if len(t) == 0 {
			if cur != nil && len(bytes.TrimSpace(buf)) > 0 {
				// A paragraph without a reply or status code ("Technical
				// details of permanent failure:") is often followed by the
				// one that has it: read on, a few paragraphs at most.
				if hasCode(string(buf)) || paras >= maxBlockParagraphs {
					end()
					sendmail = false
				} else {
					paras++
				}
			}
			if cur == nil {
				pushPara()
			}
			paraStart = -1
			reopen = false
			continue
		}
		if bytes.Contains(lt, []byte("while talking to ")) {
			lastTalk = string(t)
		}
		if isSeparatorLine(t) {
			paraStart = -1
			if !isLabelledSeparator(lt) {
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
			if _, _, k := recipientLine(t, lt); k == lineNone {
				b := &blocks[len(blocks)-1]
				if len(b.diagnostic) < maxBlockText {
					b.diagnostic = collapseSpace(b.diagnostic + " " + textclean.UTF8(string(t)))
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
		addr, rest, kind := recipientLine(t, lt)
		if addr != "" {
			if cur != nil && strings.EqualFold(cur.address, addr) {
				// The recipient already being read, named again in its text.
				buf = appendLine(buf, t)
				continue
			}
			end()
			paras = 0
			var para []byte
			if paraStart >= 0 {
				para = text[paraStart:paraEnd]
			}
			cur = &textBlock{address: addr}
			cur.earlier, cur.nEarlier = earlier, nEarlier
			if paraStart >= 0 {
				cur.before, cur.hasBefore = [2]int{paraStart, paraEnd}, true
				if cur.nEarlier == maxEarlier {
					copy(cur.earlier[:], cur.earlier[1:])
					cur.nEarlier--
				}
				cur.earlier[cur.nEarlier] = [2]int{paraStart, paraEnd}
				cur.nEarlier++
			} else if nEarlier > 0 {
				cur.before, cur.hasBefore = earlier[nEarlier-1], true
			}
			buf = buf[:0]
			if kind == lineLabelled && (bytes.HasPrefix(lt, []byte("rcpt to:")) || bytes.HasPrefix(lt, []byte("rcpt:"))) {
				cur.command = "RCPT"
			}
			if kind == lineSentence {
				// "Delivery failed 20 attempts: user@example.com": the
				// sentence is the diagnostic.
				rest = t
			} else if bytes.HasPrefix(lt, []byte("generated by ")) && len(para) > 0 {
				// Exim: "pipe to |/usr/bin/x" then "generated by user@...".
				last := bytes.TrimSpace(para)
				if k := bytes.LastIndexByte(last, '\n'); k >= 0 {
					last = bytes.TrimSpace(last[k+1:])
				}
				buf = appendLine(buf, last)
			}
			paraStart = -1
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
		} else {
			if paraStart < 0 {
				paraStart = lineStart + ts
			}
			paraEnd = lineStart + te
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
		line, next := ascii.NextLine(buf, i)
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
func hasCode(s string) bool {
	if c := findStatus(s); c != "" && c[0] != '2' {
		return true
	}
	c := findReplyCode(s)
	return c != "" && c[0] != '2'
}

// maxEarlier is how many paragraphs above a recipient line are kept to
// look for the server's reply.
const maxEarlier = 3

// trimASCIISpace returns the bounds of line without its leading and
// trailing ASCII white space.
func trimASCIISpace(line []byte) (start, end int) {
	end = len(line)
	for start < end && isSpace(line[start]) {
		start++
	}
	for end > start && isSpace(line[end-1]) {
		end--
	}
	return start, end
}

// isSpace says whether c is ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// replyIntros are lower-case phrases after which a report quotes the
// remote server's reply, and before which it only says that there was one
// (Gmail: "The error that the other server returned was: 550 ...").
// Each ends in "was:", which serverReply looks for first.
var replyIntros = []string{
	"the error that the other server returned was:",
	"the response from the remote server was:",
	"the response was:",
}

// hasWasColon says whether d holds "was:" in any case: the colons are
// found by a fast byte search, and are few.
func hasWasColon(d string) bool {
	for i := 0; ; {
		k := strings.IndexByte(d[i:], ':')
		if k < 0 {
			return false
		}
		i += k
		if i >= 3 && ascii.HasPrefixFold(d[i-3:], "was:") {
			return true
		}
		i++
	}
}

// serverReply keeps of a diagnostic the remote server's reply when the
// report introduces it with one of replyIntros and it starts with a reply
// code: the boilerplate before it would mislead the rules.
func serverReply(d string) string {
	if !hasWasColon(d) {
		return d // every intro ends in "was:"; most diagnostics have none
	}
	for _, intro := range replyIntros {
		k := indexFold(d, intro)
		if k < 0 {
			continue
		}
		r := strings.TrimSpace(d[k+len(intro):])
		if len(r) >= 3 && isReplyCode(r[:3]) {
			return joinMultiline(r)
		}
	}
	return d
}
