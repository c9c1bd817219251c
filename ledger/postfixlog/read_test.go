package postfixlog

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog/postfixlogtest"
)

// Every message of a generated day that left from the domain is read back
// as the generator wrote it, whatever the time stamp form, compression and
// number of parsing goroutines, and nothing else is.
func TestReadLogFindsEveryMessageThatLeft(t *testing.T) {
	for _, rfc3339 := range []bool{false, true} {
		want := map[string]ledger.Record{}
		var log bytes.Buffer
		sum, err := postfixlogtest.Write(&log, postfixlogtest.Options{
			Messages: 6000, Seed: 3, RFC3339: rfc3339, End: logNow, Location: time.UTC,
			Expect: func(r ledger.Record) { want[r.QueueID] = r },
		})
		if err != nil {
			t.Fatal(err)
		}
		if log.Len() < 3*blockSize {
			t.Fatalf("the log is %d bytes: want several blocks of %d", log.Len(), blockSize)
		}
		for _, compress := range []bool{false, true} {
			input := log.Bytes()
			if compress {
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write(input)
				zw.Close()
				input = b.Bytes()
			}
			for _, procs := range []int{1, 4} {
				name := fmt.Sprintf("rfc3339=%v gzip=%v procs=%d", rfc3339, compress, procs)
				old := runtime.GOMAXPROCS(procs)
				j := LogJoiner{Domains: []string{"example.org"}}
				got, st := readAll(t, &j, input)
				runtime.GOMAXPROCS(old)
				if st.Lines != sum.Lines || st.Malformed != 0 || st.Used+st.Ignored != st.Lines {
					t.Errorf("%s: stats %+v, want %d lines, none malformed", name, st, sum.Lines)
				}
				if len(got) != len(want) {
					t.Errorf("%s: %d records, want %d", name, len(got), len(want))
				}
				bad := 0
				for _, r := range got {
					if w, ok := want[r.QueueID]; !ok || !reflect.DeepEqual(r.Recipients, w.Recipients) ||
						r.MessageID != w.MessageID || r.Sender != w.Sender || !r.Time.Equal(w.Time) {
						if bad++; bad <= 3 {
							t.Errorf("%s: record\n got  %+v\n want %+v", name, r, w)
						}
					}
				}
			}
		}
	}
}

// Lines are whole whatever block they straddle: a line of exactly 64 KiB
// is read, one byte more is malformed, at every offset around a block's
// end.
func TestReadLogLinesAcrossBlocks(t *testing.T) {
	const prefix = "Nov 29 21:00:00 mx postfix/cleanup[1]: ABCDEF123: message-id=<"
	longest := prefix + strings.Repeat("x", maxLogLine-len(prefix)-1) + ">"
	tooLong := prefix + strings.Repeat("x", maxLogLine-len(prefix)) + ">"
	sample, err := ReadLog(strings.NewReader(sampleLog), &LogJoiner{}, logNow, time.UTC, func(ledger.Record) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	sampleUsed := sample.Used
	for _, shift := range []int{-70000, -1000, -2, -1, 0, 1, 2, 1000} {
		var b strings.Builder
		// Filler up to near the end of the first block.
		filler := "Nov 29 21:00:00 mx dovecot[1]: imap-login: Login: user=<alice>\n"
		for b.Len()+len(filler) < blockSize+shift {
			b.WriteString(filler)
		}
		fillers := strings.Count(b.String(), "\n")
		b.WriteString(longest + "\n")
		b.WriteString(tooLong + "\r\n")
		b.WriteString(strings.Repeat("y", 3*blockSize) + "\n") // longer than a block
		b.WriteString(sampleLog)
		b.WriteString("Nov 29 21:50:00 mx postfix/qmgr[5374]: 3B7D4984286: removed") // no line end
		var j LogJoiner
		var got []ledger.Record
		st, err := ReadLog(strings.NewReader(b.String()), &j, logNow, time.UTC, func(r ledger.Record) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		wantLines := fillers + 3 + strings.Count(sampleLog, "\n") + 1
		if st.Lines != wantLines || st.Malformed != 2+2 || st.Used != sampleUsed+2 {
			t.Errorf("shift %d: stats %+v, want %d lines, 4 malformed (two too long, sampleLog's two), the 64 KiB line used", shift, st, wantLines)
		}
		if len(got) != 2 || got[0].MessageID != "m1@example.org" {
			t.Errorf("shift %d: records %+v, want sampleLog's two completed ones", shift, got)
		}
	}
}

// A message to more recipients than a record keeps: the record has the
// first MaxRecipients, in order, once each; the others go to PastCap, in
// order, a thousand at a time and all before the record; the count says so.
// A message from another domain or from the null sender passes nothing on.
func TestLogJoinerCapsRecipients(t *testing.T) {
	var b strings.Builder
	line := func(qid, text string) {
		b.WriteString("Nov 29 21:00:00 mx postfix/" + text[:strings.IndexByte(text, ' ')] + "[1]: " + qid + ": " + text[strings.IndexByte(text, ' ')+1:] + "\n")
	}
	const n = ledger.MaxRecipients + 2500
	for _, m := range []struct{ qid, from string }{{"AAAAAA0001", "list@example.org"}, {"AAAAAA0002", "list@elsewhere.test"}, {"AAAAAA0003", ""}} {
		line(m.qid, "cleanup message-id=<"+m.qid+"@example.org>")
		line(m.qid, "qmgr from=<"+m.from+">, size=1, nrcpt=9 (queue active)")
		for i := range n {
			line(m.qid, fmt.Sprintf("smtp to=<r%d@remote.test>, relay=mx[192.0.2.1]:25, dsn=2.0.0, status=sent (ok)", i))
			if i%7 == 0 { // the same recipient again: deferred, then sent
				line(m.qid, fmt.Sprintf("smtp to=<r%d@remote.test>, relay=mx[192.0.2.1]:25, dsn=2.0.0, status=sent (ok)", i/2))
			}
		}
		line(m.qid, "qmgr removed")
	}
	var events []string
	var past []string
	j := LogJoiner{Domains: []string{"example.org"}, PastCap: func(sender string, rcpts []string, tm time.Time) {
		if sender != "list@example.org" || !tm.Equal(time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)) || len(rcpts) > pastCapChunk {
			t.Errorf("PastCap(%s, %d recipients, %v), want list@example.org, at most %d, the message's time", sender, len(rcpts), tm, pastCapChunk)
		}
		past = append(past, rcpts...)
		events = append(events, "pairs")
	}}
	var got []ledger.Record
	_, err := ReadLog(strings.NewReader(b.String()), &j, logNow, time.UTC, func(r ledger.Record) error {
		got = append(got, r)
		events = append(events, "record")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].QueueID != "AAAAAA0001" {
		t.Fatalf("records %+v, want the list's only", got)
	}
	var wantHead []string
	for i := range ledger.MaxRecipients {
		wantHead = append(wantHead, fmt.Sprintf("r%d@remote.test", i))
	}
	if !slices.Equal(got[0].Recipients, wantHead) {
		t.Errorf("the record keeps %d recipients (%q...), want r0 to r%d", len(got[0].Recipients), got[0].Recipients[:3], ledger.MaxRecipients-1)
	}
	for i := ledger.MaxRecipients; i < n; i++ {
		if !slices.Contains(past, fmt.Sprintf("r%d@remote.test", i)) {
			t.Fatalf("r%d (past the cap) did not reach PastCap", i)
		}
	}
	if events[len(events)-1] != "record" || !slices.Contains(events, "pairs") {
		t.Errorf("order %v, want the pairs, then the record", events)
	}
	if j.CappedMessages != 1 || j.Capped != len(past) || j.Capped < n-ledger.MaxRecipients {
		t.Errorf("Capped %d in %d messages, want %d (the recipients passed on) in 1", j.Capped, j.CappedMessages, len(past))
	}
	if j.Skipped != 2 {
		t.Errorf("Skipped %d, want 2 (another domain, the null sender)", j.Skipped)
	}
}

// The joiner's memory stays bounded: done messages behind one that stays
// queued (deferred for days) are let go, and past MaxPendingRecipients the
// oldest message is given up.
func TestLogJoinerMemoryIsBounded(t *testing.T) {
	at := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	ev := func(qid string, kind EventKind, service, value string) LogEvent {
		return LogEvent{Time: at, Service: service, QueueID: qid, Kind: kind, Value: value, Status: "sent"}
	}
	j := LogJoiner{MaxPendingRecipients: 5000}
	// One message that never ends, then 100,000 that do.
	j.Add(ev("STAYS00001", KindFrom, "qmgr", "a@example.org"))
	j.Add(ev("STAYS00001", KindTo, "smtp", "b@remote.test"))
	emitted := 0
	for i := range 100000 {
		qid := fmt.Sprintf("%010X", i)
		j.Add(ev(qid, KindFrom, "qmgr", "a@example.org"))
		j.Add(ev(qid, KindTo, "smtp", "b@remote.test"))
		emitted += len(j.Add(ev(qid, KindRemoved, "qmgr", "")))
	}
	if emitted != 100000 {
		t.Errorf("%d records, want 100000", emitted)
	}
	if len(j.pending) != 1 || len(j.fifo)-j.head > 2048 {
		t.Errorf("pending %d, queue %d: want the one message that stays, and a short queue", len(j.pending), len(j.fifo)-j.head)
	}
	// Messages that gather recipients without end: the oldest goes.
	for i := range 20 {
		qid := fmt.Sprintf("BIG%07d", i)
		j.Add(ev(qid, KindFrom, "qmgr", "a@example.org"))
		for k := range 1000 {
			j.Add(ev(qid, KindTo, "smtp", fmt.Sprintf("r%d@remote.test", k)))
		}
	}
	if j.held > 5000 {
		t.Errorf("%d recipients held, want at most MaxPendingRecipients (5000)", j.held)
	}
	if got := j.Flush(); len(got) == 0 || len(j.pending) != 0 || j.held != 0 {
		t.Errorf("Flush: %d records, %d pending, %d held", len(got), len(j.pending), j.held)
	}
}
