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
	// The host after the first of hostIntros (in list order) that is
	// followed by one: read d once, trying at each byte the intros that
	// start with it (a search per intro read it seven times, on a
	// lower-case copy).
	best, host, index := len(hostIntros), "", hostIntroIndex.table()
	for i := 0; i < len(d) && best > 0; i++ {
		for _, w := range index.at(d, i) {
			if int(w) >= best {
				break // in list order: the rest come later still
			}
			intro := hostIntros[w]
			if !ascii.HasPrefixFold(d[i:], intro) || i > 0 && ascii.IsAlpha(d[i-1]) {
				continue
			}
			if h := hostToken(d[i+len(intro):]); h != "" {
				best, host = int(w), h
				break
			}
		}
	}
	if host != "" {
		return host
	}
	// Gmail: "... rejected by the server for the recipient domain
	// example.org by mx.example.org. [192.0.2.1]."
	for from := 0; from < len(d); {
		k := indexFold(d[from:], " by ")
		if k < 0 {
			break
		}
		k += from
		from = k + 4
		h := hostToken(d[k+4:])
		if h == "" {
			continue
		}
		rest := strings.TrimLeft(d[k+4+len(h):], ".")
		if strings.HasPrefix(rest, " [") || strings.HasPrefix(rest, "[") {
			return h
		}
	}
	// qmail: "192.0.2.1 does not like recipient."
	if k := indexFold(d, " does not like "); k > 0 {
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

// hostIntroIndex finds the hostIntros that may start at a place.
var hostIntroIndex = newWordIndex(hostIntros[:])

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
