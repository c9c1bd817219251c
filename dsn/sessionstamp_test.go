package dsn

import "testing"

func TestTheNextLinesTimeStampIsCutFromAQuotedReply(t *testing.T) {
	for in, want := range map[string]string{
		// MDaemon's session transcript, each line led by its time.
		"550 5.1.1 <a@example.net>: User unknown Mon 2025-11-03 09:12:39.539:": "550 5.1.1 <a@example.net>: User unknown",
		"550 5.1.1 User unknown\n Tue 2024-06-04 10:00:01.002: ":               "550 5.1.1 User unknown",
		// A bracketed date and time, and an ISO 8601 one.
		"554 5.7.1 Rejected [2024-06-04 10:00:01]":     "554 5.7.1 Rejected",
		"554 5.7.1 Rejected [04.06.2024 10:00:01]:":    "554 5.7.1 Rejected",
		"451 4.7.1 Try later 2024-06-04T10:00:01.123Z": "451 4.7.1 Try later",
		"550 No such user 6/4/2024 10:00:01 AM":        "550 No such user",
		"550 No such user [Tue, 6/4/2024 10:00:01 PM]": "550 No such user",
	} {
		if got := trailingStamp(in); got != want {
			t.Errorf("trailingStamp(%q) = %q, want %q", in, got, want)
		}
	}
	// What is no time stamp of the transcript is the reply's own.
	for _, in := range []string{
		"550 5.1.1 User unknown",
		"421 4.4.2 Connection timed out after 10:00",                                  // a clock without a date
		"550 5.7.1 Listed since 2024-06-04",                                           // a date without a clock
		"2024-06-04 10:00:01",                                                         // nothing else
		"554 5.7.1 Rejected [2024-06-04 10:00:01",                                     // brackets not closed
		"554 5.7.1 Rejected 2024-06-04 10:00:01]",                                     // nor opened
		"550 5.1.1 Unknown [BN8NAM11FT045 2024-10-08T09:26:44.512Z 08DCE6A1B2C3D4E5]", // a server's own trace, not a time alone
	} {
		if got := trailingStamp(in); got != in {
			t.Errorf("trailingStamp(%q) = %q, want it unchanged", in, got)
		}
	}
}
