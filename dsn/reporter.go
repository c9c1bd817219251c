package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// receivedReporter guesses the reporting MTA from the report's own
// Received chain: the bottom Received field is the first hop, where the
// report entered transport. When it came "from" a named host other than
// the local one, that host wrote the report; else the "by" host did.
func receivedReporter(h message.Header, sc *scratch) string {
	last := -1
	for i := range h {
		if ascii.EqualFold(h[i].Name, "Received") {
			last = i
		}
	}
	if last < 0 {
		return ""
	}
	// The field is read in place (unfolded only when folded) and the host
	// returned is a view of it, which detach copies when the Report keeps
	// it (issue 14: allocations per message).
	f := &h[last]
	v := sc.finish(f.AppendValue(sc.start(len(f.Raw))))
	if len(v) == 0 {
		return ""
	}
	from := ""
	if ascii.HasPrefixFold(v, "from ") {
		from = hostToken(v[5:])
	}
	if from != "" && from != "localhost" && !strings.HasPrefix(from, "127.") && strings.Contains(from, ".") && !isIPv4(from) {
		return from // a view of the header: detach copies it
	}
	if k := indexFold(v, " by "); k >= 0 || ascii.HasPrefixFold(v, "by ") {
		if k < 0 {
			k = -1
		}
		return hostToken(v[k+4:])
	}
	return ""
}

// isIPv4 says whether s is a dotted quad.
func isIPv4(s string) bool {
	dots := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.':
			dots++
		case !ascii.IsDigit(s[i]):
			return false
		}
	}
	return dots == 3
}
