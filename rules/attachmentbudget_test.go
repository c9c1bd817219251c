package rules

import (
	"strings"
	"testing"
)

func TestTheAttachmentBudgetIsThreeQuartersOfASizeLimit(t *testing.T) {
	for limit, want := range map[string]string{
		"19.5 MB":                "14 MB",
		"10 MB (10485760 bytes)": "7.5 MB",
		"25 MB":                  "18 MB",
		"20480 KB":               "15360 KB",
		"19,5 MB":                "14 MB",
		"52428800 bytes":         "37 MB",
		"2 GB":                   "1.5 GB",
		"100":                    "", // a number of recipients, no size
		"":                       "",
		"MB":                     "",
	} {
		if got := attachmentBudget(limit); got != want {
			t.Errorf("attachmentBudget(%q) = %q, want %q", limit, got, want)
		}
	}
}

func TestTheSizeLimitFixSaysAttachmentsGrowWhenSent(t *testing.T) {
	e := builtin(t)
	for reply, want := range map[string]string{
		"552 5.3.4 Message size exceeds fixed maximum message size of 19.5 MB": "about 14 MB",
		"552 5.3.4 Error: message file too big":                                "three quarters",
		"552 5.2.3 Message exceeds maximum size limit of 10485760 bytes":       "about 7.5 MB",
	} {
		c := e.Classify(Input{Action: "failed", Diagnostic: reply, Recipient: "a@example.net", Command: "DATA"})
		if c.Reason != ReasonMesgTooBig && c.Reason != ReasonExceedLimit {
			t.Errorf("%q: reason %s, want a size limit", reply, c.Reason)
			continue
		}
		if !strings.Contains(c.Fix, want) || !strings.Contains(c.Fix, "grow by about a third") {
			t.Errorf("%q: fix %q, want the encoding overhead and %q", reply, c.Fix, want)
		}
	}
}

func TestTheSizeLimitFixOfARealNoticeCountsTheEncoding(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"size-limit-fix-01.eml": "keep the attached files to about 14 MB in total",
		"size-limit-fix-02.eml": "well under the limit, at about three quarters of it",
	} {
		rd := explainFixture(t, e, file)
		if rd.Reason != ReasonMesgTooBig || !strings.Contains(rd.Fix, want) {
			t.Errorf("%s: reason %s, fix %q; want mesgtoobig whose fix says %q", file, rd.Reason, rd.Fix, want)
		}
	}
}
