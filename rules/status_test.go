package rules

import (
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestStatusStringIsTheCodeWrittenOut: statusString writes the code as
// Status.String does, whatever the text it was read from, and returns a
// text already written so as it is, without a copy.
func TestStatusStringIsTheCodeWrittenOut(t *testing.T) {
	for _, c := range []struct{ src, found string }{{"5.1.1", "5.1.1"}, {"4.7.650", "4.7.650"}, {"", "5.7.1"}, {"x 2.0.0", "2.0.0"}} {
		st, ok := statusOf(c.found)
		if !ok {
			t.Fatalf("statusOf(%q) fails", c.found)
		}
		if got, want := statusString(st, c.src), st.String(); got != want {
			t.Errorf("statusString(%v, %q) = %q, want %q", st, c.src, got, want)
		}
	}
	st := smtpcode.Status{Class: smtpcode.ClassPermanent, Subject: 1, Detail: 1}
	if n := testing.AllocsPerRun(100, func() { _ = statusString(st, "5.1.1") }); n != 0 {
		t.Errorf("statusString of a code written so already: %v allocations, want 0", n)
	}
	if got := statusString(smtpcode.Status{}, "5.1.1"); got != "" {
		t.Errorf("statusString of no status = %q, want empty", got)
	}
}
