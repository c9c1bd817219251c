package postfixlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin wherever the tests run

	"github.com/ndrmilter/ndrmilter/ledger/postfixlog/postfixlogtest"
)

// trickyLines are lines at the edges of the syslog forms, for the scanner
// to read as the regular expressions did.
var trickyLines = []string{
	"Nov 29 21:14:24 mx postfix/qmgr[]: ABCDEF123: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[12]x: ABCDEF123: removed",
	"Nov 29 21:14:24 mx [123]: ABCDEF123: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1][2]: ABCDEF123: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]:ABCDEF123: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]:\tABCDEF123: removed",
	"Nov 29 21:14:24 mx\tpostfix/qmgr[1]: ABCDEF123: removed",
	"Nov 29 21:14:24  mx postfix/qmgr[1]: ABCDEF123: removed",
	"Nov   29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"Nov 123 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"Nov 0 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"Feb 31 21:14:60 mx postfix/qmgr[1]: ABCDEF123: removed",
	"nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed\r",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed\r\nNov 29",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: remo\x00ved",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDE: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: 4Q3JfN1Kx5z9sH7: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: 4Q3JfN1Kx5zAsH7: removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123:  removed",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: from=<>, size=1",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: from=<A\xffB@X.ORG>, size=1",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: from=<Ünïcode@Exämple.ORG>",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: from=<a<b@x>",
	"Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: to=<a@x>, status=sent",
	"Nov 29 21:14:24 mx postfix/smtp[1]: ABCDEF123: to=<a@x>, status=, status=Sent, status=sent (ok)",
	"Nov 29 21:14:24 mx postfix/smtp[1]: ABCDEF123: to=<a@x>,, status=x",
	"Nov 29 21:14:24 mx postfix/smtp[1]: ABCDEF123: to=<a@x> status=sent",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id=",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id=<a<b>",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id= <x> ",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id=x\ty z",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id=\u00a0<x>\u00a0",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id=<\u00a0x\u2028>",
	"Nov 29 21:14:24 mx postfix/cleanup[1]: ABCDEF123: message-id=\u00a0x\u00a0",
	"Nov 29 21:14:24 mx postfixqmgr[1]: ABCDEF123: removed",
	"Nov 29 21:14:24 mx postfix/[1]: ABCDEF123: to=<a@x>, status=sent",
	"<13>Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"<13>1 2026-11-29T21:14:24Z mx postfix/qmgr[1]: ABCDEF123: removed",
	"<1234>Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"<>Nov 29 21:14:24 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24Z mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24.1Z mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24.123456789123+01:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24.+01:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24+0530 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24-05:3 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:24+25:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-11-29T21:14:60+00:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-02-30T21:14:24+00:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-03-29T02:30:00+02:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"2026-13-29T21:14:24+00:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"Mar 29 02:30:00 mx postfix/qmgr[1]: ABCDEF123: removed",
	"Oct 25 02:30:00 mx postfix/qmgr[1]: ABCDEF123: removed",
}

func mustLoadLocation(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatalf("loading %s: %v", name, err)
	}
	return loc
}

// disagreement returns how ParseLogLine and the regular expressions read
// line differently, or "".
func disagreement(line string, loc *time.Location) string {
	got, gerr := ParseLogLine(line, logNow, loc)
	want, werr := parseLogLineRegexp(line, logNow, loc)
	class := func(err error) string {
		switch {
		case err == nil:
			return "an event"
		case errors.Is(err, ErrNotPostfix):
			return "ErrNotPostfix"
		}
		return "a malformed-line error"
	}
	if class(gerr) != class(werr) {
		return fmt.Sprintf("%q (%s): scanner gives %s (%v), regexps %s (%v)", line, loc, class(gerr), gerr, class(werr), werr)
	}
	if werr != nil {
		return ""
	}
	gt, wt := got.Time.Format(time.RFC3339Nano), want.Time.Format(time.RFC3339Nano)
	got.Time, want.Time = time.Time{}, time.Time{}
	if gt != wt || got != want {
		return fmt.Sprintf("%q (%s):\n scanner %s %+v\n regexps %s %+v", line, loc, gt, got, wt, want)
	}
	return ""
}

func TestScannerAgreesWithRegexps(t *testing.T) {
	berlin := mustLoadLocation(t, "Europe/Berlin")
	lines := append([]string(nil), trickyLines...)
	for _, rfc3339 := range []bool{false, true} {
		var log bytes.Buffer
		if _, err := postfixlogtest.Write(&log, postfixlogtest.Options{Messages: 3000, Seed: 9, RFC3339: rfc3339, End: logNow, Location: berlin}); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(&log)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
	}
	bad := 0
	for _, l := range lines {
		for _, loc := range []*time.Location{time.UTC, berlin} {
			if msg := disagreement(l, loc); msg != "" {
				if bad++; bad <= 10 {
					t.Error(msg)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines read differently", bad, 2*len(lines))
	}
}
