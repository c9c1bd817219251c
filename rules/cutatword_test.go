package rules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutAtWordKeepsShortTextAndCutsLongTextAtASpace(t *testing.T) {
	if got := cutAtWord("mailbox full", 20); got != "mailbox full" {
		t.Errorf("short text: got %q, want it unchanged", got)
	}
	if got := cutAtWord("the mailbox of the recipient is full, try later", 30); got != "the mailbox of the recipient..." {
		t.Errorf("long text: got %q, want a cut after a whole word", got)
	}
}

func TestCutAtWordNeverSplitsACharacter(t *testing.T) {
	s := strings.Repeat("é", 40) // no space: the cut falls inside the text
	got := cutAtWord(s, 31)
	if !utf8.ValidString(got) {
		t.Fatalf("cut %q is not valid UTF-8", got)
	}
	if !strings.HasSuffix(got, "...") || len(got) > 31+len("...") {
		t.Errorf("got %q (%d bytes), want at most 31 bytes of text and \"...\"", got, len(got))
	}
}
