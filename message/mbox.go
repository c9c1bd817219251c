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
// an empty line, and only when a header field follows it: mboxo writers do
// not always quote a body line that starts with "From " (RFC 4155 section
// 2), and such a line is read as text. Quoted lines (">From ") are left as
// they are. At most MaxMboxMessages are returned.
func SplitMbox(raw []byte) [][]byte {
	start := headerStart(raw)
	if !bytes.HasPrefix(raw[start:], []byte("From ")) {
		return [][]byte{raw}
	}
	var msgs [][]byte
	cur := start
	blank := false // the line before i was empty
	for i := start; i < len(raw); {
		line, next := ascii.NextLine(raw, i)
		if i > cur && blank && bytes.HasPrefix(line, []byte("From ")) && len(msgs) < MaxMboxMessages-1 {
			if follow, _ := ascii.NextLine(raw, next); isFieldLine(follow) {
				msgs = append(msgs, raw[cur:i])
				cur = i
			}
		}
		blank = len(bytes.TrimSpace(line)) == 0
		i = next
	}
	return append(msgs, raw[cur:])
}
