package postfixlog

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The line scanner. It reads the line formats below by hand, in one pass
// and without allocating for lines it has no use for: a log is mostly such
// lines, and regular expressions cost most of an import's parsing time.
// It accepts exactly what these expressions (the first version of the
// package; the tests check the scanner against them) accept:
//
//	RFC 3164:  ^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) \S+ (\S+?)(?:\[\d+\])?: (.*)$
//	RFC 3339:  ^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})) \S+ (\S+?)(?:\[\d+\])?: (.*)$
//	queue id:  ^([0-9A-F]{6,}|[0-9B-DF-HJ-NP-TV-Zb-df-hj-np-tv-z]{10,}): (.*)$
//	<address>: ^<([^<>]*)>
//	status:    , status=([a-z]+)
//
// \S is RE2's: anything but tab, newline, form feed, carriage return and
// space; "." is anything but a newline.

// lineParser reads log lines; it keeps the last RFC 3339 time stamp it
// parsed, so that the lines of one second cost one time.Parse. A
// lineParser is used by one goroutine at a time.
type lineParser struct {
	now time.Time
	loc *time.Location

	stampKey  []byte    // time stamp (without fraction) of stampTime
	stampTime time.Time // its time
	stampErr  error     // or the error it gave
}

func isSpaceRE2(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isUpperHex(c byte) bool { return isDigit(c) || 'A' <= c && c <= 'F' }

// isLongQueueIDChar reports whether c is in the alphabet of Postfix's long
// queue ids (enable_long_queue_ids): digits and letters but vowels.
func isLongQueueIDChar(c byte) bool {
	switch {
	case isDigit(c):
		return true
	case 'A' <= c && c <= 'Z':
		return c != 'A' && c != 'E' && c != 'I' && c != 'O' && c != 'U'
	case 'a' <= c && c <= 'z':
		return c != 'a' && c != 'e' && c != 'i' && c != 'o' && c != 'u'
	}
	return false
}

// twoDigits reads two ASCII digits at b[i:].
func twoDigits(b []byte, i int) (int, bool) {
	if i+2 > len(b) || !isDigit(b[i]) || !isDigit(b[i+1]) {
		return 0, false
	}
	return int(b[i]-'0')*10 + int(b[i+1]-'0'), true
}

// month returns the month of a three-letter English abbreviation, or 0.
func month(b []byte) time.Month {
	switch string(b) {
	case "Jan":
		return time.January
	case "Feb":
		return time.February
	case "Mar":
		return time.March
	case "Apr":
		return time.April
	case "May":
		return time.May
	case "Jun":
		return time.June
	case "Jul":
		return time.July
	case "Aug":
		return time.August
	case "Sep":
		return time.September
	case "Oct":
		return time.October
	case "Nov":
		return time.November
	case "Dec":
		return time.December
	}
	return 0
}

// hostProgText reads what follows a time stamp: " host program[pid]: text"
// (the pid is optional). It returns the program and the text.
func hostProgText(b []byte) (prog, text []byte, ok bool) {
	if len(b) == 0 || b[0] != ' ' {
		return nil, nil, false
	}
	b = b[1:]
	// \S+ then one space: the host is the run up to the first white space.
	i := 0
	for i < len(b) && !isSpaceRE2(b[i]) {
		i++
	}
	if i == 0 || i == len(b) || b[i] != ' ' {
		return nil, nil, false
	}
	b = b[i+1:]
	// (\S+?)(?:\[\d+\])?: (.*)$: the ": " must end the first run of
	// non-space bytes, since the program, the pid and the colon contain no
	// white space; the shortest program wins, so "[digits]" before ": " is
	// the pid when there is a program before it.
	k := 0
	for k < len(b) && !isSpaceRE2(b[k]) {
		k++
	}
	if k < 2 || k == len(b) || b[k] != ' ' || b[k-1] != ':' {
		return nil, nil, false
	}
	text = b[k+1:]
	end := k - 1 // the colon
	if end >= 3 && b[end-1] == ']' {
		j := end - 2
		for j >= 0 && isDigit(b[j]) {
			j--
		}
		if j >= 1 && j < end-2 && b[j] == '[' {
			return b[:j], text, true
		}
	}
	return b[:end], text, true
}

// header reads a line's time stamp, program and text. A line that is in
// neither form gives errMalformedLine; a time stamp in the RFC 3164 form
// with an impossible value gives another error.
func (p *lineParser) header(line []byte) (t time.Time, prog, text []byte, err error) {
	if t, prog, text, ok, err := p.rfc3164(line); ok || err != nil {
		return t, prog, text, err
	}
	if t, prog, text, ok, err := p.rfc3339(line); ok || err != nil {
		return t, prog, text, err
	}
	return time.Time{}, nil, nil, errMalformedLine
}

// errMalformedLine stands for "neither syslog form"; ParseLogLine words it.
var errMalformedLine = errors.New("postfixlog: not a syslog line")

// rfc3164 reads "Nov 29 21:14:24 host prog[pid]: text". ok reports that the
// line has this form; err, that its time stamp is impossible.
func (p *lineParser) rfc3164(b []byte) (t time.Time, prog, text []byte, ok bool, err error) {
	if len(b) < 16 || !('A' <= b[0] && b[0] <= 'Z') || !('a' <= b[1] && b[1] <= 'z') || !('a' <= b[2] && b[2] <= 'z') || b[3] != ' ' {
		return
	}
	i := 4
	if b[i] == ' ' {
		i++
	}
	if i >= len(b) || !isDigit(b[i]) {
		return
	}
	day := int(b[i] - '0')
	i++
	if i < len(b) && isDigit(b[i]) {
		day = day*10 + int(b[i]-'0')
		i++
	}
	if i >= len(b) || b[i] != ' ' {
		return
	}
	i++
	hh, ok1 := twoDigits(b, i)
	mm, ok2 := twoDigits(b, i+3)
	ss, ok3 := twoDigits(b, i+6)
	if !ok1 || !ok2 || !ok3 || b[i+2] != ':' || b[i+5] != ':' {
		return
	}
	prog, text, ok = hostProgText(b[i+8:])
	if !ok {
		return
	}
	mon := month(b[:3])
	if mon == 0 {
		return t, nil, nil, true, fmt.Errorf("ledger: log line: unknown month %q", b[:3])
	}
	if day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
		return t, nil, nil, true, fmt.Errorf("ledger: log line: bad time stamp %q", b[:15])
	}
	t = time.Date(p.now.Year(), mon, day, hh, mm, ss, 0, p.loc)
	if t.After(p.now.Add(24 * time.Hour)) {
		t = t.AddDate(-1, 0, 0)
	}
	return t, prog, text, true, nil
}

// rfc3339 reads "2026-11-29T21:14:20.123456+00:00 host prog[pid]: text".
func (p *lineParser) rfc3339(b []byte) (t time.Time, prog, text []byte, ok bool, err error) {
	// \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}
	const dateTime = "0000-00-00T00:00:00"
	if len(b) < len(dateTime)+1 {
		return
	}
	for i := range len(dateTime) {
		if c := dateTime[i]; c == '0' && !isDigit(b[i]) || c != '0' && b[i] != c {
			return
		}
	}
	i := len(dateTime)
	frac := -1 // start of the fraction's digits
	if b[i] == '.' {
		j := i + 1
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j == i+1 {
			return
		}
		frac, i = i+1, j
	}
	fracEnd := i
	if i >= len(b) {
		return
	}
	switch b[i] {
	case 'Z':
		i++
	case '+', '-':
		if _, digits := twoDigits(b, i+1); !digits {
			return
		}
		i += 3
		if i < len(b) && b[i] == ':' {
			i++
		}
		if _, digits := twoDigits(b, i); !digits {
			return
		}
		i += 2
	default:
		return
	}
	prog, text, ok = hostProgText(b[i:])
	if !ok {
		return
	}
	// The same second parses the same: time.Parse once per second of log.
	stamp := b[:i]
	var key [48]byte
	k := append(key[:0], b[:len(dateTime)]...)
	k = append(k, b[fracEnd:i]...)
	if len(p.stampKey) == 0 || !bytes.Equal(p.stampKey, k) {
		p.stampKey = append(p.stampKey[:0], k...)
		p.stampTime, p.stampErr = parseStamp(string(k))
	}
	if p.stampErr != nil {
		return t, nil, nil, true, fmt.Errorf("ledger: log line: bad time stamp %q: %v", stamp, p.stampErr)
	}
	t = p.stampTime
	if frac >= 0 {
		// As time.Parse reads a fraction: its first nine digits.
		ns, n := 0, 0
		for _, c := range b[frac:fracEnd] {
			if n == 9 {
				break
			}
			ns, n = ns*10+int(c-'0'), n+1
		}
		for ; n < 9; n++ {
			ns *= 10
		}
		t = t.Add(time.Duration(ns))
	}
	return t, prog, text, true, nil
}

// parseStamp parses an RFC 3339 time stamp without fraction, or one whose
// zone lacks the colon ("+0000"), as some formats write it.
func parseStamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var err2 error
		if t, err2 = time.Parse("2006-01-02T15:04:05.999999999-0700", s); err2 != nil {
			return time.Time{}, err
		}
	}
	return t, nil
}

// queueID reads "QUEUEID: rest" at the start of text.
func queueID(text []byte) (id, rest []byte, ok bool) {
	i := 0
	for i < len(text) && isUpperHex(text[i]) {
		i++
	}
	if i >= 6 && i+1 < len(text) && text[i] == ':' && text[i+1] == ' ' {
		return text[:i], text[i+2:], true
	}
	i = 0
	for i < len(text) && isLongQueueIDChar(text[i]) {
		i++
	}
	if i >= 10 && i+1 < len(text) && text[i] == ':' && text[i+1] == ' ' {
		return text[:i], text[i+2:], true
	}
	return nil, nil, false
}

// angle reads "<address>" at the start of b; the address may be empty but
// holds no angle bracket.
func angle(b []byte) ([]byte, bool) {
	if len(b) == 0 || b[0] != '<' {
		return nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '>':
			return b[1:i], true
		case '<':
			return nil, false
		}
	}
	return nil, false
}

// status finds the first ", status=WORD" (WORD in a-z) in b.
func status(b []byte) ([]byte, bool) {
	const marker = ", status="
	for {
		i := bytes.Index(b, []byte(marker))
		if i < 0 {
			return nil, false
		}
		b = b[i+len(marker):]
		n := 0
		for n < len(b) && 'a' <= b[n] && b[n] <= 'z' {
			n++
		}
		if n > 0 {
			return b[:n], true
		}
	}
}

// lowerString returns b in lower case, as strings.ToLower gives it.
func lowerString(b []byte) string {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return strings.ToLower(string(b))
		}
	}
	s := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		s[i] = c
	}
	return string(s)
}

// Names interned so that events do not allocate them line after line.
var (
	services = internTable("smtp", "lmtp", "cleanup", "qmgr", "local", "virtual", "pipe", "error", "retry", "discard", "bounce", "pickup", "smtpd", "oqmgr")
	statuses = internTable("sent", "deferred", "bounced", "expired", "undeliverable", "deliverable")
)

func internTable(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = n
	}
	return m
}

func intern(table map[string]string, b []byte) string {
	if s, ok := table[string(b)]; ok {
		return s
	}
	return string(b)
}

// parse reads one log line, without its line end, into ev; see ParseLogLine.
// It allocates only for the queue id and value of a line the ledger needs.
func (p *lineParser) parse(line []byte, ev *LogEvent) error {
	*ev = LogEvent{}
	// An RFC 5424/3164 priority prefix "<22>" as some relays keep it.
	if len(line) > 0 && line[0] == '<' {
		if i := bytes.IndexByte(line, '>'); i > 0 && i <= 4 {
			line = bytes.TrimPrefix(line[i+1:], []byte("1 "))
		}
	}
	t, prog, text, err := p.header(line)
	if err != nil {
		if err == errMalformedLine {
			return fmt.Errorf("ledger: not a syslog or maillog_file line: expected \"Mon DD HH:MM:SS host program[pid]: text\" or an RFC 3339 time stamp, got %q", clip(string(line)))
		}
		return err
	}
	ev.Time = t
	// Program names: postfix/qmgr, postfix/submission/smtpd, postfix-out/smtp.
	if !bytes.HasPrefix(prog, []byte("postfix")) {
		return ErrNotPostfix
	}
	service := prog[bytes.LastIndexByte(prog, '/')+1:]
	qid, text, ok := queueID(text)
	if !ok {
		return ErrNotPostfix
	}
	switch {
	case string(service) == "cleanup" && bytes.HasPrefix(text, []byte("message-id=")):
		ev.Kind = KindMessageID
		v := text[len("message-id="):]
		// Postfix logs the header value as it came: usually <id>, sometimes
		// bare, sometimes empty.
		if a, ok := angle(v); ok {
			v = a
		} else if i := bytes.IndexAny(v, " \t"); i >= 0 {
			v = v[:i]
		}
		ev.Value = string(bytes.TrimSpace(v))
	case string(service) == "qmgr" && bytes.HasPrefix(text, []byte("from=<")):
		a, ok := angle(text[len("from="):])
		if !ok {
			return fmt.Errorf("ledger: qmgr from= without a closing '>': %q", clip(string(text)))
		}
		ev.Kind, ev.Value = KindFrom, lowerString(a)
	case string(service) == "qmgr" && string(text) == "removed":
		ev.Kind = KindRemoved
	case bytes.HasPrefix(text, []byte("to=<")):
		a, ok := angle(text[len("to="):])
		if !ok {
			return fmt.Errorf("ledger: to= without a closing '>': %q", clip(string(text)))
		}
		st, ok := status(text)
		if !ok {
			return fmt.Errorf("ledger: to= line without status=: %q", clip(string(text)))
		}
		ev.Kind, ev.Value, ev.Status = KindTo, lowerString(a), intern(statuses, st)
	default:
		return ErrNotPostfix
	}
	ev.Service = intern(services, service)
	ev.QueueID = string(qid)
	return nil
}
