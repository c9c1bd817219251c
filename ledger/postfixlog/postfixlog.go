// Package postfixlog reads Postfix logs back into ledger Records, so that a
// fresh install knows the mail that left before it ran ("ndrmilter ledger
// import").
//
// A message's life is spread over several log lines, joined by queue id:
//
//	cleanup[..]: 3B7D4984286: message-id=<1501.0005.0000@vm>
//	qmgr[..]:    3B7D4984286: from=<a@example.org>, size=2285, nrcpt=1 (queue active)
//	smtp[..]:    3B7D4984286: to=<b@remote.test>, relay=..., dsn=2.0.0, status=sent (250 2.0.0 Ok)
//	qmgr[..]:    3B7D4984286: removed
//
// Only messages with at least one smtp or lmtp "to=" line whose status is
// sent, deferred or bounced count as leaving; mail delivered by local(8),
// virtual(8) or pipe(8) stays here. The line formats are those of syslog
// (RFC 3164 "Nov 29 21:14:24 host prog[pid]: text", and RFC 3339 time stamps
// as rsyslog writes them by default on Debian) and of Postfix's own
// maillog_file, which uses the RFC 3164 form.
package postfixlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// LogEvent is what one Postfix log line says about a queued message.
type LogEvent struct {
	Time    time.Time
	Service string // the daemon, last part of the program name: cleanup, qmgr, smtp, lmtp...
	QueueID string
	// Kind is "message-id", "from", "to" or "removed".
	Kind string
	// Value is the Message-ID (without angle brackets), the sender or the
	// recipient address; empty for "removed" and for the null sender.
	Value string
	// Status is the delivery status of a "to" event: sent, deferred, bounced...
	Status string
}

// ErrNotPostfix is returned by ParseLogLine for a well-formed log line that
// says nothing the ledger needs (another program, another Postfix message).
var ErrNotPostfix = errors.New("postfixlog: not a Postfix queue line")

// maxLogLine caps the length of a log line; longer lines are malformed.
const maxLogLine = 64 << 10

var (
	// RFC 3164: "Nov 29 21:14:24 host prog[pid]: text" (day may be space padded).
	rfc3164Re = regexp.MustCompile(`^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) \S+ (\S+?)(?:\[\d+\])?: (.*)$`)
	// RFC 3339 time stamp, as rsyslog and journalctl -o short-iso write it.
	rfc3339Re = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})) \S+ (\S+?)(?:\[\d+\])?: (.*)$`)
	// A Postfix queue id: short (hex) or long (enable_long_queue_ids) form.
	queueIDRe = regexp.MustCompile(`^([0-9A-F]{6,}|[0-9B-DF-HJ-NP-TV-Zb-df-hj-np-tv-z]{10,}): (.*)$`)
	// <address> at the start of a field value; the address may be empty.
	angleRe = regexp.MustCompile(`^<([^<>]*)>`)
	// status=WORD in a "to=" line.
	statusRe = regexp.MustCompile(`, status=([a-z]+)`)
)

var months = map[string]time.Month{
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
func ParseLogLine(line string, now time.Time, loc *time.Location) (LogEvent, error) {
	var ev LogEvent
	line = strings.TrimRight(line, "\r\n")
	// An RFC 5424/3164 priority prefix "<22>" as some relays keep it.
	if strings.HasPrefix(line, "<") {
		if i := strings.IndexByte(line, '>'); i > 0 && i <= 4 {
			line = strings.TrimPrefix(line[i+1:], "1 ")
		}
	}
	var prog, text string
	if m := rfc3164Re.FindStringSubmatch(line); m != nil {
		mon := months[m[1]]
		if mon == 0 {
			return ev, fmt.Errorf("ledger: log line: unknown month %q", m[1])
		}
		day, hh, mm, ss := atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5])
		if day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
			return ev, fmt.Errorf("ledger: log line: bad time stamp %q", line[:15])
		}
		t := time.Date(now.Year(), mon, day, hh, mm, ss, 0, loc)
		if t.After(now.Add(24 * time.Hour)) {
			t = t.AddDate(-1, 0, 0)
		}
		ev.Time, prog, text = t, m[6], m[7]
	} else if m := rfc3339Re.FindStringSubmatch(line); m != nil {
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
	m := queueIDRe.FindStringSubmatch(text)
	if m == nil {
		return ev, ErrNotPostfix
	}
	ev.QueueID, text = m[1], m[2]
	switch {
	case ev.Service == "cleanup" && strings.HasPrefix(text, "message-id="):
		ev.Kind = "message-id"
		v := strings.TrimPrefix(text, "message-id=")
		// Postfix logs the header value as it came: usually <id>, sometimes
		// bare, sometimes empty.
		if am := angleRe.FindStringSubmatch(v); am != nil {
			v = am[1]
		} else if i := strings.IndexAny(v, " \t"); i >= 0 {
			v = v[:i]
		}
		ev.Value = strings.TrimSpace(v)
	case ev.Service == "qmgr" && strings.HasPrefix(text, "from=<"):
		am := angleRe.FindStringSubmatch(strings.TrimPrefix(text, "from="))
		if am == nil {
			return ev, fmt.Errorf("ledger: qmgr from= without a closing '>': %q", clip(text))
		}
		ev.Kind, ev.Value = "from", strings.ToLower(am[1])
	case ev.Service == "qmgr" && text == "removed":
		ev.Kind = "removed"
	case strings.HasPrefix(text, "to=<"):
		am := angleRe.FindStringSubmatch(strings.TrimPrefix(text, "to="))
		if am == nil {
			return ev, fmt.Errorf("ledger: to= without a closing '>': %q", clip(text))
		}
		sm := statusRe.FindStringSubmatch(text)
		if sm == nil {
			return ev, fmt.Errorf("ledger: to= line without status=: %q", clip(text))
		}
		ev.Kind, ev.Value, ev.Status = "to", strings.ToLower(am[1]), sm[1]
	default:
		return ev, ErrNotPostfix
	}
	return ev, nil
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// LogJoiner joins LogEvents by queue id into Records of mail that left.
type LogJoiner struct {
	// MaxPending bounds the messages held while their lines come in
	// (default 200,000). Past it, complete ones are emitted and the rest
	// dropped and counted, so memory stays bounded on any input.
	MaxPending int
	// Domains, when set, keep only mail whose envelope sender is in one of
	// them or a subdomain (as ledger.InDomains compares them): the ledger is
	// about mail from our domains.
	Domains []string

	pending map[string]*pendingMessage
	order   []string // queue ids in arrival order, for the MaxPending flush

	// Dropped counts messages given up because of MaxPending; Skipped counts
	// complete messages that did not leave or were not from our domains.
	Dropped, Skipped int
}

type pendingMessage struct {
	rec      ledger.Record
	hasFrom  bool
	leftHere bool // an smtp/lmtp to= with a status that means it left or tried to
	seen     map[string]bool
}

// Add takes one event and returns the Records it completes (on qmgr's
// "removed"), possibly none.
func (j *LogJoiner) Add(ev LogEvent) []ledger.Record {
	if j.pending == nil {
		j.pending = make(map[string]*pendingMessage)
	}
	pm := j.pending[ev.QueueID]
	if pm == nil {
		if ev.Kind == "removed" {
			return nil
		}
		pm = &pendingMessage{rec: ledger.Record{QueueID: ev.QueueID, Time: ev.Time}, seen: map[string]bool{}}
		j.pending[ev.QueueID] = pm
		j.order = append(j.order, ev.QueueID)
	}
	switch ev.Kind {
	case "message-id":
		pm.rec.MessageID = ev.Value
	case "from":
		pm.rec.Sender, pm.hasFrom = ev.Value, true
	case "to":
		if ev.Service != "smtp" && ev.Service != "lmtp" {
			break
		}
		switch ev.Status {
		case "sent", "deferred", "bounced":
		default:
			return nil
		}
		pm.leftHere = true
		if !pm.seen[ev.Value] {
			pm.seen[ev.Value] = true
			pm.rec.Recipients = append(pm.rec.Recipients, ev.Value)
		}
	case "removed":
		delete(j.pending, ev.QueueID)
		if r, ok := j.complete(pm); ok {
			return []ledger.Record{r}
		}
		return nil
	}
	if j.limit() > 0 && len(j.pending) > j.limit() {
		return j.Flush()
	}
	return nil
}

func (j *LogJoiner) limit() int {
	if j.MaxPending == 0 {
		return 200000
	}
	return j.MaxPending
}

// complete returns pm's ledger.Record if it is mail that left from our domains.
func (j *LogJoiner) complete(pm *pendingMessage) (ledger.Record, bool) {
	if !pm.hasFrom || !pm.leftHere || len(pm.rec.Recipients) == 0 {
		if pm.hasFrom && !pm.leftHere {
			j.Skipped++
		}
		return ledger.Record{}, false
	}
	// Bounces Postfix itself sends (null sender) are never bounced back.
	if pm.rec.Sender == "" || !j.ourSender(pm.rec.Sender) {
		j.Skipped++
		return ledger.Record{}, false
	}
	return pm.rec, true
}

// ourSender reports whether sender is in Domains (ledger.InDomains: the
// milter's notion of our addresses); with no Domains, every sender is.
func (j *LogJoiner) ourSender(sender string) bool {
	return len(j.Domains) == 0 || ledger.InDomains(sender, j.Domains)
}

// Flush returns the Records of every pending message that already shows mail
// leaving (still queued ones: deferred, or whose "removed" line is in a later
// file) and forgets all pending messages. Incomplete ones are counted in
// Dropped.
func (j *LogJoiner) Flush() []ledger.Record {
	var out []ledger.Record
	for _, id := range j.order {
		pm := j.pending[id]
		if pm == nil {
			continue
		}
		if r, ok := j.complete(pm); ok {
			out = append(out, r)
		} else if !pm.hasFrom || !pm.leftHere {
			j.Dropped++
		}
	}
	j.pending, j.order = nil, nil
	return out
}

// LogStats counts the lines an import read.
type LogStats struct {
	Lines     int // all lines read
	Used      int // Postfix lines that fed the join
	Ignored   int // well-formed lines of no interest
	Malformed int // not a log line, or a Postfix line with broken fields; skipped
}

// ReadLog reads a Postfix log, plain or gzip-compressed (detected by its
// magic bytes), feeds its lines to j and calls emit for each completed
// ledger.Record. A malformed line is counted and skipped; ReadLog stops only on a
// read error or when emit returns an error. It does not Flush j, so that
// rotated files can be read in order into one join.
func ReadLog(r io.Reader, j *LogJoiner, now time.Time, loc *time.Location, emit func(ledger.Record) error) (LogStats, error) {
	var st LogStats
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return st, fmt.Errorf("ledger: gzip log: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	var long bool // inside a line longer than maxLogLine
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !long {
				buf = append(buf, chunk...)
				if len(buf) > maxLogLine {
					long, buf = true, buf[:0]
				}
			}
			continue
		}
		if len(chunk) > 0 || len(buf) > 0 || long {
			if long {
				st.Lines++
				st.Malformed++
				long, buf = false, buf[:0]
			} else {
				buf = append(buf, chunk...)
				line := string(bytes.TrimRight(buf, "\r\n"))
				buf = buf[:0]
				if line != "" || len(chunk) > 0 {
					st.Lines++
					if e := feed(line, j, now, loc, &st, emit); e != nil {
						return st, e
					}
				}
			}
		}
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, fmt.Errorf("ledger: reading log: %w", err)
		}
	}
}

func feed(line string, j *LogJoiner, now time.Time, loc *time.Location, st *LogStats, emit func(ledger.Record) error) error {
	if strings.TrimSpace(line) == "" {
		st.Ignored++
		return nil
	}
	ev, err := ParseLogLine(line, now, loc)
	switch {
	case errors.Is(err, ErrNotPostfix):
		st.Ignored++
		return nil
	case err != nil:
		st.Malformed++
		return nil
	}
	st.Used++
	for _, r := range j.Add(ev) {
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}
