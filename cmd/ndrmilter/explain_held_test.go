package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A list's moderation notice that names no list still says who decides and
// what to do: a held post is no failure, but its moderator must act.
func TestExplainHeldPostWithoutANamedListShowsTheModeratorAndTheFix(t *testing.T) {
	f := filepath.Join(t.TempDir(), "held.eml")
	msg := "From: LISTSERV@LISTS.EXAMPLE.EDU\r\nTo: me@example.com\r\nSubject: Your posting to NURSING\r\nReturn-Path: <>\r\n" +
		"Content-Type: text/plain\r\n\r\nYour message has been submitted to the moderator of the NURSING list for approval.\r\n"
	if err := os.WriteFile(f, []byte(msg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, rc := runExplainArgs(t, "", f)
	if rc != 0 {
		t.Fatalf("exit %d: %s", rc, errOut)
	}
	for _, want := range []string{"autoreply (list-held)", "moderator", "the owner of the recipient group", "Do not send it again"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "out-of-office") || strings.Contains(out, "nothing failed") || strings.Contains(out, "LISTSERV@") {
		t.Errorf("output reads the hold as a vacation reply or names the robot:\n%s", out)
	}
}
