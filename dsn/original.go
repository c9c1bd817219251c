package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/message"
)

// readOriginal fills o from the header of the original message, as a
// text/rfc822-headers or message/rfc822 part or an inline copy gives it.
// Fields already known are kept: the first source wins.
func readOriginal(o *Original, h message.Header, sc *scratch) {
	// The values of the fields read are first written one after the other
	// and copied into one string: the values kept are parts of it, one
	// allocation for all of them rather than one each (issue 14).
	var stack [2048]byte
	buf := stack[:0]
	var spans [maxOriginalValues]valueSpan
	n := 0
	for i := range h {
		f := &h[i]
		if n == len(spans) {
			break
		}
		switch originalFieldOf(f.Name) {
		case originalNone:
			continue
		case originalCollapsed:
			start := len(buf)
			buf = appendCollapsed(buf, f.Raw)
			spans[n] = valueSpan{i, start, len(buf)}
		default:
			start := len(buf)
			buf = append(buf, f.Value()...)
			spans[n] = valueSpan{i, start, len(buf)}
		}
		n++
	}
	var all string
	if n > 0 {
		all = sc.add(buf)
	}
	k := 0
	// value returns the value of field i (unfolded; made one line for
	// the collapsed fields), from all when it was written there.
	value := func(i int, collapsed bool) string {
		for k < n && spans[k].field < i {
			k++
		}
		if k < n && spans[k].field == i {
			return all[spans[k].start:spans[k].end]
		}
		if collapsed {
			return collapseBytes(h[i].Raw)
		}
		return view(h[i].Value()) // the message or a new unfolded copy, unchanged during the Parse
	}
	for i := range h {
		f := &h[i]
		switch {
		case o.MessageID == "" && ascii.EqualFold(f.Name, "Message-ID"):
			o.MessageID = messageID(value(i, false))
		case o.From == "" && ascii.EqualFold(f.Name, "From"):
			o.From = firstAddress(decodeWords(sc, value(i, false)))
		case o.To == "" && ascii.EqualFold(f.Name, "To"):
			o.To = collapseSpace(sc, decodeWords(sc, value(i, false)))
		case o.Subject == "" && ascii.EqualFold(f.Name, "Subject"):
			o.Subject = collapseSpace(sc, decodeWords(sc, value(i, false)))
		case o.Date == "" && ascii.EqualFold(f.Name, "Date"):
			o.Date = textclean.UTF8(value(i, true))
		case o.Sender == "" && (ascii.EqualFold(f.Name, "Return-Path") || ascii.EqualFold(f.Name, "X-Envelope-From")):
			o.Sender = cleanAddress(value(i, false))
		case ascii.EqualFold(f.Name, "Received"):
			if len(o.Received) < maxReceived {
				if o.Received == nil {
					// Room for all of them at once: the list grew by doubling.
					o.Received = sc.strings(min(h.Count("Received"), maxReceived))
				}
				o.Received = append(o.Received, textclean.UTF8(value(i, true)))
			}
		}
	}
}

// maxOriginalValues caps the field values readOriginal writes into its
// one string; the fields after them are copied one by one.
const maxOriginalValues = 96

// valueSpan is where the value of header field number field lies in the
// string readOriginal makes.
type valueSpan struct {
	field, start, end int
}

// The kinds of fields readOriginal reads.
const (
	originalNone      = iota // a field it does not read
	originalValue            // read unfolded
	originalCollapsed        // read made one line (Date, Received)
)

// originalFieldOf returns how readOriginal reads the field called name.
func originalFieldOf(name []byte) int {
	switch {
	case ascii.EqualFold(name, "Date"), ascii.EqualFold(name, "Received"):
		return originalCollapsed
	case ascii.EqualFold(name, "Message-ID"), ascii.EqualFold(name, "From"), ascii.EqualFold(name, "To"),
		ascii.EqualFold(name, "Subject"), ascii.EqualFold(name, "Return-Path"), ascii.EqualFold(name, "X-Envelope-From"):
		return originalValue
	}
	return originalNone
}

// maxReceived caps the Received lines kept of an original message.
const maxReceived = 64

// messageID takes the id out of a Message-ID value: between the angle
// brackets when there are some.
func messageID(v string) string {
	v = strings.TrimSpace(v)
	if lt := strings.IndexByte(v, '<'); lt >= 0 {
		if gt := strings.IndexByte(v[lt:], '>'); gt > 0 {
			return textclean.UTF8(strings.TrimSpace(v[lt+1 : lt+gt]))
		}
		v = v[lt+1:]
	}
	if i := strings.IndexAny(v, " \t"); i > 0 {
		v = v[:i]
	}
	return textclean.UTF8(v)
}

// firstAddress returns the first address of an address list value.
func firstAddress(v string) string {
	if lt := strings.IndexByte(v, '<'); lt >= 0 {
		return cleanAddress(v[lt:])
	}
	if a, _ := findAddress(v, 0); a != "" {
		return a
	}
	return cleanAddress(v)
}

// addressList returns the addresses of an address list value (To, Cc).
func addressList(v string) []string {
	return appendAddressList(nil, v)
}

// appendAddressList appends the addresses of an address list value to
// out (at most MaxRecipients of them): addressList without a list of its
// own for a caller that gathers several.
func appendAddressList(out []string, v string) []string {
	start := len(out)
	for i := 0; i < len(v) && len(out)-start < MaxRecipients; {
		a, end := findAddress(v, i)
		if a == "" {
			break
		}
		out = append(out, a)
		i = end
	}
	return out
}

// inlineOriginal finds a copy of the original message's header in free
// text, after a separator such as "----- Original message -----" or
// "------ This is a copy of the message, including all the headers. ------",
// and returns it; nil when there is none.
func inlineOriginal(a *message.Arena, text []byte, seps []int) message.Header {
	for _, k := range seps {
		_, next := ascii.NextLine(text, k)
		if h := headerAfter(a, text, next); len(h) > 0 {
			return h
		}
	}
	return nil
}

// separatorLines returns the start of each line of lowerText that holds an
// original-message separator, in order. Every separator holds "message",
// "header" or "content-type", so only the lines around those words are
// looked at: a few passes over the text instead of one per separator.
func separatorLines(lowerText []byte) []int {
	return appendSeparatorLines(nil, lowerText)
}

// appendSeparatorLines is separatorLines adding to starts (empty), for a
// caller with room of its own.
func appendSeparatorLines(starts []int, lowerText []byte) []int {
	for _, anchor := range [...]string{"message", "header", "content-type"} {
		for i := 0; i < len(lowerText); {
			k := indexString(lowerText[i:], anchor)
			if k < 0 {
				break
			}
			k += i
			ls := bytes.LastIndexByte(lowerText[:k], '\n') + 1
			line, next := ascii.NextLine(lowerText, ls)
			i = next
			if len(line) > maxSeparatorLine || !mayBeSeparator(line) {
				continue
			}
			if isOriginalSeparator(line) {
				starts = insertSorted(starts, ls)
			}
		}
	}
	return starts
}

// maxSeparatorLine is the longest line taken for a separator: they are
// short, the prose lines that also say "message" are long.
const maxSeparatorLine = 100

// insertSorted adds v to the sorted list s once.
func insertSorted(s []int, v int) []int {
	for i, x := range s {
		if x == v {
			return s
		}
		if x > v {
			s = append(s, 0)
			copy(s[i+1:], s[i:])
			s[i] = v
			return s
		}
	}
	return append(s, v)
}

// headerAfter reads a header block that starts at text[i], after any empty
// or indented-empty lines.
// Its fields are in the arena a (nil allocates).
func headerAfter(a *message.Arena, text []byte, i int) message.Header {
	for n := 0; i < len(text) && n < 5; n++ {
		line, next := ascii.NextLine(text, i)
		if len(bytes.TrimSpace(line)) != 0 {
			break
		}
		i = next
	}
	if i >= len(text) {
		return nil
	}
	rest := text[i:]
	// Some writers indent the copied header.
	h, _, _ := a.ReadHeader(rest)
	if len(h) < 2 {
		return nil
	}
	return h
}

// originalSeparators are the lower-case lines after which writers copy the
// original message (or its header), most specific first.
var originalSeparators = []string{
	"------ this is a copy of the message, including all the headers.",
	"------ this is a copy of the message's headers.",
	"--- below this line is a copy of the message.",
	"--- below this line is the original message.",
	"----- original message -----",
	"----- original message follows -----",
	"------ original message follows -----",
	"----- message header follows -----",
	"----- the header of the original message is following. -----",
	"----- the following is the original message",
	"original message follows",
	"original message headers",
	"unsent message below",
	"unsent message follows",
	"message headers follow",
	"header of the original message",
	"original message header",
	"returned message follows",
	"begin forwarded message",
	"------- returned message",
	"undelivered message headers",
	"-----original message-----",
	"original message:",
	"message header follows",
	"content-type: message/rfc822",
	"content-type: text/rfc822-headers",
}

// ruledSeparators are lower-case words that start the copy of the original
// message only on a rule, a line that starts with dashes or the like
// ("--- Returned Message ---", "|---- Message text follows: ----|"): in
// a sentence they are prose ("...from the attached returned message").
var ruledSeparators = []string{"returned message", "begin message", "message text follows", "start of returned message", "returned mail"}

// isOriginalSeparator says whether a lower-case line is one after which
// the original message is copied.
func isOriginalSeparator(line []byte) bool {
	if originalSeparatorSet.in(line) {
		return true
	}
	t := bytes.TrimLeft(bytes.TrimSpace(line), "|")
	if !isSeparatorLine(t) {
		return false
	}
	return ruledSeparatorSet.in(t)
}

// originalSeparatorSet and ruledSeparatorSet find originalSeparators and
// ruledSeparators in one pass.
var (
	originalSeparatorSet = newPhraseSet(originalSeparators...)
	ruledSeparatorSet    = newPhraseSet(ruledSeparators...)
)

// mayBeSeparator says cheaply whether a line holds a word that every
// original-message separator has besides "message" or "header", before
// the separators are tried one by one.
func mayBeSeparator(line []byte) bool {
	return separatorWordSet.in(line)
}

// separatorWordSet holds the words mayBeSeparator looks for.
var separatorWordSet = newPhraseSet("original", "copy", "follow", "below", "unsent", "undelivered", "returned", "forwarded", "content-type", "header")
