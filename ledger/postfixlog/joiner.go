package postfixlog

import (
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
)

// Defaults of LogJoiner's bounds.
const (
	defaultMaxPending           = 200000
	defaultMaxPendingRecipients = 500000
)

// pastCapChunk is how many recipients past ledger.MaxRecipients a pending
// message gathers before they go to LogJoiner.PastCap.
const pastCapChunk = 1000

// seenMapAt is the number of recipients from which a pending message looks
// its recipients up in a map rather than in its list.
const seenMapAt = 16

// LogJoiner joins LogEvents by queue id into Records of mail that left.
//
// Its memory is bounded whatever the log: it holds the messages whose
// lines are still coming (MaxPending of them, MaxPendingRecipients
// recipients in all, at most ledger.MaxRecipients in each one's Record
// plus up to a thousand on their way to PastCap). Past a bound it gives up
// the message it has held longest: it emits its Record if the message
// already shows mail leaving (a Record completed later by more recipients
// is merged into it by the ledger), else drops it and counts it in
// Dropped.
type LogJoiner struct {
	// MaxPending bounds the messages held while their lines come in
	// (default 200,000).
	MaxPending int
	// MaxPendingRecipients bounds the recipients held in all pending
	// messages (default 500,000).
	MaxPendingRecipients int
	// Domains, when set, keep only mail whose envelope sender is in one of
	// them or a subdomain (as ledger.InDomains compares them): the ledger is
	// about mail from our domains.
	Domains []string
	// PastCap, if set, receives the recipients past ledger.MaxRecipients
	// of a message that left (its Record keeps the first MaxRecipients, as
	// the milter does), a thousand at a time as they come and the rest
	// before the message's Record: the (sender, recipient) pairs a bounce
	// for one of them is matched by (ledger.RecordPairs). t is the
	// message's time. The slice is the callee's. Without PastCap they are
	// dropped; either way they are counted in Capped.
	PastCap func(sender string, recipients []string, t time.Time)

	pending map[string]*pendingMessage
	fifo    []*pendingMessage // pending messages, oldest first, and done ones not yet dropped
	head    int               // fifo[:head] are dropped
	done    int               // done messages in fifo[head:]
	held    int               // recipients held by pending messages

	// Dropped counts messages given up incomplete (because of a bound, or
	// still queued without a sign of leaving when Flush ran); Skipped
	// counts messages that did not leave or were not from our domains.
	Dropped, Skipped int
	// Capped counts the recipients past ledger.MaxRecipients of the
	// messages emitted (not in their Records), CappedMessages those
	// messages.
	Capped, CappedMessages int
}

type pendingMessage struct {
	rec      ledger.Record
	hasFrom  bool
	leftHere bool // an smtp/lmtp to= with a status that means it left or tried to
	done     bool // removed from pending
	seen     map[string]struct{}
	more     []string // recipients past the cap, on their way to PastCap
	capped   int      // recipients past the cap
}

// Add takes one event and returns the Records it completes (on qmgr's
// "removed", or messages given up because of a bound), possibly none.
func (j *LogJoiner) Add(ev LogEvent) []ledger.Record {
	return j.add(&ev, nil)
}

// add is Add appending to out.
func (j *LogJoiner) add(ev *LogEvent, out []ledger.Record) []ledger.Record {
	if j.pending == nil {
		j.pending = make(map[string]*pendingMessage)
	}
	pm := j.pending[ev.QueueID]
	if pm == nil {
		if ev.Kind == KindRemoved {
			return out
		}
		pm = &pendingMessage{rec: ledger.Record{QueueID: ev.QueueID, Time: ev.Time}}
		j.pending[ev.QueueID] = pm
		j.fifo = append(j.fifo, pm)
	}
	switch ev.Kind {
	case KindMessageID:
		pm.rec.MessageID = ev.Value
	case KindFrom:
		pm.rec.Sender, pm.hasFrom = ev.Value, true
	case KindTo:
		if ev.Service != "smtp" && ev.Service != "lmtp" {
			break
		}
		switch ev.Status {
		case "sent", "deferred", "bounced":
		default:
			return out
		}
		pm.leftHere = true
		j.addRecipient(pm, ev.Value)
	case KindRemoved:
		j.forget(pm)
		return j.complete(pm, out)
	}
	for len(j.pending) > j.maxPending() || j.held > j.maxPendingRecipients() {
		out = j.evictOldest(out)
	}
	return out
}

func (j *LogJoiner) maxPending() int {
	if j.MaxPending <= 0 {
		return defaultMaxPending
	}
	return j.MaxPending
}

func (j *LogJoiner) maxPendingRecipients() int {
	if j.MaxPendingRecipients <= 0 {
		return defaultMaxPendingRecipients
	}
	return j.MaxPendingRecipients
}

// addRecipient adds rcpt to pm's Record, once, or past the cap to the
// recipients on their way to PastCap.
func (j *LogJoiner) addRecipient(pm *pendingMessage, rcpt string) {
	rs := pm.rec.Recipients
	if len(rs) >= ledger.MaxRecipients {
		pm.capped++
		// The pairs of a message that is ours and leaving; qmgr logs the
		// sender before any delivery, so it is known by now.
		if j.PastCap != nil && pm.hasFrom && j.recorded(pm) {
			pm.more = append(pm.more, rcpt)
			j.held++
			if len(pm.more) >= pastCapChunk {
				j.passPastCap(pm)
			}
		}
		return
	}
	if pm.seen != nil {
		if _, dup := pm.seen[rcpt]; dup {
			return
		}
		pm.seen[rcpt] = struct{}{}
	} else {
		for _, r := range rs {
			if r == rcpt {
				return
			}
		}
		if len(rs) >= seenMapAt {
			pm.seen = make(map[string]struct{}, 2*len(rs))
			for _, r := range rs {
				pm.seen[r] = struct{}{}
			}
			pm.seen[rcpt] = struct{}{}
		}
	}
	pm.rec.Recipients = append(rs, rcpt)
	j.held++
}

func (j *LogJoiner) passPastCap(pm *pendingMessage) {
	if len(pm.more) == 0 {
		return
	}
	if !pm.done { // else forget counted them out
		j.held -= len(pm.more)
	}
	j.PastCap(pm.rec.Sender, pm.more, pm.rec.Time)
	pm.more = nil
}

// forget removes pm from the pending messages.
func (j *LogJoiner) forget(pm *pendingMessage) {
	delete(j.pending, pm.rec.QueueID)
	pm.done = true
	j.done++
	j.held -= len(pm.rec.Recipients) + len(pm.more)
	// Done messages at the head of the queue go at once; the others (behind
	// a message that stays, deferred for days) when they are half of it.
	for j.head < len(j.fifo) && j.fifo[j.head].done {
		j.fifo[j.head] = nil
		j.head++
		j.done--
	}
	if live := len(j.fifo) - j.head - j.done; j.head+j.done > 1024 && live < (len(j.fifo)-j.head)/2 || j.head > len(j.fifo)/2 {
		n := 0
		for _, m := range j.fifo[j.head:] {
			if !m.done {
				j.fifo[n] = m
				n++
			}
		}
		clear(j.fifo[n:])
		j.fifo, j.head, j.done = j.fifo[:n], 0, 0
	}
}

// evictOldest gives up the message held longest (see LogJoiner).
func (j *LogJoiner) evictOldest(out []ledger.Record) []ledger.Record {
	for _, pm := range j.fifo[j.head:] {
		if !pm.done {
			j.forget(pm)
			return j.giveUp(pm, out)
		}
	}
	return out
}

// giveUp emits pm's Record if it shows mail leaving, else counts it.
func (j *LogJoiner) giveUp(pm *pendingMessage, out []ledger.Record) []ledger.Record {
	if pm.hasFrom && pm.leftHere {
		return j.complete(pm, out)
	}
	j.Dropped++
	return out
}

// recorded reports whether pm, which has its sender, is mail from our
// domains that the ledger records when it leaves. Postfix's own bounces
// (null sender) are never bounced back.
func (j *LogJoiner) recorded(pm *pendingMessage) bool {
	return pm.rec.Sender != "" && (len(j.Domains) == 0 || ledger.InDomains(pm.rec.Sender, j.Domains))
}

// complete appends pm's Record to out if it is mail that left from our
// domains, and counts it otherwise.
func (j *LogJoiner) complete(pm *pendingMessage, out []ledger.Record) []ledger.Record {
	if !pm.hasFrom || !pm.leftHere || len(pm.rec.Recipients) == 0 {
		if pm.hasFrom && !pm.leftHere {
			j.Skipped++
		}
		return out
	}
	if !j.recorded(pm) {
		j.Skipped++
		return out
	}
	if pm.capped > 0 {
		j.Capped += pm.capped
		j.CappedMessages++
		if j.PastCap != nil {
			j.passPastCap(pm)
		}
	}
	return append(out, pm.rec)
}

// Flush returns the Records of every pending message that already shows mail
// leaving (still queued ones: deferred, or whose "removed" line is in a later
// file) and forgets all pending messages. The others are counted in
// Dropped.
func (j *LogJoiner) Flush() []ledger.Record {
	var out []ledger.Record
	for _, pm := range j.fifo[j.head:] {
		if !pm.done {
			out = j.giveUp(pm, out)
		}
	}
	j.pending, j.fifo, j.head, j.done, j.held = nil, nil, 0, 0, 0
	return out
}
