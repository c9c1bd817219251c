package dsn

import (
	"iter"

	"github.com/ndrmilter/ndrmilter/message"
)

// ParseAll reads every message of raw, an mbox (RFC 4155) of several
// messages or a single message, and yields the report of each in order with
// the error Parse returned for it (see message.SplitMbox for how the mbox is
// cut). A message that is not a report yields a report too, of KindNone or
// another kind that is no bounce: the caller sees every message.
func ParseAll(raw []byte) iter.Seq2[*Report, error] {
	return func(yield func(*Report, error) bool) {
		for _, m := range message.SplitMbox(raw) {
			if !yield(Parse(m)) {
				return
			}
		}
	}
}
