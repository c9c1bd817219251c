package postfixlog

// The first version of ParseLogLine, on regular expressions, kept as the
// reference the scanner must agree with (FuzzParseLogLine and
// TestScannerAgreesWithRegexps).

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

var (
	// RFC 3164: "Nov 29 21:14:24 host prog[pid]: text" (day may be space padded).
	refRFC3164 = regexp.MustCompile(`^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) \S+ (\S+?)(?:\[\d+\])?: (.*)$`)
	// RFC 3339 time stamp, as rsyslog and journalctl -o short-iso write it.
	refRFC3339 = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})) \S+ (\S+?)(?:\[\d+\])?: (.*)$`)
	// A Postfix queue id: short (hex) or long (enable_long_queue_ids) form.
	refQueueID = regexp.MustCompile(`^([0-9A-F]{6,}|[0-9B-DF-HJ-NP-TV-Zb-df-hj-np-tv-z]{10,}): (.*)$`)
	// <address> at the start of a field value; the address may be empty.
	refAngle = regexp.MustCompile(`^<([^<>]*)>`)
	// status=WORD in a "to=" line.
	refStatus = regexp.MustCompile(`, status=([a-z]+)`)
)

var refMonths = map[string]time.Month{
	"Jan": time.January, "Feb": time.February, "Mar": time.March, "Apr": time.April,
	"May": time.May, "Jun": time.June, "Jul": time.July, "Aug": time.August,
	"Sep": time.September, "Oct": time.October, "Nov": time.November, "Dec": time.December,
}

// ParseLogLine reads one log line. now and loc place RFC 3164 time stamps,
// which have neither year nor zone: the year is now's, or the one before when
// that would put the line more than a day in the future. It returns
// ErrNotPostfix for lines that are well formed but of no interest, and
// another error for a line that is not a log line at all or a Postfix queue
// line whose fields are broken.
func parseLogLineRegexp(line string, now time.Time, loc *time.Location) (LogEvent, error) {
	var ev LogEvent
	line = strings.TrimRight(line, "\r\n")
	// An RFC 5424/3164 priority prefix "<22>" as some relays keep it.
	if strings.HasPrefix(line, "<") {
		if i := strings.IndexByte(line, '>'); i > 0 && i <= 4 {
			line = strings.TrimPrefix(line[i+1:], "1 ")
		}
	}
	var prog, text string
	if m := refRFC3164.FindStringSubmatch(line); m != nil {
		mon := refMonths[m[1]]
		if mon == 0 {
			return ev, fmt.Errorf("ledger: log line: unknown month %q", m[1])
		}
		day, hh, mm, ss := refAtoi(m[2]), refAtoi(m[3]), refAtoi(m[4]), refAtoi(m[5])
		if day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
			return ev, fmt.Errorf("ledger: log line: bad time stamp %q", line[:15])
		}
		t := time.Date(now.Year(), mon, day, hh, mm, ss, 0, loc)
		if t.After(now.Add(24 * time.Hour)) {
			t = t.AddDate(-1, 0, 0)
		}
		ev.Time, prog, text = t, m[6], m[7]
	} else if m := refRFC3339.FindStringSubmatch(line); m != nil {
		t, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			// "+0000" without the colon, as some formats write it.
			if t, err = time.Parse("2006-01-02T15:04:05.999999999-0700", m[1]); err != nil {
				return ev, fmt.Errorf("ledger: log line: bad time stamp %q: %v", m[1], err)
			}
		}
		ev.Time, prog, text = t, m[2], m[3]
	} else {
		return ev, fmt.Errorf("ledger: not a syslog or maillog_file line: expected \"Mon DD HH:MM:SS host program[pid]: text\" or an RFC 3339 time stamp, got %q", clip(line))
	}
	// Program names: postfix/qmgr, postfix/submission/smtpd, postfix-out/smtp.
	if !strings.HasPrefix(prog, "postfix") {
		return ev, ErrNotPostfix
	}
	ev.Service = prog[strings.LastIndexByte(prog, '/')+1:]
	m := refQueueID.FindStringSubmatch(text)
	if m == nil {
		return ev, ErrNotPostfix
	}
	ev.QueueID, text = m[1], m[2]
	switch {
	case ev.Service == "cleanup" && strings.HasPrefix(text, "message-id="):
		ev.Kind = KindMessageID
		v := strings.TrimPrefix(text, "message-id=")
		// Postfix logs the header value as it came: usually <id>, sometimes
		// bare, sometimes empty.
		if am := refAngle.FindStringSubmatch(v); am != nil {
			v = am[1]
		} else if i := strings.IndexAny(v, " \t"); i >= 0 {
			v = v[:i]
		}
		ev.Value = strings.TrimSpace(v)
	case ev.Service == "qmgr" && strings.HasPrefix(text, "from=<"):
		am := refAngle.FindStringSubmatch(strings.TrimPrefix(text, "from="))
		if am == nil {
			return ev, fmt.Errorf("ledger: qmgr from= without a closing '>': %q", clip(text))
		}
		ev.Kind, ev.Value = KindFrom, strings.ToLower(am[1])
	case ev.Service == "qmgr" && text == "removed":
		ev.Kind = KindRemoved
	case strings.HasPrefix(text, "to=<"):
		am := refAngle.FindStringSubmatch(strings.TrimPrefix(text, "to="))
		if am == nil {
			return ev, fmt.Errorf("ledger: to= without a closing '>': %q", clip(text))
		}
		sm := refStatus.FindStringSubmatch(text)
		if sm == nil {
			return ev, fmt.Errorf("ledger: to= line without status=: %q", clip(text))
		}
		ev.Kind, ev.Value, ev.Status = KindTo, strings.ToLower(am[1]), sm[1]
	default:
		return ev, ErrNotPostfix
	}
	return ev, nil
}

func refAtoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
