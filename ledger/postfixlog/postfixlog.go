// Package postfixlog reads Postfix logs back into ledger Records and
// imports them into a ledger, so that a fresh install knows the mail that
// left before it ran. Its Importer is the one import of ndrmilter: "ndrmilter
// ledger import" runs it on files, the running service's API (POST
// /api/v1/ledger/import) on a request body.
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
	"bytes"
	"errors"
	"fmt"
	"time"
)

// EventKind says what a Postfix log line tells about a queued message.
type EventKind string

// The kinds of LogEvent.
const (
	KindMessageID EventKind = "message-id" // cleanup: the message's Message-ID
	KindFrom      EventKind = "from"       // qmgr: the envelope sender
	KindTo        EventKind = "to"         // a delivery agent: a recipient and its delivery status
	KindRemoved   EventKind = "removed"    // qmgr: the queue file is gone, the message is done
)

// LogEvent is what one Postfix log line says about a queued message.
type LogEvent struct {
	Time    time.Time
	Service string // the daemon, last part of the program name: cleanup, qmgr, smtp, lmtp...
	QueueID string
	Kind    EventKind
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

// ParseLogLine reads one log line. now and loc place RFC 3164 time stamps,
// which have neither year nor zone: the year is now's, or the one before when
// that would put the line more than a day in the future. It returns
// ErrNotPostfix for lines that are well formed but of no interest, and
// another error for a line that is not a log line at all or a Postfix queue
// line whose fields are broken.
func ParseLogLine(line string, now time.Time, loc *time.Location) (LogEvent, error) {
	var ev LogEvent
	b := bytes.TrimRight([]byte(line), "\r\n")
	if bytes.IndexByte(b, '\n') >= 0 {
		// One line is one line: no syslog form spans two.
		return ev, fmt.Errorf("ledger: not a syslog or maillog_file line: expected one line, got %q", clip(line))
	}
	p := lineParser{now: now, loc: loc}
	err := p.parse(b, &ev)
	return ev, err
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// blank reports whether line is only white space.
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }
