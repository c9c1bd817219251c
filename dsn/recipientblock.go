package dsn

import (
	"bytes"
	"strings"
	"sync"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The recipient blocks of a free-text report: each recipient line and the
// lines under it, which are its diagnostic.

// textBlock is what the free-text scanners read about one recipient.
type textBlock struct {
	address    string
	alias      string // the address it was expanded from ("<a@x> (expanded from <b@y>)"), if the text gives it
	kind       int    // the kind of line that named the recipient (lineAddress...)
	diagnostic string
	remoteMTA  string
	command    string
	shareNext  bool               // named right above the next recipient, with no text of its own: the next one's text is its (Exim groups addresses that failed alike)
	before     [2]int             // the paragraph just above the recipient line, as offsets in the text
	hasBefore  bool               // before is set
	earlier    [maxEarlier][2]int // the paragraphs above it as offsets in the text, nearest last
	nEarlier   int

	// Whether the notice names the address as failed or gives it to
	// write to (see contactaddress.go).
	ownFailure bool // its own text (its line and the lines under it) has a code or failure words
	ownText    bool // it has text of its own, beyond the address
	listed     bool // named in a list of failed recipients: under a list intro, or right under another address
	closing    bool // named in the notice's closing signature or contact block (closingStart)
	contact    bool // introduced by contact wording (contactLine)
}

// maxBlockText caps the diagnostic text gathered for one recipient.
const maxBlockText = 2048

// maxSessionText caps it for a quoted session past maxBlockText: the
// commands and error replies of a long transcript (MDaemon logs its DNS
// lookups and the EHLO capabilities before the RCPT that failed) are still
// gathered, so that transcriptFailure finds the reply that failed.
const maxSessionText = 2 * maxBlockText

// maxBlockParagraphs is how many paragraphs a recipient block may run
// over while looking for the server's reply.
const maxBlockParagraphs = 3

// maxEarlier is how many paragraphs above a recipient line are kept to
// look for the server's reply.
const maxEarlier = 3

// scanRecipientBlocks finds the recipient blocks of a free-text report
// section: each recipient line and the lines under it, up to the next
// recipient line, or to an empty line once the block has text.
func scanRecipientBlocks(sc *scratch, text, lowerText []byte) []textBlock {
	s := blockScanner{sc: sc, text: text, lowerText: lowerText, paraStart: -1, paraEnd: -1, closingAt: closingStart(text, lowerText)}
	bufs := scannerBufPool.Get().(*scannerBufs)
	s.buf, s.pending, s.bufs = bufs.buf[:0], bufs.pending[:0], bufs
	defer func() {
		// Every text taken from them was copied (to the scratch): they go back.
		bufs.cur = textBlock{}
		if cap(s.buf) <= maxPooledScannerBuf && cap(s.pending) <= maxPooledScannerBuf && cap(bufs.lower) <= maxPooledScannerBuf && cap(bufs.replies) <= maxPooledScannerBuf {
			bufs.buf, bufs.pending = s.buf[:0], s.pending[:0]
			scannerBufPool.Put(bufs)
		}
	}()
	for i := 0; i < len(text); {
		start := i
		line, next := ascii.NextLine(text, i)
		i = next
		ts, te := trimASCIISpace(line)
		s.line(start+ts, start+te)
	}
	s.endBlock()
	for i := len(s.blocks) - 2; i >= 0; i-- {
		if b, next := &s.blocks[i], &s.blocks[i+1]; b.shareNext && next.diagnostic != "" {
			b.diagnostic, b.remoteMTA, b.command = next.diagnostic, next.remoteMTA, next.command
			b.ownFailure = b.ownFailure || next.ownFailure
			b.ownText = b.ownText || next.ownText
		}
	}
	return s.blocks
}

// scannerBufs are the byte buffers of a blockScanner, kept from one
// message to the next (issue 14: allocations per message).
type scannerBufs struct {
	buf, pending []byte
	lower        []byte    // buf in lower case, for a search
	replies      []byte    // spare, for transcriptReplies
	cur          textBlock // the block being read (blockScanner.cur); keep copies it out
}

var scannerBufPool = sync.Pool{New: func() any {
	return &scannerBufs{buf: make([]byte, 0, 1024), pending: make([]byte, 0, 512)}
}}

// maxPooledScannerBuf caps the buffers given back to the pool.
const maxPooledScannerBuf = 64 << 10

// blockScanner reads a report section line by line into recipient blocks.
// Between blocks it keeps the paragraphs it passed, as [start, end) offsets
// in the text (most are never used, so they are not copied): the reason is
// often above the recipient line rather than under it.
type blockScanner struct {
	text, lowerText []byte   // lowerText is text in ASCII lower case; neither changes during the Parse
	sc              *scratch // where the strings it builds go
	bufs            *scannerBufs

	blocks []textBlock
	seen   blockIndex // blocks by address

	cur        *textBlock // the block being read, nil between blocks
	buf        []byte     // its text so far
	paras      int        // paragraphs read into it
	transcript bool       // it is a ">>> RCPT To:" transcript block

	reopen   bool   // after a heading line inside the report, text joins the last block
	lastTalk string // the last "while talking to" line, for transcript blocks
	talkHeld bool   // a "while talking to" line under a heading, not yet given to the last block (heldTalk)

	// The session transcript being read (see transcript.go).
	pending     []byte   // the last command that is no RCPT and the replies to it, for the summary lines after them
	pendingCmd  string   // that command, "" when none
	pendingLine int      // the length of pending with the command line alone
	accepted    []string // recipients the server accepted (2xx to their RCPT): a later failure of DATA is theirs
	curOK       bool     // the current transcript block got a 2xx reply
	curErr      bool     // the current transcript block got an error reply or a summary line

	blank bool // the last line was empty

	inTranscript bool // under a "Transcript of session follows" heading, until the next heading: code-less summary lines count

	listIntro int    // lines since a line that introduced a list of recipients ("...could not be delivered...:"), 0 when none
	prevLine  []byte // the last non-empty line, lower case, for the help text check

	closingAt int // where the notice's closing signature or contact block starts (closingStart)

	contactBlock bool // under a contact heading, until an empty line (contactblock.go)

	paraStart, paraEnd int                // the paragraph outside blocks being read; paraStart -1 when none
	earlier            [maxEarlier][2]int // the paragraphs before it, nearest last
	nEarlier           int

	codeMemo     [maxEarlier + 1]paragraphCode // paragraphHasCode's last answers
	nCodeMemo    int
	nextCodeMemo int
}

// line reads one line, text[start:end], trimmed.
func (s *blockScanner) line(start, end int) {
	t, lt := s.text[start:end], s.lowerText[start:end]
	if len(t) == 0 {
		s.emptyLine()
		return
	}
	adjacent := !s.blank // the line right above is not empty
	s.blank = false
	if s.cur != nil && !adjacent && closingParagraph(lt) {
		// The notice's closing words are no part of the recipient's
		// block that reads on over paragraphs without a code.
		s.endBlock()
	}
	prev := s.prevLine
	s.prevLine = lt
	if bytes.Contains(lt, []byte("while talking to ")) {
		// Sendmail: a new SMTP dialogue; the transcript before is done.
		s.lastTalk = view(t[:min(len(t), maxBlockText)])
		s.pending, s.pendingCmd, s.accepted = s.pending[:0], "", s.accepted[:0]
		if s.cur != nil && s.transcript {
			s.endBlock()
			return
		}
	}
	if isSeparatorLine(t) {
		s.separatorLine(lt)
		return
	}
	if side, c := transcriptLine(t, lt); side != notTranscript && s.sessionLine(side, c, t) {
		return
	}
	addr, rest, kind := recipientLine(t, lt)
	if kind == lineNone && s.inTranscript {
		if a, _ := codelessSummaryLine(t); a != "" {
			addr, rest, kind = a, t, lineSummary
		}
	}
	switch {
	case kind == lineAddress && t[0] != '<' && helpIntro(prev):
		// "...for example" then "jane.doe@example.org": help text.
		kind = lineNone
	case kind == lineNone && s.listIntro > 0 && isLocalPart(view(t)):
		// A local part alone in a list of recipients (AOL's screen names).
		addr, kind = view(t), lineLocal
	case kind == lineNone && s.listIntro > 0:
		// A display name and the address in a list of recipients
		// ("\"jdoe\" <jdoe@example.net>", SMTPSVC).
		if a := displayAddress(t); a != "" {
			addr, kind = a, lineAddress
		}
	}
	if kind != lineLocal && kind != lineAddress && kind != lineLabelled {
		s.listIntro = 0
	}
	if kind == lineNone && len(t) > 1 && t[len(t)-1] == ':' && isListIntro(lt) {
		s.listIntro = 1
	}
	if kind == lineNone {
		s.contactBlock = contactHeading(t, lt) || s.contactBlock && inContactBlock(lt)
	}
	switch {
	case kind == lineNone && s.reopen && s.cur == nil && bytes.Contains(lt, []byte("while talking to ")):
		s.talkHeld = true // whose it is, the next line says (heldTalk)
	case kind == lineNone && s.reopen && s.cur == nil:
		s.heldTalk(true)
		s.headingText(t)
	case kind != lineNone:
		s.talkHeld = false // a transcript's recipient line takes the host line itself (lastTalk)
		listed := s.listIntro > 0 || kind == lineLocal
		s.recipient(t, lt, addr, rest, kind)
		if b := s.cur; b != nil && b.address == addr && len(s.blocks) < MaxRecipients {
			b.listed = b.listed || listed
			b.closing = start >= s.closingAt
			b.contact = contactLine(lt, prev, adjacent, addr, rest) || s.contactBlock
		}
	default:
		s.textLine(start, end)
	}
}

// emptyLine ends a paragraph. A paragraph of a block without a reply or
// status code ("Technical details of permanent failure:") is often followed
// by the one that has it: the block reads on, a few paragraphs at most.
func (s *blockScanner) emptyLine() {
	if s.listIntro > 0 {
		// One empty line may come between the intro and its list.
		if s.listIntro++; s.listIntro > 2 {
			s.listIntro = 0
		}
	}
	if s.blank {
		// A run of empty lines ends one paragraph: the text of an HTML
		// notice (a table row per label) leaves several between rows.
		return
	}
	s.blank = true
	s.contactBlock = false
	s.heldTalk(s.reopen && s.cur == nil)
	if s.cur != nil && len(bytes.TrimSpace(s.buf)) > 0 {
		if code := hasCodeBytes(s.buf); code || s.paras >= maxBlockParagraphs {
			s.endBlockKnown(code)
		} else {
			s.paras++
		}
	}
	if s.cur == nil {
		s.pushParagraph()
	}
	s.paraStart = -1
	s.reopen = false
}

// separatorLine reads a line of dashes, equal signs... (lt in lower case).
// A bare one ("=====", "------- Returned Message -------") ends a block
// that has text; an address alone reads on. A labelled one ("-----
// Non-delivered information -----", "-------server message") is a heading
// inside the report: what follows belongs to the recipient just read.
func (s *blockScanner) separatorLine(lt []byte) {
	s.paraStart = -1
	s.heldTalk(s.reopen && s.cur == nil)
	s.inTranscript = containsString(lt, "transcript of session")
	if isLabelledSeparator(lt) {
		if s.cur == nil && len(s.blocks) > 0 {
			s.reopen = true
		}
		return
	}
	if s.cur != nil && len(bytes.TrimSpace(s.buf)) == 0 && !hasLetter(lt) {
		// A bare rule under an address ("user@example.com" then
		// "======"): its text is still to come. A separator that names
		// the copy of the message ends it all the same.
		return
	}
	s.endBlock()
	s.reopen = false
}

// expandedFrom returns the address a block says its recipient was
// expanded from (Postfix's "<a@example.net> (expanded from
// <b@example.org>)", Sendmail's "(expanded from: <b@example.org>)", Exim's
// "(generated from b@example.org)" and "(ultimately generated from
// b@example.org)" of deliver.c's print_address_information), "" when it
// says none.
func expandedFrom(full string) string {
	// Where each of the two marks first ends, in one pass for both.
	var end [2]int
	ac, row := expansionSet.automaton(), int32(0)
	for e := 0; e < len(full) && end[0] == 0; e++ {
		if row = ac.next[row+int32(ac.class[full[e]])]; row < 0 {
			row = ^row
			for _, m := range ac.outs[int(row)/ac.width] {
				if end[m] == 0 {
					end[m] = e + 1
				}
			}
		}
	}
	var k, n int
	switch {
	case end[0] > 0:
		k, n = end[0]-len(expansionMarks[0]), len(expansionMarks[0])
	case end[1] > 0:
		k, n = end[1]-len(expansionMarks[1]), len(expansionMarks[1])
	default:
		return ""
	}
	rest := full[k+n:]
	// The address follows at once and the parenthesis closes after it; a
	// window of maxSenderGap bytes would cut a long domain.
	if end := strings.IndexAny(rest, ")\n"); end >= 0 {
		rest = rest[:end]
	}
	a, _ := findAddress(rest[:min(len(rest), maxExpandedFrom)], 0)
	if !plausibleAddress(a) {
		return ""
	}
	return a
}

// expansionMarks are the words before the address a recipient was
// expanded from, surest first; expansionSet finds them without regard to
// case.
var (
	expansionMarks = [...]string{"expanded from", "generated from"}
	expansionSet   = newFoldPhraseSet(expansionMarks[:]...)
)

// maxExpandedFrom caps the text after "expanded from" read for the address.
const maxExpandedFrom = 320

// hasLetter says whether b holds an ASCII letter or a byte of a
// multi-byte character.
func hasLetter(b []byte) bool {
	for _, c := range b {
		if ascii.IsAlpha(c) || c >= 0x80 {
			return true
		}
	}
	return false
}

// heldTalk ends a held "while talking to" line (talkHeld): it is the last
// block's text when give says so, and dropped otherwise.
func (s *blockScanner) heldTalk(give bool) {
	if !s.talkHeld {
		return
	}
	s.talkHeld = false
	if give && len(s.blocks) > 0 && s.lastTalk != "" {
		s.headingText([]byte(s.lastTalk))
	}
}

// headingText adds a line under a heading to the last block.
func (s *blockScanner) headingText(t []byte) {
	b := &s.blocks[len(s.blocks)-1]
	if len(b.diagnostic) < maxBlockText || (len(b.diagnostic) < maxSessionText && sessionFailureLine(t)) {
		b.diagnostic = collapseSpace(s.sc, s.sc.concat(b.diagnostic, " ", textclean.UTF8(view(t))))
	}
	if b.command == "" {
		b.command = findCommand(view(t)) // one of commandMarks: nothing of t is kept
		if b.command == "" && len(t) <= 8 {
			b.command = bareCommand(t)
		}
	}
}

// recipient reads a recipient line (t, lt in lower case) naming addr, with
// rest the text after the address: it starts a block, unless it names the
// recipient already being read.
func (s *blockScanner) recipient(t, lt []byte, addr string, rest []byte, kind int) {
	if s.cur != nil && sameRecipient(s.cur.address, addr) {
		if len(s.buf) < maxBlockText || (len(s.buf) < maxSessionText && sessionFailureLine(t)) {
			s.buf = appendLine(s.buf, t)
		}
		if kind == lineSummary {
			s.curErr = true
		}
		return
	}
	listed := false
	if s.cur != nil && len(bytes.TrimSpace(s.buf)) == 0 && s.paras == 0 && kind == s.cur.kind && kind == lineAddress {
		// "  a@example.net" right above "  b@example.net" and its
		// error: Exim lists the addresses that failed alike together.
		s.cur.shareNext = true
		s.cur.listed, listed = true, true
	}
	s.endBlock()
	if kind == lineTranscript {
		// A new RCPT: the command before it is done with.
		s.pending, s.pendingCmd = s.pending[:0], ""
	}
	s.paras = 0
	var para []byte
	s.bufs.cur = textBlock{address: addr, kind: kind, earlier: s.earlier, nEarlier: s.nEarlier, listed: listed}
	cur := &s.bufs.cur
	if s.paraStart >= 0 {
		para = s.text[s.paraStart:s.paraEnd]
		cur.before, cur.hasBefore = [2]int{s.paraStart, s.paraEnd}, true
		if cur.nEarlier == maxEarlier {
			copy(cur.earlier[:], cur.earlier[1:])
			cur.nEarlier--
		}
		cur.earlier[cur.nEarlier] = [2]int{s.paraStart, s.paraEnd}
		cur.nEarlier++
	} else if s.nEarlier > 0 {
		cur.before, cur.hasBefore = s.earlier[s.nEarlier-1], true
	}
	s.cur = cur
	s.buf = s.buf[:0]
	if kind == lineLabelled && (bytes.HasPrefix(lt, []byte("rcpt to:")) || bytes.HasPrefix(lt, []byte("rcpt:"))) {
		cur.command = "RCPT"
	}
	if kind == lineSentence || (kind == lineLabelled && causeLabelled(lt)) {
		// "Delivery failed 20 attempts: user@example.com", "Unknown
		// user: user@example.com": the sentence is the diagnostic.
		rest = t
	} else if bytes.HasPrefix(lt, []byte("generated by ")) && len(para) > 0 {
		// Exim: "pipe to |/usr/bin/x" then "generated by user@...".
		last := bytes.TrimSpace(para)
		if k := bytes.LastIndexByte(last, '\n'); k >= 0 {
			last = bytes.TrimSpace(last[k+1:])
		}
		s.buf = appendLine(s.buf, last)
	}
	s.paraStart = -1
	s.transcript = kind == lineTranscript || kind == lineSummary
	s.curOK, s.curErr = false, kind == lineSummary
	if s.transcript && s.lastTalk != "" {
		s.buf = appendLine(s.buf, []byte(s.lastTalk))
	}
	switch kind {
	case lineTranscript:
		cur.command = "RCPT"
	case lineSummary:
		// Sendmail's line for a recipient after the command that failed
		// for it (">>> DATA", "<<< 552 ..."): that command and its reply
		// are its own, and those of the summary lines that follow. A
		// reply that names the recipient is the reply to its RCPT, sent
		// ahead of DATA with PIPELINING (RFC 2920): Sendmail shows only
		// the last command it sent.
		if len(s.pending) > 0 {
			s.buf = appendLine(s.buf, s.pending)
			cur.command = s.pendingCmd
			if namesRecipient(s.pending, addr) {
				cur.command = "RCPT"
			}
		}
	}
	if len(rest) > 0 {
		s.buf = appendLine(s.buf, rest)
	}
}

// sessionLine reads a line of a session transcript (side, c the text after
// its mark, t the line) that is no RCPT command. It says whether it took
// the line; a line it does not take is read as any other.
func (s *blockScanner) sessionLine(side transcriptSide, c, t []byte) bool {
	if s.cur == nil && s.reopen && len(s.blocks) > 0 {
		// Under a heading ("Transcript of session follows") after a list
		// of failed addresses: the transcript is that of the last one,
		// unless it sends a RCPT for another address. Sendmail lists
		// every failed address ("The following addresses had permanent
		// fatal errors", savemail.c errbody), then quotes the session
		// with each host in turn ("... while talking to HOST.:",
		// usersmtp.c): each RCPT's reply is that address's own, and the
		// last address of the list gets no other's.
		if a := rcptAddress(c); side == clientSide && a != "" && !sameRecipient(a, s.blocks[len(s.blocks)-1].address) {
			s.reopen, s.talkHeld = false, false
		} else {
			s.heldTalk(true)
			s.headingText(t)
		}
	}
	if s.cur != nil && !s.transcript {
		// Courier quotes the transcript under the recipient's line: it is
		// that recipient's, read as its text.
		return false
	}
	switch side {
	case clientSide:
		if rcptAddress(c) != "" {
			return false // a recipient line
		}
		cmd := clientCommand(c)
		if cmd == "" {
			return false
		}
		if s.cur != nil {
			s.endBlock()
		}
		if cmd == "MAIL" || cmd == "EHLO" {
			s.accepted = s.accepted[:0] // a new transaction
		}
		s.pending = appendLine(s.pending[:0], t[:min(len(t), maxBlockText)])
		s.pendingCmd, s.pendingLine = cmd, len(s.pending)
		return true
	case serverSide:
		class := replyClass(c)
		if s.cur != nil && s.cur.kind == lineSummary {
			// A reply after a summary line is the next recipient's
			// (Sendmail prints each reply, then its summary line).
			s.endBlock()
			s.pending = s.pending[:s.pendingLine]
		}
		if s.cur != nil {
			if len(s.buf) < maxBlockText {
				s.buf = appendLine(s.buf, t)
			}
			switch class {
			case '2':
				s.curOK = true
			case '4', '5':
				s.curErr = true
			}
			return true
		}
		if s.pendingCmd == "" {
			return false
		}
		if len(s.pending) < maxBlockText {
			s.pending = appendLine(s.pending, t)
		}
		if class == '4' || class == '5' {
			s.failAccepted()
		}
		return true
	}
	return false
}

// namesRecipient says whether a transcript's text names the recipient
// addr (an address, or a local part alone) as a whole word.
func namesRecipient(text []byte, addr string) bool {
	if addr == "" {
		return false
	}
	l := ascii.ToLower(text)
	a := ascii.LowerString(addr)
	for from := 0; from < len(l); {
		k := indexString(l[from:], a)
		if k < 0 {
			return false
		}
		k += from
		from = k + 1
		end := k + len(a)
		if (k == 0 || !isAddrChar(l[k-1])) && (end == len(l) || !isAddrChar(l[end]) || l[end] == '.' && (end+1 == len(l) || l[end+1] == '.')) {
			return true
		}
	}
	return false
}

// failAccepted gives the error reply to the command in pending to every
// recipient the server had accepted: after their RCPT, the message failed
// (at DATA, or at the end of the data) for all of them.
func (s *blockScanner) failAccepted() {
	for _, a := range s.accepted {
		s.endBlock()
		s.bufs.cur = textBlock{address: a, kind: lineTranscript, command: s.pendingCmd}
		s.cur = &s.bufs.cur
		s.buf = appendLine(s.buf[:0], s.pending)
		s.transcript, s.curOK, s.curErr = true, false, true
		s.endBlock()
	}
	s.accepted = s.accepted[:0]
}

// sameRecipient says whether two addresses of a report name the same
// recipient: equal without regard to ASCII case, or one a local part alone
// and the other an address with that local part.
func sameRecipient(a, b string) bool {
	if equalFoldASCII(a, b) {
		return true
	}
	at, bt := strings.LastIndexByte(a, '@'), strings.LastIndexByte(b, '@')
	switch {
	case at < 0 && bt > 0:
		return equalFoldASCII(a, b[:bt])
	case bt < 0 && at > 0:
		return equalFoldASCII(b, a[:at])
	}
	return false
}

// textLine reads any other line, text[start:end]: the text of the block
// being read, or of the paragraph between blocks.
func (s *blockScanner) textLine(start, end int) {
	if s.cur != nil {
		if len(s.buf) < maxBlockText || (len(s.buf) < maxSessionText && sessionFailureLine(s.text[start:end])) {
			s.buf = appendLine(s.buf, s.text[start:end])
		}
		return
	}
	if s.paraStart < 0 {
		s.paraStart = start
	}
	s.paraEnd = end
}

// pushParagraph keeps the paragraph just read among the earlier ones.
func (s *blockScanner) pushParagraph() {
	if s.paraStart < 0 {
		return
	}
	if s.nEarlier == maxEarlier {
		copy(s.earlier[:], s.earlier[1:])
		s.nEarlier--
	}
	s.earlier[s.nEarlier] = [2]int{s.paraStart, s.paraEnd}
	s.nEarlier++
}

// endBlock finishes the block being read, if any: its diagnostic, remote
// host and command, and keeps it.
func (s *blockScanner) endBlock() {
	s.finishBlock(codeUnknown)
}

// endBlockKnown is endBlock when whether the block's text has a code
// (hasCodeBytes of it) is known already: the text is not searched again.
func (s *blockScanner) endBlockKnown(code bool) {
	if code {
		s.finishBlock(codeFound)
	} else {
		s.finishBlock(codeNone)
	}
}

// What is known of whether a block's text has a code.
const (
	codeUnknown = iota
	codeNone
	codeFound
)

// finishBlock is endBlock; code says what is known of hasCodeBytes(s.buf).
func (s *blockScanner) finishBlock(code int) {
	cur := s.cur
	if cur == nil {
		return
	}
	transcript := s.transcript
	s.cur, s.transcript = nil, false
	if transcript && s.curOK && !s.curErr {
		// The server accepted this recipient: it has no failure of its
		// own, and a later one of DATA is its (failAccepted).
		if len(s.accepted) < MaxRecipients {
			s.accepted = append(s.accepted, cur.address)
		}
		s.buf = s.buf[:0]
		return
	}
	if transcript {
		// Into the spare buffer, which then swaps with buf.
		if out := transcriptReplies(s.bufs.replies[:0], s.buf); out != nil {
			s.bufs.replies, s.buf = s.buf[:0], out
			code = codeUnknown // another text
		}
	}
	cur.ownText = len(bytes.TrimSpace(s.buf)) > 0
	if code == codeUnknown && cur.ownText {
		code = codeNone
		if hasCodeBytes(s.buf) {
			code = codeFound
		}
	}
	if cur.ownText && code == codeNone {
		s.bufs.lower = ascii.LowerInto(s.bufs.lower, s.buf)
		cur.ownFailure = failurePhrases.in(s.bufs.lower)
	} else {
		cur.ownFailure = cur.ownText
	}
	full := s.blockText(cur) // the host and command may be named in the words around the reply
	d := serverReply(s.sc, full)
	if !transcript {
		// A security gateway's labelled lines: its cause and the
		// remote reply, without the words around them.
		if ld, ok := labelledDiagnostic(s.sc, s.buf); ok {
			d = ld
		}
		// A Japanese notice whose only cause is its opening sentence
		// (foreignlabels.go).
		d = s.withJapaneseOpening(cur, d)
	}
	cur.diagnostic = capDiagnostic(d)
	cur.remoteMTA = findRemoteHost(full)
	cur.alias = expandedFrom(full)
	if !transcript || cur.command == "" {
		// A transcript shows the command; words name it otherwise.
		if c := findCommand(full); c != "" || cur.command == "" {
			cur.command = c
		}
	}
	s.keep(cur)
	s.buf = s.buf[:0]
}

// blockText is the text of a block made one line: its own, else the
// paragraph above it (Lotus Notes and others give the reason above the
// address); with the nearest paragraph above that has a code in front when
// it has none ("Could not be delivered because of / 550 5.1.1 User unknown
// / The following recipients were affected: / user@example.com").
func (s *blockScanner) blockText(b *textBlock) string {
	// s.buf is reused for the next block: a copy.
	d := cleanDiagnostic(s.sc, s.sc.add(s.buf))
	if d == "" && b.hasBefore {
		d = collapseSpace(s.sc, view(s.text[b.before[0]:b.before[1]]))
	}
	if !hasCode(d) {
		for k := b.nEarlier - 1; k >= 0; k-- {
			if s.paragraphHasCode(b.earlier[k]) {
				e := s.text[b.earlier[k][0]:b.earlier[k][1]]
				return collapseSpace(s.sc, s.sc.concat(view(e), " ", d))
			}
		}
	}
	return d
}

// paragraphHasCode is hasCodeBytes of the paragraph at span in the text.
// The paragraphs above a block are those above the next ones too: the
// answers for the last few are kept.
func (s *blockScanner) paragraphHasCode(span [2]int) bool {
	for i := 0; i < s.nCodeMemo; i++ {
		if m := &s.codeMemo[i]; m.span == span {
			return m.code
		}
	}
	code := hasCodeBytes(s.text[span[0]:span[1]])
	s.codeMemo[s.nextCodeMemo] = paragraphCode{span: span, code: code}
	s.nextCodeMemo = (s.nextCodeMemo + 1) % len(s.codeMemo)
	s.nCodeMemo = min(s.nCodeMemo+1, len(s.codeMemo))
	return code
}

// paragraphCode is a paragraph of the text (its span) and whether it has
// a code.
type paragraphCode struct {
	span [2]int
	code bool
}

// keep adds a finished block. The same recipient twice (a report in two
// languages, or a summary and then details for admins): the first is kept,
// unless only the second has the server's reply.
func (s *blockScanner) keep(b *textBlock) {
	i := s.seen.find(s.blocks, b.address)
	if i < 0 {
		if len(s.blocks) < MaxRecipients {
			if s.blocks == nil {
				s.blocks = s.sc.textBlocks(minBlocks)
			}
			s.blocks = append(s.blocks, *b)
			s.seen.update(s.blocks)
		}
		return
	}
	first := &s.blocks[i]
	switch {
	case first.diagnostic == "":
		*first = *b
	case b.diagnostic != "" && !hasCode(first.diagnostic) && hasCode(b.diagnostic):
		first.diagnostic = collapseSpace(s.sc, s.sc.concat(first.diagnostic, " ", b.diagnostic))
	}
	// The second block may be the transcript that shows the host and the
	// command of the first (Sendmail's list of failed addresses, then its
	// transcript of session).
	if first.remoteMTA == "" {
		first.remoteMTA = b.remoteMTA
	}
	if first.command == "" || b.kind == lineTranscript && b.command != "" {
		// A transcript shows the command the error answered; the words
		// of a list's line only suggest one (the EHLO of "while talking
		// to" is no failed command).
		first.command = b.command
	}
	if !plausibleAddress(first.address) && plausibleAddress(b.address) {
		first.address = b.address // a local part alone, then the whole address
	}
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
// of the server (4xx and 5xx lines, without their marks and time stamps) and
// the line that names the host; all of it when there are none.
// They are appended to out (empty), which is returned; nil when all of buf
// is kept.
func transcriptReplies(out, buf []byte) []byte {
	var room [256]byte
	lower := room[:0] // each line in lower case, in one array
	for i := 0; i < len(buf); {
		line, next := ascii.NextLine(buf, i)
		i = next
		t := bytes.TrimSpace(line)
		lower = ascii.LowerInto(lower, t)
		if side, r := transcriptLine(t, lower); side == serverSide {
			t = r
		}
		if len(t) >= 3 && (t[0] == '4' || t[0] == '5') && smtpcode.IsReply(string(t[:3])) || indexFoldBytes(t[:min(len(t), 20)], "while talking") >= 0 {
			out = appendLine(out, t)
		}
	}
	if len(out) == 0 {
		return nil
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

// closingParagraphs are lower-case openings of the paragraphs that close a
// notice after its list of recipients: Exim's delay warning
// (warn_message_file's default text, deliver.c: "No action is required on
// your part. Delivery attempts will continue for some time...").
var closingParagraphs = [...][]byte{[]byte("no action is required on your part")}

// closingParagraph says whether a line (lower case) opens a notice's
// closing paragraph.
func closingParagraph(lt []byte) bool {
	for _, c := range closingParagraphs {
		if bytes.HasPrefix(lt, c) {
			return true
		}
	}
	return false
}
