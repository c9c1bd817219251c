package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// dsnFields are the per-message fields of a delivery-status body
// (RFC 3464 section 2.2) that Parse keeps.
type dsnFields struct {
	reportingMTA string
	sender       string // X-Postfix-Sender and the like: the original envelope sender
	// unfinished holds the indexes of the recipients whose
	// Diagnostic-Code is the first line of a multi-line reply and no more
	// (unfinishedReply), to be completed from the notice's text.
	unfinished []int
}

// parseDeliveryStatus reads the body of a message/delivery-status or
// message/global-delivery-status part (RFC 3464 section 2, RFC 6533 section
// 6): the per-message fields, then groups of per-recipient fields. Writers
// that leave out the empty lines between groups are common; a new group also
// starts where a Final-Recipient (or Original-Recipient) field repeats.
func parseDeliveryStatus(b []byte, sc *scratch) (msg dsnFields, rcpts []Recipient, truncated bool) {
	var cur Recipient
	var original, actual string
	// seen holds the per-recipient fields of the current record: when one
	// comes again, a new record has started without an empty line.
	var seen uint8
	const (
		seenOriginal uint8 = 1 << iota
		seenFinal
		seenAction
		seenStatus
		seenDiagnostic
		seenRemote
	)
	var lastField *string // for continuation lines
	var statusComment string
	flush := func() {
		switch {
		case cur.Address == "":
			cur.Address = original
		case !hasDomain(cur.Address) && plausibleAddress(original):
			// A Final-Recipient that is no address ("rfc822; jsmith", a
			// pipe or a file Exim delivered to): the address written is.
			cur.Address = original
		}
		cur.OriginalRecipient = original
		if actual != "" && plausibleAddress(actual) && !equalFoldASCII(actual, cur.Address) && !equalFoldASCII(actual, cur.OriginalRecipient) {
			cur.Aliases = append(sc.strings(1), actual)
		}
		cur.OriginalRecipient = original
		if cur.Diagnostic == "" && statusComment != "" && !genericComment(statusComment) {
			cur.Diagnostic = statusComment
		}
		statusComment = ""
		if cur.Address != "" {
			if len(rcpts) >= MaxRecipients {
				truncated = true
			} else {
				rcpts = sc.addRecipient(rcpts, cur)
			}
		}
		cur, original, actual, seen, lastField = Recipient{}, "", "", 0, nil
	}
	// field notes a per-recipient field, starting a new record if needed.
	field := func(bit uint8) {
		if seen&bit != 0 {
			flush()
		}
		seen |= bit
	}
	i := 0
	for i < len(b) {
		line, next := ascii.NextLine(b, i)
		i = next
		if len(bytes.TrimSpace(line)) == 0 {
			if seen != 0 {
				flush()
			}
			lastField = nil
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if lastField != nil {
				*lastField = joinFolded(sc, *lastField, view(bytes.TrimSpace(line)))
			}
			continue
		}
		colon := bytes.IndexByte(line, ':')
		lastField = nil
		if colon <= 0 {
			continue
		}
		name := bytes.TrimSpace(line[:colon])
		raw := bytes.TrimSpace(line[colon+1:])
		// A view of the body, which does not change during the Parse:
		// detach copies what the Report keeps.
		value := view(raw)
		switch {
		case ascii.EqualFold(name, "Original-Recipient"):
			field(seenOriginal)
			original = recipientAddress(value)
		case ascii.EqualFold(name, "Final-Recipient"):
			field(seenFinal)
			cur.Address = recipientAddress(value)
		case ascii.EqualFold(name, "Action"):
			field(seenAction)
			cur.Action = smtpcode.ParseAction(firstWord(value))
		case ascii.EqualFold(name, "Status"):
			field(seenStatus)
			cur.Status = firstWord(value)
			// "4.0.0 (cat.example.net: host name lookup failure)": the
			// comment explains when no Diagnostic-Code does.
			if c := strings.TrimSpace(value[len(cur.Status):]); len(c) > 2 && c[0] == '(' {
				statusComment = strings.Trim(c, "() ")
			}
		case ascii.EqualFold(name, "Remote-MTA"):
			field(seenRemote)
			_, cur.RemoteMTA = stripType(value)
			lastField = &cur.RemoteMTA
		case ascii.EqualFold(name, "Diagnostic-Code"):
			field(seenDiagnostic)
			cur.DiagnosticType = diagnosticType(value)
			cur.Diagnostic = value
			lastField = &cur.Diagnostic
		case ascii.EqualFold(name, "Will-Retry-Until"):
			cur.WillRetryUntil = value
		case ascii.EqualFold(name, "X-Actual-Recipient"):
			// Sendmail: the address it delivered to after aliasing.
			actual = recipientAddress(value)
		case ascii.EqualFold(name, "Reporting-MTA"):
			_, msg.reportingMTA = stripType(value)
			lastField = &msg.reportingMTA
		case ascii.EqualFold(name, "X-Postfix-Sender"), ascii.EqualFold(name, "X-Original-Sender"):
			_, s := stripType(value)
			msg.sender = cleanAddress(s)
		}
	}
	flush()
	for k := range rcpts {
		r := &rcpts[k]
		if _, d := stripType(r.Diagnostic); unfinishedReply(collapseSpace(nil, d)) {
			msg.unfinished = append(msg.unfinished, k)
		}
		r.Diagnostic = cleanDiagnostic(sc, r.Diagnostic)
		r.RemoteMTA = cleanHost(r.RemoteMTA)
		if !smtpcode.IsStatus(r.Status) {
			// "5.1.1 (user unknown)" is read by firstWord; anything else is not a code.
			r.Status = smtpcode.FindStatus(r.Status)
		}
	}
	msg.reportingMTA = cleanHost(msg.reportingMTA)
	return msg, rcpts, truncated
}

// hasDomain says whether a is written as an address at all, local part
// "@" domain (a quoted local part too: "a..b"@example.com), as opposed to
// a local part alone, a pipe or a file.
func hasDomain(a string) bool {
	at := strings.LastIndexByte(a, '@')
	return at > 0 && at < len(a)-1 && strings.ContainsAny(a[at+1:], ".[")
}

// diagnosticType returns the type of a Diagnostic-Code value (RFC 3464
// section 2.3.6: diagnostic-type ";" *text), lower case: an atom such as
// "smtp" or "x-unix". "" when the value has none ("550 user unknown; x" is
// text).
func diagnosticType(v string) string {
	typ, _ := stripType(v)
	if typ == "" || !ascii.IsAlpha(typ[0]) || strings.ContainsAny(typ, " \t") {
		return ""
	}
	return typ
}

// joinFolded joins a continuation line to a field value with one space.
func joinFolded(sc *scratch, v, more string) string {
	if v == "" {
		return more
	}
	if more == "" {
		return v
	}
	return sc.concat(v, " ", more)
}

// firstWord returns the first white-space separated word of s.
func firstWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \t("); i >= 0 {
		return s[:i]
	}
	return s
}

// cleanDiagnostic makes one line of a diagnostic: the type ("smtp;") goes,
// white space runs become one space, and it is cut at MaxDiagnostic.
func cleanDiagnostic(sc *scratch, d string) string {
	typ, rest := stripType(d)
	if typ != "" {
		d = rest
	}
	d = collapseSpace(sc, d)
	d = joinReplyLines(sc, d)
	if len(d) > MaxDiagnostic {
		d = d[:MaxDiagnostic]
	}
	return textclean.UTF8(d)
}

// collapseSpace trims s and turns each run of white space (line ends
// included) into one space.
// The result is s itself, a substring of it, or a string in sc (a nil sc
// allocates one).
func collapseSpace(sc *scratch, s string) string {
	needs := needsCollapse(s)
	s = strings.TrimSpace(s)
	if !needs {
		return s
	}
	// Copy the runs of non-space whole, with one space between them.
	out := sc.start(len(s))
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isCollapsible(s[j]) {
			j++
		}
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, s[i:j]...)
		for j < len(s) && isCollapsible(s[j]) {
			j++
		}
		i = j
	}
	return sc.finish(out)
}

// needsCollapse says whether s has a tab, a line end or two spaces in a
// row: whether collapseSpace must copy it. Most diagnostics are one line
// already; they are read eight bytes at a time (issue 14: collapseSpace
// read every diagnostic byte by byte, twice per recipient).
func needsCollapse(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// The compiler makes the eight loads one.
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if bytesEqual(w, '\t')|bytesEqual(w, '\n')|bytesEqual(w, '\r') != 0 {
			return true
		}
		// Two spaces in a row: in the word, or across its end.
		if sp := bytesEqual(w, ' '); sp&(sp>>8) != 0 || sp>>63 != 0 && i+8 < len(s) && s[i+8] == ' ' {
			return true
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\r' || c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			return true
		}
	}
	return false
}

// bytesEqual returns the high bit of each byte of w that equals c, and no
// other bit (the exact form of the "has zero byte" test: no borrow runs
// from one byte into the next).
func bytesEqual(w uint64, c byte) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	x := w ^ (0x0101010101010101 * uint64(c))
	return ^((x&low7 + low7) | x | low7)
}

// collapseBytes is collapseSpace(string(b)), always a copy. It also unfolds
// a folded header value (RFC 5322 section 2.2.3) on the way, since the line
// breaks of a fold are white space like any other: one pass and one copy
// instead of three (unfold, string, collapse).
func collapseBytes(b []byte) string {
	var stack [512]byte
	return string(appendCollapsed(stack[:0], b))
}

// appendCollapsed appends collapseBytes(b) to dst.
func appendCollapsed(dst, b []byte) []byte {
	b = bytes.TrimSpace(b)
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && !isCollapsible(b[j]) {
			j++
		}
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, b[i:j]...)
		for j < len(b) && isCollapsible(b[j]) {
			j++
		}
		i = j
	}
	return dst
}

// isCollapsible says whether collapseSpace turns c into part of a space.
func isCollapsible(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// cleanHost reduces a Remote-MTA or Reporting-MTA value to the host name
// (or address literal): "mx.example.com [192.0.2.1]" stays readable, a
// trailing dot and surrounding brackets go.
func cleanHost(h string) string {
	h = strings.TrimSpace(h)
	if typ, rest := stripType(h); typ != "" {
		h = rest
	}
	// "mx.example.org (TCP|192.0.2.1|25) (mx.example.org ESMTP)",
	// "mx.example.net [192.0.2.80]", "host; product": the name is the first word.
	if i := strings.IndexAny(h, " \t(;"); i > 0 {
		h = h[:i]
	}
	h = strings.TrimSuffix(strings.TrimSpace(h), ".")
	return textclean.UTF8(h)
}

// genericComment says whether a Status comment only restates the class
// ("permanent failure", "temporary failure"), which explains nothing.
func genericComment(c string) bool {
	switch ascii.LowerString(c) {
	case "permanent failure", "temporary failure", "permanent error", "temporary error", "persistent transient failure", "other", "success":
		return true
	}
	return false
}

// joinReplyLines joins the first multi-line SMTP reply of a diagnostic
// made one line, wherever it starts ("host mx.example.com said:
// 550-5.1.1 The email account 550-5.1.1 does not exist 550 5.1.1 https://...")
// (see joinMultiline).
func joinReplyLines(sc *scratch, d string) string {
	for i := 0; i+8 <= len(d); i++ {
		k := strings.IndexByte(d[i:], '-')
		if k < 0 {
			return d
		}
		i += k
		s := i - 3
		if s < 0 || !smtpcode.IsReply(d[s:i]) || s > 0 && !isReplyBoundary(d[s-1]) {
			continue
		}
		if j := joinMultiline(sc, d[s:]); len(j) != len(d)-s || j != d[s:] {
			return sc.concat(d[:s], j)
		}
	}
	return d
}

// isReplyBoundary says whether c may come just before a reply code in a
// diagnostic: white space or punctuation, not a digit or a letter.
func isReplyBoundary(c byte) bool {
	return c == ' ' || c == '(' || c == ':' || c == '"' || c == '\'' || c == '<' || c == '[' || c == '#'
}

// joinMultiline joins the lines of a multiline SMTP reply (RFC 5321
// section 4.2.1) made one line: "550-5.7.26 Unauthenticated email
// 550-5.7.26 from example.org 550 5.7.26 is not accepted" becomes
// "550 5.7.26 Unauthenticated email from example.org is not accepted".
// The result is d, a substring of it, or a string in sc (a nil sc
// allocates one).
func joinMultiline(sc *scratch, d string) string {
	if len(d) < 8 || !smtpcode.IsReply(d[:3]) || d[3] != '-' {
		return d
	}
	code := d[:3]
	status := smtpcode.StatusPrefix(d[4:])
	n := len(status)
	prefix := d[:4+n] // "550-5.7.26" or "550-"
	if n > 0 && (len(d) <= 4+n || d[4+n] != ' ') {
		return d
	}
	// Built in the scratch: no longer than d.
	b := sc.start(len(d))
	b = append(b, code...)
	b = append(b, ' ')
	if status != "" {
		b = append(b, status...)
		b = append(b, ' ')
	}
	rest := strings.TrimSpace(d[len(prefix):])
	last := code + " " + status
	if status == "" {
		last = code
	}
	for rest != "" {
		// An empty continuation line ("550-5.7.27" alone, as Gmail
		// writes between paragraphs) leaves the next line's code at
		// the start of rest: it goes too.
		for _, c := range [...]string{prefix, last} {
			if status != "" && (rest == c || strings.HasPrefix(rest, c+" ")) {
				rest = strings.TrimSpace(rest[len(c):])
			}
		}
		if rest == "" {
			break
		}
		// The next continuation ("550-5.7.26 ") or last line ("550 5.7.26 ").
		cont := " " + prefix + " "
		if status == "" {
			cont = " " + prefix // "550-because"
		}
		k := strings.Index(rest, cont)
		m := len(cont)
		if j := strings.Index(rest, " "+last+" "); j >= 0 && (k < 0 || j < k) {
			k, m = j, len(last)+2
		}
		if k < 0 {
			b = append(b, rest...)
			break
		}
		b = append(b, rest[:k]...)
		b = append(b, ' ')
		rest = rest[k+m:]
	}
	return strings.TrimSpace(sc.finish(b))
}
