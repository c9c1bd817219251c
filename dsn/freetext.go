package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Free-text reports: bounces without an RFC 3464 part, as qmail, Exim,
// Exchange 2003, Gmail, Yahoo and many appliances send them. The scanner is
// generic: it finds the part of the text before the copy of the original
// message, the recipient lines in it ("<user@example.com>:", an address
// alone on a line, "Recipient: user@example.com", Sendmail's ">>> RCPT
// To:<user@example.com>"), and takes the lines under each as its diagnostic.

// readFreeText reads a report that has no RFC 3464 part. It says whether the
// message was recognised as a report: the header or the text must show a
// bounce, and recipients must be found.
func (p *parser) readFreeText() bool {
	r := p.rep
	ev := p.evidence()
	header := p.autoReplyHeader()
	if header && ev < 2 {
		// Marked an auto-reply, yet autoReplied found a failure stated
		// in its text (failureNotice) and no challenge: a failure notice
		// that is sure of itself, whatever its sender and subject.
		p.loadText()
		if words := p.noticeWords(); failureNotice(words) && !challengeText(words) {
			ev = 2
		}
	}
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
		msg, rcpts, _ := parseDeliveryStatus(section[start:], p.sc)
		if len(rcpts) > 0 {
			r.Recipients = rcpts
			r.ReportingMTA = msg.reportingMTA
			r.Format = "rfc3464-text"
			p.enrichBlocks(scanRecipientBlocks(p.sc, section[:start], lowerSection[:start]))
			p.finish(p.fallbackAction)
			return true
		}
	}

	blocks := p.settleBlocks(scanRecipientBlocks(p.sc, section, lowerSection))
	failed := failedRecipientsHeader(p.hdr, p.sc)
	switch {
	case len(failed) > 0:
		// X-Failed-Recipients (Exim, Google) names them for sure.
		idx := indexBlocks(blocks)
		for _, a := range failed {
			rc := Recipient{Address: a}
			if k := idx.find(blocks, a); k >= 0 {
				b := &blocks[k]
				rc.Diagnostic, rc.RemoteMTA, rc.Command = b.diagnostic, b.remoteMTA, b.command
				rc.addAddress(b.alias)
			}
			if rc.Diagnostic == "" {
				rc.Diagnostic = noticeSummary(p.sc, section)
			}
			r.Recipients = p.sc.addRecipient(r.Recipients, rc)
		}
	case len(blocks) > 0:
		for _, b := range blocks {
			if len(r.Recipients) >= MaxRecipients {
				r.Truncated = true
				break
			}
			rc := Recipient{Address: b.address, Diagnostic: b.diagnostic, RemoteMTA: b.remoteMTA, Command: b.command}
			rc.addAddress(b.alias)
			r.Recipients = p.sc.addRecipient(r.Recipients, rc)
		}
	default:
		if ev < 2 {
			return false
		}
		// A bounce that names its recipient only in a sentence
		// ("could not be delivered to <user@example.com>"), or not at all:
		// then the one address the returned message was sent to, or none.
		a := p.sentenceRecipient(section, lowerSection)
		if a == "" && p.readEmbedded() {
			// A report forwarded, pasted or attached inside this one
			// names it.
			return true
		}
		if a == "" {
			a = p.soleOriginalRecipient()
		}
		if a == "" {
			// MDaemon's transcript of a session refused before RCPT.
			if a = transcriptRecipient(view(section)); a != "" && p.isSender(a) {
				a = ""
			}
		}
		if words := p.noticeWords(); a == "" && !failureStated(words) && !(header && failureNotice(words)) {
			return false
		}
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: a, Diagnostic: noticeSummary(p.sc, section)})
	}
	p.applyReasonSection(section, lowerSection)
	r.Format = textFamily(lowerSection)
	p.finish(p.fallbackAction)
	return true
}

// settleBlocks decides the addresses of the recipient blocks of a
// free-text report: a local part alone is completed (completeLocal) or
// left unnamed (""); an address that only a sentence names is dropped when
// it is the sender's; a block that names a recipient already named goes;
// an address given to write to goes when another is named as failed
// (setAside).
// A local part alone in a list is kept unnamed only when no block names an
// address: it may be any word.
func (p *parser) settleBlocks(blocks []textBlock) []textBlock {
	named := false
	for i := range blocks {
		b := &blocks[i]
		switch {
		case plausibleAddress(b.address):
			if b.kind == lineSentence && p.isSender(b.address) {
				b.address, b.kind = "", -1 // dropped below
			}
		default:
			b.address = p.completeLocal(b.address)
			if b.address == "" && b.kind == lineLocal {
				b.kind = -1 // dropped below unless nothing else is named
			}
		}
		if b.address != "" {
			named = true
		}
	}
	out := blocks[:0]
	idx := &blockIndex{}
	for i := range blocks {
		b := blocks[i]
		switch {
		case b.kind == -1 && (named || b.address == "" && b.diagnostic == ""):
			continue
		case b.address != "" && idx.find(out, b.address) >= 0:
			continue // named twice: a local part, then the address
		}
		out = append(out, b)
		idx.update(out)
	}
	return p.setAside(out)
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
		rc.addAddress(b.alias)
	}
}

// addAddress adds an address the report gives for the recipient: its
// OriginalRecipient when it has none, else one of its Aliases; nothing when
// a is empty or already one of its addresses.
func (rc *Recipient) addAddress(a string) {
	if a == "" || equalFoldASCII(a, rc.Address) || equalFoldASCII(a, rc.OriginalRecipient) {
		return
	}
	for _, x := range rc.Aliases {
		if equalFoldASCII(a, x) {
			return
		}
	}
	if rc.OriginalRecipient == "" {
		rc.OriginalRecipient = a
		return
	}
	if len(rc.Aliases) < maxAliases {
		rc.Aliases = append(rc.Aliases, a)
	}
}

// maxAliases caps the Aliases of one recipient.
const maxAliases = 8

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

// hasCode says whether text holds an SMTP reply code or an enhanced status code.
func hasCode(s string) bool {
	// The codes it counts start with 4 or 5 (of 2, 4 and 5, the first
	// digits smtpcode reads): a text with neither digit has none, which
	// two byte searches tell faster than the scanners' byte-by-byte
	// reading (issue 14: hasCode was 8% of Parse's instructions).
	if strings.IndexByte(s, '5') < 0 && strings.IndexByte(s, '4') < 0 {
		return false
	}
	if c := smtpcode.FindStatus(s); c != "" && c[0] != '2' {
		return true
	}
	c := smtpcode.FindReply(s)
	return c != "" && c[0] != '2'
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
func serverReply(sc *scratch, d string) string {
	if !hasWasColon(d) {
		return d // every intro ends in "was:"; most diagnostics have none
	}
	for _, intro := range replyIntros {
		k := indexFold(d, intro)
		if k < 0 {
			continue
		}
		r := strings.TrimSpace(d[k+len(intro):])
		if len(r) >= 3 && smtpcode.IsReply(r[:3]) {
			return joinMultiline(sc, r)
		}
	}
	return d
}
