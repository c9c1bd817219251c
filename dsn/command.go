package dsn

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// commandMarks map the phrases reports use to name the SMTP command a
// failure happened at to that command, surest first: qmail's "most
// progress was RCPT TO", Postfix's "in reply to RCPT TO command", Exim's
// "after RCPT TO" and "after pipelined RCPT TO", Sendmail's ">>> DATA",
// qmail-remote's "does not like recipient", "but sender was rejected",
// "failed on DATA command" (its source's messages), DragonFly's "did not
// like our final DATA".
var commandMarks = []struct{ mark, command string }{
	{"most progress was rcpt to", "RCPT"}, // qmail-remote's "Remote host said: ... most progress was RCPT TO"
	{"most progress was mail from", "MAIL"},
	{"most progress was data", "DATA"},
	{"in reply to rcpt to command", "RCPT"},
	{"in reply to mail from command", "MAIL"},
	{"in reply to end of data command", "DATA"},
	{"in reply to data command", "DATA"},
	{"in reply to ehlo command", "EHLO"},
	{"in reply to helo command", "HELO"},
	{"in reply to starttls command", "STARTTLS"},
	{"in reply to auth", "AUTH"},
	{"for rcpt to command", "RCPT"}, // GMX and web.de: "SMTP error from remote server for RCPT TO command"
	{"for mail from command", "MAIL"},
	{"for data command", "DATA"},
	{"after pipelined rcpt to", "RCPT"}, // Exim with PIPELINING
	{"after pipelined mail from", "MAIL"},
	{"after pipelined data", "DATA"},
	{"after rcpt to", "RCPT"},
	{"after mail from", "MAIL"},
	{"after end of data", "DATA"},
	{"after data", "DATA"},
	{"after ehlo", "EHLO"},
	{"after helo", "HELO"},
	{"after starttls", "STARTTLS"},
	{"after initial connection", "CONN"},
	{">>> rcpt to", "RCPT"},
	{">>> mail from", "MAIL"},
	{">>> data", "DATA"},
	{">>> ehlo", "EHLO"},
	{">>> helo", "HELO"},
	{"did not like our rcpt to", "RCPT"},
	{"did not like our mail from", "MAIL"},
	{"did not like our final data", "DATA"},
	{"did not like our data", "DATA"},
	{"does not like recipient", "RCPT"},
	{"does not like sender", "MAIL"},
	{"but sender was rejected", "MAIL"}, // qmail-remote: "Connected to x but sender was rejected."
	{"but greeting failed", "CONN"},
	{"but my name was rejected", "HELO"},
	{"failed on data command", "DATA"},
	{"failed after i sent the message", "DATA"},
	{"didn't like the sender", "MAIL"},
	{"didn't like the recipient", "RCPT"},
	{"smtp:rcpt", "RCPT"},
	{"smtp:mail", "MAIL"},
	{"smtp:data", "DATA"},
	{"rcpt to:<", "RCPT"},
	{"rcpt to: <", "RCPT"},
	{"mail from:<", "MAIL"},
	{"mail from: <", "MAIL"},
	{"[rcpt_to]", "RCPT"},
	{"[mail_from]", "MAIL"},
	{"(rcpt)", "RCPT"},
	{"rcpt command", "RCPT"},
	{"mail command", "MAIL"},
	{"data command", "DATA"},
	{"end of data", "DATA"},
}

// findCommand returns the SMTP command a diagnostic says the failure
// happened at (RCPT, MAIL, DATA, EHLO, HELO, STARTTLS, AUTH, or CONN for
// the greeting), "" when it does not say. The answer is that of the first
// mark in commandMarks the text holds, wherever it is; the text is read
// once, trying at each byte only the marks that start with that byte
// (searching for each mark in turn read it dozens of times).
func findCommand(diag string) string {
	// The marks that end at each byte come from an automaton over them
	// (phraseSet), in list order; a step is a load and an add, where
	// trying the marks that may start at each byte cost a dozen.
	best, a := len(commandMarks), commandSet.automaton()
	row := int32(0)
	for e := 0; e < len(diag) && best > 0; e++ {
		if row = a.next[row+int32(a.class[diag[e]])]; row >= 0 {
			continue
		}
		row = ^row
		for _, m := range a.outs[int(row)/a.width] {
			if int(m) >= best {
				break // the list is in mark order: the rest come later still
			}
			if n := len(commandMarks[m].mark); wholeWords(diag, e+1-n, n) {
				best = int(m)
				break
			}
		}
	}
	if best == len(commandMarks) {
		return ""
	}
	return commandMarks[best].command
}

// wholeWords says whether the n bytes of s at i are whole words: a mark
// that starts or ends with a letter or digit is not part of a longer word
// ("after data" is not "after database", "mail command" not "sendmail
// command").
func wholeWords(s string, i, n int) bool {
	if isWordByte(s[i]) && i > 0 && isWordByte(s[i-1]) {
		return false
	}
	end := i + n
	return !(isWordByte(s[end-1]) && end < len(s) && isWordByte(s[end]))
}

// commandSet finds the commandMarks in a text, without regard to case.
var commandSet = func() *phraseSet {
	marks := make([]string, len(commandMarks))
	for i, m := range commandMarks {
		marks[i] = m.mark
	}
	return newFoldPhraseSet(marks...)
}()

// wordIndex finds cheaply which of a list of lower-case ASCII words (two
// bytes or more, at most 256) may start at a given place of a text, without
// regard to case: the words whose first two bytes are there. Most places
// start no word; a bitmap of the first two bytes of the words tells so in
// one lookup, where a list by first byte alone sent every "a" of a text
// through all the words in "after".
//
// The table is built on first use, not at start: a command that reads no
// notice (ndrmilter code) builds none of the package's tables (issue 14).
type wordIndex struct {
	words []string
	once  sync.Once
	t     *wordTable
}

// wordTable is the table of a wordIndex.
type wordTable struct {
	byFirst [256][]uint8         // indexes of the words by first byte, in list order
	pairs   [1 << 16 / 64]uint64 // bit c0<<8|c1 set when a word starts with c0 c1
	first   [256]bool            // the first bytes of the words
}

func newWordIndex(words []string) *wordIndex {
	return &wordIndex{words: words}
}

// table returns the table of the words, built on its first use.
func (x *wordIndex) table() *wordTable {
	x.once.Do(x.build)
	return x.t
}

// build makes the table of x.words.
func (x *wordIndex) build() {
	t := &wordTable{}
	for i, w := range x.words {
		if len(w) < 2 || i > 255 {
			panic("dsn: wordIndex word too short or too many words: " + w)
		}
		t.byFirst[w[0]] = append(t.byFirst[w[0]], uint8(i))
		k := uint16(w[0])<<8 | uint16(w[1])
		t.pairs[k>>6] |= 1 << (k & 63)
		t.first[w[0]] = true
	}
	x.t = t
}

// atSpaced returns the indexes, in list order, of the words that may start
// at s[i] (a superset of those that do), nil when none can, for a text whose
// white space counts as one space: a second byte that is white space is
// taken for a space.
func (x *wordTable) atSpaced(s string, i int) []uint8 {
	if i+1 >= len(s) {
		return nil
	}
	c0, c1 := ascii.Lower(s[i]), ascii.Lower(s[i+1])
	if isSpace(c1) {
		c1 = ' '
	}
	k := uint16(c0)<<8 | uint16(c1)
	if x.pairs[k>>6]&(1<<(k&63)) == 0 {
		return nil
	}
	return x.byFirst[c0]
}

// indexFold is strings.Index(ascii.LowerString(s), sub) for a lower-case sub,
// without the lower-case copy of s: s is lowered a chunk at a time into a
// buffer on the stack and searched there with strings.Index, whose vector
// search reads several bytes an instruction (a loop comparing byte by byte
// made indexFold a twentieth of Parse's instructions, issue 14).
func indexFold(s, sub string) int {
	n := len(sub)
	switch {
	case n == 0:
		return 0
	case n > len(s):
		return -1
	case n > foldChunk/2:
		return indexFoldLoop(s, sub)
	}
	var buf [foldChunk]byte
	for off := 0; ; {
		end := min(len(s), off+foldChunk)
		low := ascii.LowerInto(buf[:0], unsafe.Slice(unsafe.StringData(s[off:]), end-off))
		if k := strings.Index(unsafe.String(unsafe.SliceData(low), len(low)), sub); k >= 0 {
			return off + k
		}
		if end == len(s) {
			return -1
		}
		// The next chunk starts where a match that crosses this one's end
		// would: n-1 bytes back.
		off = end - n + 1
	}
}

// foldChunk is how many bytes of the text indexFold lowers at a time.
const foldChunk = 512

// indexFoldLoop is indexFold byte by byte, for a sub too long for
// indexFold's chunks.
func indexFoldLoop(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if ascii.Lower(s[i]) == sub[0] && ascii.HasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}
