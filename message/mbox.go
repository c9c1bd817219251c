package message

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// MaxMboxMessages is the number of messages SplitMbox returns of one mbox;
// the last one runs to the end of the input.
const MaxMboxMessages = 10000

// SplitMbox cuts an mbox (RFC 4155: messages one after the other, each
// starting with a "From " line) into its messages, in order, each a slice
// of raw that still starts with its "From " line (ReadHeader and Read skip
// it). Input that does not start with a "From " line (after blank lines) is
// one message: raw alone.
//
// A "From " line starts a message only at the start of the input or after
// an empty line, only when a header field follows it, and not when the
// text above introduces it (a line that ends in a colon, or a separator
// line that names a message: "bounced E-Mail:", "----- Original message
// -----"): mboxo writers do not always quote a body line that starts with
// "From " (RFC 4155 section 2), and bounces copy the returned message with
// its From line. Such a line is read as text. Quoted lines (">From ") are
// left as they are. At most MaxMboxMessages are returned.
func SplitMbox(raw []byte) [][]byte {
	start := headerStart(raw)
	if !bytes.HasPrefix(raw[start:], []byte("From ")) {
		return [][]byte{raw}
	}
	var msgs [][]byte
	cur := start
	blank := false  // the line before i was empty
	var text []byte // the last line that was not empty
	for i := start; i < len(raw); {
		line, next := ascii.NextLine(raw, i)
		if i > cur && blank && bytes.HasPrefix(line, []byte("From ")) && len(msgs) < MaxMboxMessages-1 && !introduces(text) {
			if follow, _ := ascii.NextLine(raw, next); isFieldLine(follow) {
				msgs = append(msgs, raw[cur:i])
				cur = i
			}
		}
		blank = len(bytes.TrimSpace(line)) == 0
		if !blank {
			text = line
		}
		i = next
	}
	return append(msgs, raw[cur:])
}

// introduces says whether a line of text introduces what follows it as a
// copy: it ends in a colon, it is a header field (a MIME part's header, as
// "Content-Type: message/rfc822"), or it is a separator line (a run of
// dashes, equal signs, hashes...) that names a message.
func introduces(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return false
	}
	if t[len(t)-1] == ':' || isFieldLine(t) {
		return true
	}
	if len(t) < 3 || t[0] != t[1] || t[1] != t[2] || !bytes.Contains([]byte("-=#*_~"), t[:1]) {
		return false
	}
	l := ascii.ToLower(t)
	for _, w := range [...]string{"message", "original", "returned", "bounce", "below", "follow", "copy", "header"} {
		if bytes.Contains(l, []byte(w)) {
			return true
		}
	}
	return false
}
