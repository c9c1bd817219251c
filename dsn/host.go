package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Host names in report text: the remote MTA and the reporting MTA.

// findRemoteHost returns the remote server a diagnostic names: "host
// mx.example.com[192.0.2.1] said", "host mx.example.com [192.0.2.1]:",
// "while talking to mx.example.com.", qmail's "192.0.2.1 does not like
// recipient", "Giving up on 192.0.2.1". "" when it names none.
func findRemoteHost(d string) string {
	// One pass over d with an automaton over hostIntros and the other
	// two marks (remoteHostMarks), without regard to case: the host after
	// the first of hostIntros (in list order) that is followed by one;
	// else Gmail's " by host [address]", the first such occurrence; else
	// qmail's "address does not like recipient". (A search per intro,
	// then one for each mark, read d up to nine times.)
	a := remoteHostSet.automaton()
	best, host := len(hostIntros), ""
	byHost, byFrom := "", 0 // the first " by host [" and where the next " by " may start
	notLike := -1           // where the first " does not like " starts
	row := int32(0)
	for e := 0; e < len(d) && best > 0; e++ {
		if row = a.next[row+int32(a.class[d[e]])]; row >= 0 {
			continue
		}
		row = ^row
		for _, m := range a.outs[int(row)/a.width] {
			n := len(remoteHostMarks[m])
			i := e + 1 - n
			switch {
			case int(m) < len(hostIntros):
				if int(m) >= best || i > 0 && ascii.IsAlpha(d[i-1]) {
					continue
				}
				if h := hostToken(d[i+n:]); h != "" {
					best, host = int(m), h
				}
			case int(m) == markBy:
				if byHost != "" || i < byFrom {
					continue
				}
				byFrom = i + n
				h := hostToken(d[i+n:])
				if h == "" {
					continue
				}
				rest := strings.TrimLeft(d[i+n+len(h):], ".")
				if strings.HasPrefix(rest, " [") || strings.HasPrefix(rest, "[") {
					byHost = h
				}
			case int(m) == markNotLike:
				if notLike < 0 {
					notLike = i
				}
			}
		}
	}
	if host != "" {
		return host
	}
	if byHost != "" {
		return byHost
	}
	// qmail: "192.0.2.1 does not like recipient."
	if k := notLike; k > 0 {
		s := strings.LastIndexByte(d[:k], ' ')
		if h := hostToken(d[s+1 : k]); h != "" {
			return h
		}
	}
	return ""
}

// hostIntros are the lower-case words after which a diagnostic names the
// remote server, surest first.
var hostIntros = [...]string{"host ", "while talking to ", "connected to ", "connect to ", "giving up on ", "remote server ", "remote mta "}

// remoteHostMarks are hostIntros, then Gmail's " by " and qmail's " does
// not like ": the marks findRemoteHost looks for.
var remoteHostMarks = append(hostIntros[:len(hostIntros):len(hostIntros)], " by ", " does not like ")

// The indexes in remoteHostMarks of the two marks after hostIntros.
const (
	markBy      = len(hostIntros)
	markNotLike = len(hostIntros) + 1
)

// remoteHostSet finds remoteHostMarks, without regard to case.
var remoteHostSet = newFoldPhraseSet(remoteHostMarks...)

// hostToken reads a host name or IP address at the start of s: letters,
// digits, dots and dashes with at least one dot; a trailing dot goes.
func hostToken(s string) string {
	n := 0
	for n < len(s) && (ascii.IsAlpha(s[n]) || ascii.IsDigit(s[n]) || s[n] == '.' || s[n] == '-' || s[n] == '_') {
		n++
	}
	h := strings.TrimRight(s[:n], ".-")
	if !strings.Contains(h, ".") || len(h) < 4 {
		return ""
	}
	return h
}

// generatingServer reads Exchange's "Generating server: host" line.
func generatingServer(text, lowerText []byte) string {
	k := bytes.Index(lowerText, []byte("generating server:"))
	if k < 0 {
		return ""
	}
	line, _ := ascii.NextLine(text, k+len("generating server:"))
	return hostToken(strings.TrimSpace(string(line)))
}
