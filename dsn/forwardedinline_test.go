package dsn

import "testing"

// TestInlineForwardOfABounceReadsTheInnerNotice: a person forwards a
// bounce to the helpdesk inline, under Outlook's underscore line and
// From/Sent/To/Subject block (From: Microsoft Outlook
// <MicrosoftExchange...>) or Gmail's "---------- Forwarded message
// ---------": the inner notice is read, and its failed recipient is the
// record's, never the forwarder or the helpdesk.
func TestInlineForwardOfABounceReadsTheInnerNotice(t *testing.T) {
	for _, c := range []struct{ file, recipient, status string }{
		{"nested-dsn-inline-01.eml", "purchasing@brennan-engineering.example", "5.1.10"},
		{"nested-dsn-inline-02.eml", "entries@tidewater-regatta.example", "5.1.1"},
	} {
		r := parseBounceFixture(t, c.file)
		if r.Kind != KindBounce || len(r.Recipients) != 1 {
			t.Errorf("%s: kind %s recipients %+v, want a bounce of one recipient", c.file, r.Kind, r.Recipients)
			continue
		}
		if rc := r.Recipients[0]; rc.Address != c.recipient || rc.Status != c.status {
			t.Errorf("%s: recipient %s status %s, want %s %s", c.file, rc.Address, rc.Status, c.recipient, c.status)
		}
	}
}

// TestInlineForwardOfAPersonsMessageIsNoBounce: the header block of an
// inline forward that is a person's (a reply whose subject says
// "rejected"), not a notice's, is not read as a bounce.
func TestInlineForwardOfAPersonsMessageIsNoBounce(t *testing.T) {
	r := parseBounceFixture(t, "nonbounce-forwarded-thread-01.eml")
	if r.Kind != KindNone || len(r.Recipients) != 0 {
		t.Errorf("kind %s recipients %+v, want no report", r.Kind, r.Recipients)
	}
}

// TestForwardedHeaderBlocksNeedAFromAndASubject: a block of an inline
// forward is a run of header lines at the start of a line with a From and a
// Subject, in Outlook's, Thunderbird's or Gmail's order; a lone "From:"
// line or a block without a Subject is none.
func TestForwardedHeaderBlocksNeedAFromAndASubject(t *testing.T) {
	for text, want := range map[string]int{
		"hi\n____\nFrom: A <a@x.example>\nSent: Monday\nTo: b@y.example\nSubject: Undeliverable: x\n\nbody\n":        1,
		"-------- Forwarded Message --------\nSubject: Returned mail\nDate: Mon\nFrom: MAILER-DAEMON\nTo: b\n\nbody": 1,
		"From: A <a@x.example>\nwrote something\nSubject: later\n":                                                   0,
		"From: A <a@x.example>\nSent: Monday\nTo: b@y.example\n\nbody\n":                                             0,
		"": 0,
	} {
		lower := []byte(text)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		if got := len(forwardedHeaderBlocks([]byte(text), lower)); got != want {
			t.Errorf("forwardedHeaderBlocks(%q): %d blocks, want %d", text, got, want)
		}
	}
}
