package dsn

import (
	"strings"
	"unsafe"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The strings of a Report, while Parse reads, are often views of memory
// that is not the Report's: the message itself, a decoded part, the
// arena's lower-case text or a scanner's buffer (see view). detach copies
// them, at the end of Parse, into one array that the Report owns, most
// often in the same allocation as the Report itself (newReportBlock): one
// allocation per Report instead of one per string, and a Report that
// outlives its input and the arena (TestReportOutlivesInput).

// view returns b as a string without copying it. The string is valid only
// while b's memory is not changed: for text that ends in the Report, only
// during Parse, since detach copies it out.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// reportBlock is a Report with room for one recipient and a few strings
// of its lists: what most reports keep, in one allocation.
type reportBlock struct {
	r     Report
	rec   [1]Recipient
	lists [4]string
}

// reportBlockWith is a reportBlock with room for the bytes of the Report's
// strings after it: the block and the strings in one allocation (issue
// 14). Each size of text makes the allocation one of the runtime's size
// classes (runtime/sizeclasses.go), so that no room is lost to rounding.
type reportBlockWith[T any] struct {
	reportBlock
	text T
}

// The sizes of reportBlockWith: the size classes from 1 to 4 kB, less
// the header the runtime puts before an object with pointers larger than
// 512 bytes (mallocHeaderSize, runtime/mbitmap.go), so that a block holds
// its text in no more room than two allocations would take.
const (
	mallocHeader = 8

	reportText1024 = 1024 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText1152 = 1152 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText1280 = 1280 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText1408 = 1408 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText1536 = 1536 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText1792 = 1792 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText2048 = 2048 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText2304 = 2304 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText2688 = 2688 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText3072 = 3072 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText3200 = 3200 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText3456 = 3456 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
	reportText4096 = 4096 - mallocHeader - int(unsafe.Sizeof(reportBlock{}))
)

// newReportBlock returns a reportBlock and an empty store with room for n
// bytes of strings, in one allocation when n fits one of the sizes of
// reportBlockWith (most reports hold 0.5 to 3 kB of text), in two
// otherwise.
func newReportBlock(n int) (*reportBlock, stringStore) {
	switch {
	case n == 0:
		return new(reportBlock), nil
	case n <= reportText1024:
		return blockWith[[reportText1024]byte](n)
	case n <= reportText1152:
		return blockWith[[reportText1152]byte](n)
	case n <= reportText1280:
		return blockWith[[reportText1280]byte](n)
	case n <= reportText1408:
		return blockWith[[reportText1408]byte](n)
	case n <= reportText1536:
		return blockWith[[reportText1536]byte](n)
	case n <= reportText1792:
		return blockWith[[reportText1792]byte](n)
	case n <= reportText2048:
		return blockWith[[reportText2048]byte](n)
	case n <= reportText2304:
		return blockWith[[reportText2304]byte](n)
	case n <= reportText2688:
		return blockWith[[reportText2688]byte](n)
	case n <= reportText3072:
		return blockWith[[reportText3072]byte](n)
	case n <= reportText3200:
		return blockWith[[reportText3200]byte](n)
	case n <= reportText3456:
		return blockWith[[reportText3456]byte](n)
	case n <= reportText4096:
		return blockWith[[reportText4096]byte](n)
	}
	return new(reportBlock), make(stringStore, 0, n)
}

// blockWith returns a new reportBlockWith[T], T an array of n bytes or
// more, as newReportBlock does.
func blockWith[T any](n int) (*reportBlock, stringStore) {
	b := new(reportBlockWith[T])
	text := unsafe.Slice((*byte)(unsafe.Pointer(&b.text)), unsafe.Sizeof(b.text))
	return &b.reportBlock, text[:0:n]
}

// finalReport returns a copy of from (Parse's report, in the parser and
// the scratch) that owns all its memory (see detach).
func finalReport(from *Report) *Report {
	b, st := newReportBlock(textSize(from))
	b.r = *from
	r := &b.r
	switch n := len(r.Recipients); {
	case n == 0:
		r.Recipients = r.Recipients[:0:0] // nil stays nil; no room in the scratch
	case n == 1:
		b.rec[0] = r.Recipients[0]
		r.Recipients = b.rec[:1:1]
	case n > 1:
		r.Recipients = append([]Recipient(nil), r.Recipients...)
	}
	detachLists(r, b.lists[:])
	detach(r, st)
	return r
}

// detachLists gives the string lists of r (Aliases, Received) one array of
// r's own, in place of the scratch's.
func detachLists(r *Report, room []string) {
	n := len(r.Original.Received)
	for i := range r.Recipients {
		n += len(r.Recipients[i].Aliases)
	}
	if n == 0 {
		return
	}
	all := room
	if n > len(room) {
		all = make([]string, n)
	}
	move := func(l []string) []string {
		if len(l) == 0 {
			return l[:0:0]
		}
		k := copy(all, l)
		l, all = all[:k:k], all[k:]
		return l
	}
	for i := range r.Recipients {
		r.Recipients[i].Aliases = move(r.Recipients[i].Aliases)
	}
	r.Original.Received = move(r.Original.Received)
}

// stringStore is the array detach copies a Report's strings into.
type stringStore []byte

// keep copies s to the store and returns the copy; the store was made with
// room for all, so that it never moves.
func (st *stringStore) keep(s string) string {
	if s == "" {
		return ""
	}
	start := len(*st)
	*st = append(*st, s...)
	return unsafe.String(&(*st)[start], len(s))
}

// textSize is the number of bytes of the strings of r.
func textSize(r *Report) int {
	n := len(r.Kind) + len(r.Format) + len(r.ReportingMTA) + len(r.FeedbackType) + len(r.Notice) + len(r.Addressee) + len(r.Disposition) + len(r.List) + len(r.ListAction)
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		n += len(rc.Address) + len(rc.OriginalRecipient) + len(rc.Action) + len(rc.Status) + len(rc.ReplyCode) +
			len(rc.Diagnostic) + len(rc.Reply) + len(rc.DiagnosticType) + len(rc.RemoteMTA) + len(rc.Command) + len(rc.WillRetryUntil)
		for _, a := range rc.Aliases {
			n += len(a)
		}
	}
	o := &r.Original
	n += len(o.MessageID) + len(o.From) + len(o.To) + len(o.Subject) + len(o.Date) + len(o.Sender)
	for _, s := range o.Received {
		n += len(s)
	}
	return n
}

// detach replaces every string of r by a copy in st, an array of r's own
// with room for textSize(r) bytes.
func detach(r *Report, st stringStore) {
	if cap(st) == 0 {
		return
	}
	o := &r.Original
	r.Kind = Kind(st.keep(string(r.Kind)))
	r.Format, r.ReportingMTA, r.FeedbackType, r.Notice = st.keep(r.Format), st.keep(r.ReportingMTA), st.keep(r.FeedbackType), st.keep(r.Notice)
	r.Addressee = st.keep(r.Addressee)
	r.Disposition = Disposition(st.keep(string(r.Disposition)))
	r.List, r.ListAction = st.keep(r.List), ListAction(st.keep(string(r.ListAction)))
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		rc.Address, rc.OriginalRecipient = st.keep(rc.Address), st.keep(rc.OriginalRecipient)
		rc.Action = smtpcode.Action(st.keep(string(rc.Action)))
		rc.Status, rc.ReplyCode = st.keep(rc.Status), st.keep(rc.ReplyCode)
		rc.Diagnostic, rc.Reply, rc.DiagnosticType = st.keep(rc.Diagnostic), st.keep(rc.Reply), st.keep(rc.DiagnosticType)
		rc.RemoteMTA, rc.Command = st.keep(rc.RemoteMTA), st.keep(rc.Command)
		rc.WillRetryUntil = st.keep(rc.WillRetryUntil)
		for k := range rc.Aliases {
			rc.Aliases[k] = st.keep(rc.Aliases[k])
		}
	}
	o.MessageID, o.From, o.To = st.keep(o.MessageID), st.keep(o.From), st.keep(o.To)
	o.Subject, o.Date, o.Sender = st.keep(o.Subject), st.keep(o.Date), st.keep(o.Sender)
	for i := range o.Received {
		o.Received[i] = st.keep(o.Received[i])
	}
}

// scratch is memory for the strings one Parse makes out of text that is
// not kept as it is (a value gathered from several lines, a buffer that is
// reused): they are appended one after the other and never overwritten
// during the Parse, so that views of them stay valid until detach copies
// what the Report keeps. Its array goes back to a pool after the Parse.
type scratch struct {
	buf    []byte
	strs   []string    // the arrays of the Report's string lists (see strings)
	recs   []Recipient // the arrays of recipient lists (see addRecipient)
	blocks []textBlock // the arrays of the block scanner's lists
}

// carve returns an empty list with room for n elements at the end of
// *arena, growing the arena (to at least minCap) when it has no room: the
// lists carved from one arena share its array, each with a capacity of its
// own, so that an append beyond n moves that list out instead of
// overwriting the next.
func carve[T any](arena *[]T, n, minCap int) []T {
	if cap(*arena)-len(*arena) < n {
		*arena = make([]T, 0, max(2*cap(*arena), n, minCap))
	}
	start := len(*arena)
	*arena = (*arena)[:start+n]
	return (*arena)[start : start : start+n]
}

// addRecipient is append(list, rc), a nil list starting in the scratch
// memory.
func (sc *scratch) addRecipient(list []Recipient, rc Recipient) []Recipient {
	if list == nil && sc != nil {
		list = carve(&sc.recs, minRecipients, minScratchRecipients)
	}
	return append(list, rc)
}

// textBlocks returns an empty list with room for n blocks in the scratch
// memory (see strings).
func (sc *scratch) textBlocks(n int) []textBlock {
	if sc == nil {
		return make([]textBlock, 0, n)
	}
	return carve(&sc.blocks, n, minScratchBlocks)
}

// strings returns an empty list with room for n strings in the scratch
// memory (an append beyond n moves it out), valid until the end of the
// Parse: detach copies the Report's lists into one array of its own. A
// nil scratch allocates.
func (sc *scratch) strings(n int) []string {
	if sc == nil {
		return make([]string, 0, n)
	}
	return carve(&sc.strs, n, minScratchStrings)
}

// reset empties sc for the next Parse, and says whether it is small
// enough to be kept for it.
func (sc *scratch) reset() bool {
	// The pool must not keep a message alive.
	clear(sc.strs[:cap(sc.strs)])
	clear(sc.recs[:cap(sc.recs)])
	clear(sc.blocks[:cap(sc.blocks)])
	sc.buf, sc.strs, sc.recs, sc.blocks = sc.buf[:0], sc.strs[:0], sc.recs[:0], sc.blocks[:0]
	return cap(sc.buf) <= maxPooledScratch && cap(sc.strs) <= maxPooledScratchStrings &&
		cap(sc.recs) <= maxPooledScratchRecipients && cap(sc.blocks) <= maxPooledScratchRecipients
}

// add returns a copy of b in the scratch memory, valid until the end of
// the Parse. A nil scratch allocates a string.
func (sc *scratch) add(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if sc == nil {
		return string(b)
	}
	if cap(sc.buf)-len(sc.buf) < len(b) {
		// A new array: the views of the old one keep it alive.
		sc.buf = make([]byte, 0, max(2*cap(sc.buf), len(b), minScratch))
	}
	start := len(sc.buf)
	sc.buf = append(sc.buf, b...)
	return unsafe.String(&sc.buf[start], len(b))
}

// concat returns the concatenation of parts in the scratch memory (see
// add), instead of a string allocated for it.
func (sc *scratch) concat(parts ...string) string {
	n := 0
	for _, s := range parts {
		n += len(s)
	}
	if n == 0 {
		return ""
	}
	if sc == nil {
		return strings.Join(parts, "")
	}
	if cap(sc.buf)-len(sc.buf) < n {
		sc.buf = make([]byte, 0, max(2*cap(sc.buf), n, minScratch))
	}
	start := len(sc.buf)
	for _, s := range parts {
		sc.buf = append(sc.buf, s...)
	}
	return unsafe.String(&sc.buf[start], n)
}

// start returns an empty slice with room for n bytes in the scratch
// memory, for a string built in place by appending at most n bytes to it
// and then given to finish. A nil scratch allocates.
func (sc *scratch) start(n int) []byte {
	if sc == nil {
		return make([]byte, 0, n)
	}
	if cap(sc.buf)-len(sc.buf) < n {
		sc.buf = make([]byte, 0, max(2*cap(sc.buf), n, minScratch))
	}
	return sc.buf[len(sc.buf):len(sc.buf)]
}

// finish returns the string built in the slice start gave, b. A b that
// outgrew its room was moved by append: it is its own, and the scratch
// stays as it was.
func (sc *scratch) finish(b []byte) string {
	if sc != nil && len(b) > 0 {
		if spare := sc.buf[len(sc.buf):cap(sc.buf)]; len(b) <= len(spare) && &spare[0] == &b[0] {
			sc.buf = sc.buf[:len(sc.buf)+len(b)]
		}
	}
	return view(b)
}

// minScratch is the smallest scratch array; maxPooledScratch the largest
// one kept in the pool for the next Parse.
const (
	minScratch       = 4 << 10
	maxPooledScratch = 256 << 10

	minScratchStrings       = 32
	maxPooledScratchStrings = 4096

	minRecipients              = 4 // room in a recipient list started in the scratch
	minScratchRecipients       = 16
	minBlocks                  = 4 // room in a block list started in the scratch
	minScratchBlocks           = 16
	maxPooledScratchRecipients = 256
)
