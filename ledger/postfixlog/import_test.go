package postfixlog_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/ledger/postfixlog"
)

// openBolt opens a fresh bbolt ledger, closed at the end of the test.
func openBolt(t *testing.T) ledger.Ledger {
	t.Helper()
	led, err := ledger.OpenBolt(filepath.Join(t.TempDir(), "ledger.db"), ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	return led
}

// logWriter writes Postfix log lines stamped at one time, as syslog does.
type logWriter struct {
	bytes.Buffer
	ts string
}

func newLogWriter(at time.Time) *logWriter {
	return &logWriter{ts: at.Format("Jan _2 15:04:05")}
}

func (w *logWriter) line(prog, format string, args ...any) {
	fmt.Fprintf(w, "%s mx postfix/%s: %s\n", w.ts, prog, fmt.Sprintf(format, args...))
}

// message logs a message from sender that left to each of rcpts (none:
// delivered locally), with its "removed" line when done.
func (w *logWriter) message(qid, msgid, sender string, rcpts []string, done bool) {
	w.line("cleanup[1]", "%s: message-id=<%s>", qid, msgid)
	w.line("qmgr[2]", "%s: from=<%s>, size=900, nrcpt=%d (queue active)", qid, sender, max(len(rcpts), 1))
	for _, r := range rcpts {
		w.line("smtp[3]", "%s: to=<%s>, relay=mx.remote.test[192.0.2.1]:25, delay=0.2, dsn=2.0.0, status=sent (250 ok)", qid, r)
	}
	if len(rcpts) == 0 {
		w.line("local[4]", "%s: to=<alice@example.org>, relay=local, delay=0.1, dsn=2.0.0, status=sent (delivered to mailbox)", qid)
	}
	if done {
		w.line("qmgr[2]", "%s: removed", qid)
	}
}

// rcpts returns n recipient addresses.
func rcpts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("user%d@remote.test", i+1)
	}
	return out
}

// The summary's JSON is the output of "ndrmilter ledger import --json" and
// the answer of the API, key for key and in this order: scripts read it.
func TestSummaryJSONKeys(t *testing.T) {
	b, err := json.Marshal(postfixlog.Summary{New: 1, Updated: 2, Known: 3, TooOld: 4, Errors: 5, Skipped: 6, Incomplete: 7,
		Lines: 8, Malformed: 9, DryRun: true, CappedMessages: 10, CappedRecipients: 11})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"new":1,"updated":2,"already_known":3,"older_than_retention":4,"errors":5,"skipped_not_leaving":6,"incomplete":7,` +
		`"lines":8,"malformed_lines":9,"dry_run":true,"capped_messages":10,"capped_recipients":11}`
	if string(b) != want {
		t.Errorf("Summary JSON\n got %s\nwant %s", b, want)
	}
}

// An import counts each message once, in the count that says what it did
// to the ledger, and what it read; a dry run counts the same and writes
// nothing; the same log again adds nothing.
func TestImportCountsWhatItDid(t *testing.T) {
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	w := newLogWriter(now)
	w.message("1A0000000A", "new.1@example.org", "alice@example.org", []string{"bob@remote.test"}, true)
	w.message("1A0000000B", "list.1@example.org", "list@example.org", rcpts(ledger.MaxRecipients+25), true)
	w.message("1A0000000C", "local.1@example.org", "alice@example.org", nil, true)                     // stays here
	w.message("1A0000000D", "other.1@example.net", "eve@example.net", []string{"x@remote.test"}, true) // another domain
	w.line("qmgr[2]", "1A0000000E: from=<alice@example.org>, size=900, nrcpt=1 (queue active)")        // never leaves, never removed
	w.WriteString("not a log line\n")
	old := newLogWriter(now.Add(-10 * 24 * time.Hour))
	old.message("1A0000000F", "old.1@example.org", "alice@example.org", []string{"bob@remote.test"}, true)
	log := old.String() + w.String()
	opts := postfixlog.ImportOptions{Domains: []string{"example.org"}, Cutoff: now.Add(-7 * 24 * time.Hour)}

	want := postfixlog.Summary{New: 2, TooOld: 1, Skipped: 2, Incomplete: 1, Lines: strings.Count(log, "\n"), Malformed: 1,
		CappedMessages: 1, CappedRecipients: 25}
	led := openBolt(t)
	dry := opts
	dry.DryRun = true
	wantDry := want
	wantDry.DryRun = true
	if sum, err := postfixlog.Import(t.Context(), led, strings.NewReader(log), dry); err != nil || sum != wantDry {
		t.Errorf("dry run:\n got %+v, %v\nwant %+v", sum, err, wantDry)
	}
	if st, err := led.Stats(t.Context()); err != nil || st.Records != 0 {
		t.Errorf("a dry run wrote to the ledger: %+v, %v", st, err)
	}

	if sum, err := postfixlog.Import(t.Context(), led, strings.NewReader(log), opts); err != nil || sum != want {
		t.Errorf("import:\n got %+v, %v\nwant %+v", sum, err, want)
	}
	r, err := led.ByMessageID(t.Context(), "list.1@example.org")
	if err != nil || len(r.Recipients) != ledger.MaxRecipients {
		t.Errorf("the list's record: %d recipients, %v; want the first %d", len(r.Recipients), err, ledger.MaxRecipients)
	}
	last := fmt.Sprintf("user%d@remote.test", ledger.MaxRecipients+25)
	if ok, err := led.SentTo(t.Context(), "list@example.org", last); !ok || err != nil {
		t.Errorf("SentTo(list, %s) = %v, %v; want true: the recipients past the cap are kept as pairs", last, ok, err)
	}
	for _, id := range []string{"local.1@example.org", "other.1@example.net", "old.1@example.org"} {
		if _, err := led.ByMessageID(t.Context(), id); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("<%s> is in the ledger (%v): it did not leave from our domain within the retention period", id, err)
		}
	}

	want.New, want.Known = 0, 2
	if sum, err := postfixlog.Import(t.Context(), led, strings.NewReader(log), opts); err != nil || sum != want {
		t.Errorf("the same log again:\n got %+v, %v\nwant %+v", sum, err, want)
	}
}

// A message whose lines span a rotation is joined across the logs added in
// turn, the older plain and the newer gzip-compressed, and the messages of
// one Message-ID in several queue files (an after-queue filter, a re-send)
// all end up in the record of that Message-ID.
func TestImportJoinsLogsAndQueueFilesOfOneMessage(t *testing.T) {
	now := time.Now().Add(-time.Hour).Truncate(time.Second)
	first, second := newLogWriter(now), newLogWriter(now)
	first.message("2B0000000A", "rotated@example.org", "carol@example.org", []string{"dave@remote.test"}, false)
	second.line("smtp[3]", "2B0000000A: to=<erin@remote.test>, relay=mx.remote.test[192.0.2.1]:25, delay=300, dsn=2.0.0, status=sent (250 ok)")
	second.line("qmgr[2]", "2B0000000A: removed")
	const queueFiles = 8
	var want []string
	for q := range queueFiles {
		rcpt := fmt.Sprintf("rcpt%d@remote.test", q)
		want = append(want, rcpt)
		w := first
		if q%2 == 1 {
			w = second
		}
		w.message(fmt.Sprintf("3C000000%02d", q), "split@example.org", "alice@example.org", []string{rcpt}, true)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(second.Bytes())
	zw.Close()

	led := openBolt(t)
	imp := postfixlog.NewImporter(t.Context(), led, postfixlog.ImportOptions{})
	for i, log := range [][]byte{first.Bytes(), gz.Bytes()} {
		if st, err := imp.AddLog(bytes.NewReader(log)); err != nil || st.Malformed != 0 || st.Lines == 0 {
			t.Fatalf("log %d: %+v, %v", i+1, st, err)
		}
	}
	sum := imp.Finish()
	if sum.New != 2 || sum.Updated != queueFiles-1 || sum.Errors != 0 || sum.Incomplete != 0 {
		t.Errorf("summary %+v: want 2 new, %d updated, no error, nothing incomplete", sum, queueFiles-1)
	}
	if again := imp.Finish(); again != sum {
		t.Errorf("Finish again: %+v, want the same summary %+v", again, sum)
	}
	r, err := led.ByMessageID(t.Context(), "rotated@example.org")
	if err != nil || strings.Join(r.Recipients, ",") != "dave@remote.test,erin@remote.test" {
		t.Errorf("the message across the rotation: %+v, %v; want dave and erin", r, err)
	}
	r, err = led.ByMessageID(t.Context(), "split@example.org")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !slices.Contains(r.Recipients, w) {
			t.Errorf("recipient %s of <split@example.org> lost: the record has %q", w, r.Recipients)
		}
	}
}

// Records a failing ledger cannot take are counted and reported, each
// failed write once; once more than a hundred failed, no more logs are
// read.
func TestImportCountsFailedWritesAndStopsOnAFailingLedger(t *testing.T) {
	led := openBolt(t)
	led.Close()
	now := time.Now().Add(-time.Hour)
	w := newLogWriter(now)
	const n = 1200 // the first batch goes to the ledger while the log is read
	for i := range n {
		w.message(fmt.Sprintf("4D%08X", i), fmt.Sprintf("m%d@example.org", i), "alice@example.org", []string{"bob@remote.test"}, true)
	}
	var mu sync.Mutex
	var reported []error
	imp := postfixlog.NewImporter(t.Context(), led, postfixlog.ImportOptions{OnError: func(err error) {
		mu.Lock()
		reported = append(reported, err)
		mu.Unlock()
	}})
	if _, err := imp.AddLog(bytes.NewReader(w.Bytes())); err != nil {
		t.Fatalf("the first log: %v; want it read (its records fail on their own)", err)
	}
	sum := imp.Finish()
	if sum.Errors != n || sum.New != 0 {
		t.Errorf("summary %+v: want %d errors, nothing new", sum, n)
	}
	if len(reported) == 0 || !strings.Contains(reported[0].Error(), "records from m0@example.org (queue id 4D00000000) on: ") {
		t.Errorf("reported errors: %v; want the first batch's, naming where it starts", reported)
	}

	imp = postfixlog.NewImporter(t.Context(), led, postfixlog.ImportOptions{})
	imp.AddLog(bytes.NewReader(w.Bytes()))
	// The writer counts the errors of the first batch as it writes it,
	// beside the reading: wait for them.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := imp.AddLog(strings.NewReader("")); errors.Is(err, postfixlog.ErrLedgerFailing) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("AddLog after a batch of failed writes: %v; want ErrLedgerFailing", err)
		}
	}
	imp.Finish()
}

// An import whose context is done stops reading and writing: it does not
// read the rest of a log that never ends.
func TestImportStopsWithItsContext(t *testing.T) {
	led := openBolt(t)
	now := time.Now().Add(-time.Hour)
	w := newLogWriter(now)
	w.message("5E0000000A", "before@example.org", "alice@example.org", []string{"bob@remote.test"}, true)
	ctx, cancel := context.WithCancel(t.Context())
	endless := &endlessLog{head: w.Bytes(), cancel: cancel}
	done := make(chan error, 1)
	var sum postfixlog.Summary
	go func() {
		var err error
		sum, err = postfixlog.Import(ctx, led, endless, postfixlog.ImportOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Import of an endless log, cancelled: %v; want context.Canceled", err)
		}
		if sum.Lines == 0 || sum.Errors != 0 {
			t.Errorf("summary %+v: want the lines read counted, no error", sum)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Import did not stop when its context was cancelled")
	}
}

// endlessLog is head, then lines of another program, forever; it cancels
// once it has given a few MB.
type endlessLog struct {
	head   []byte
	n      int
	cancel func()
}

func (e *endlessLog) Read(p []byte) (int, error) {
	if len(e.head) > 0 {
		n := copy(p, e.head)
		e.head = e.head[n:]
		return n, nil
	}
	line := "Nov 29 21:14:24 mx sshd[9]: Connection closed by 192.0.2.9 port 22\n"
	n := 0
	for n+len(line) <= len(p) {
		n += copy(p[n:], line)
	}
	if e.n += n; e.n > 4<<20 {
		e.cancel()
	}
	return n, nil
}
