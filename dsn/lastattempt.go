package dsn

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The last attempt of a delay. Exchange (2010 to Exchange Online) writes a
// delay notification's "Diagnostic information for administrators" as the
// recipient, a summary line with the reporting server's own code, and then
// the attempts so far, each after its time:
//
//	user@example.org
//	Remote Server at mx.example.org (192.0.2.1) returned '400 4.4.7 Message delayed'
//	10/8/2024 9:26:44 AM - Remote Server at mx.example.org (192.0.2.1) returned '451 4.4.316 Connection refused [...]'
//
// and its DSN part's Diagnostic-Code repeats the summary ("smtp;400 4.4.7
// Message delayed"). X.4.7 is "Delivery time expired" (RFC 3463 section
// 3.5), which a delay (RFC 3464 section 2.3.3, Action: delayed) has not
// reached: the code is the reporting server's summary, and the cause so
// far is the last attempt's reply (Microsoft, "Fix email delivery issues
// for error code 4.4.7 in Exchange Online": the reason is in the
// "Diagnostic information for administrators" section, the last attempt's
// error).

// summaryOnlyDelay says whether a delayed record's diagnostic d carries
// only the reporting server's delay summary, an X.4.7 code.
func summaryOnlyDelay(d string) bool {
	st := smtpcode.FindStatus(d)
	return len(st) == 5 && st[1:] == ".4.7"
}

// attemptMarker is what an attempt line has between its time and the
// server's name.
var attemptMarkers = [...][]byte{[]byte(" - remote server at "), []byte(" - server at ")}

// lastAttemptReply returns the reply of the last timed attempt line that
// text (lower, its lower-case copy) gives under the line naming addr, ""
// when there is none. The lines of a recipient run to the next blank line.
func lastAttemptReply(text, lower []byte, addr string) []byte {
	if addr == "" || len(text) != len(lower) {
		return nil
	}
	la := []byte(ascii.LowerString(addr))
	var last []byte
	in := false
	for i := 0; i < len(text); {
		line, next := ascii.NextLine(text, i)
		lline := lower[i : i+len(line)]
		i = next
		t := bytes.TrimSpace(lline)
		switch {
		case len(t) == 0:
			if in && last != nil {
				return last
			}
			in = false
		case bytes.Equal(t, la) || bytes.HasPrefix(t, append(la, ' ')):
			in, last = true, nil
		case in:
			if r := attemptReply(line, lline); r != nil {
				last = r
			}
		}
	}
	return last
}

// attemptReply returns the quoted reply of an attempt line ("TIME -
// Remote Server at HOST (IP) returned 'REPLY'"), nil when line is none.
func attemptReply(line, lline []byte) []byte {
	for _, m := range attemptMarkers {
		k := bytes.Index(lline, m)
		// The time before the marker: a date and a clock, in the
		// server's locale ("10/8/2024 9:26:44 AM", "08.10.2024 09:26:44").
		if k < 8 || k > 32 || bytes.IndexByte(lline[:k], ':') < 0 {
			continue
		}
		r := bytes.Index(lline[k:], []byte(" returned '"))
		if r < 0 {
			return nil
		}
		reply := bytes.TrimSpace(line[k+r+len(" returned '"):])
		reply = bytes.TrimSuffix(reply, []byte("'"))
		if smtpcode.FindReply(string(reply)) == "" {
			return nil
		}
		return reply
	}
	return nil
}
