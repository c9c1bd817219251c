package main

import (
	"strings"
	"testing"
)

// TestWrapLinesBreaksJapaneseWithinWidth: Japanese has no spaces, so a
// sentence must still break into lines of at most n columns, and no line may
// start with closing punctuation.
func TestWrapLinesBreaksJapaneseWithinWidth(t *testing.T) {
	text := "宛先のメールサーバーがこのメッセージを拒否しました。送信者のドメインの管理者は、「SPF」と「DKIM」の設定を確認してください。"
	lines := wrapLines(text, 30)
	if len(lines) < 4 {
		t.Fatalf("got %d lines, want the sentence cut into at least 4: %q", len(lines), lines)
	}
	for _, l := range lines {
		if c := columns(l); c > 30 {
			t.Errorf("line %q is %d columns, want at most 30", l, c)
		}
		if r := []rune(l)[0]; closing(r) {
			t.Errorf("line %q starts with closing punctuation", l)
		}
		if r := []rune(l); opening(r[len(r)-1]) {
			t.Errorf("line %q ends with opening punctuation", l)
		}
	}
	if got := strings.Join(lines, ""); got != text {
		t.Errorf("joined lines lost or added text:\n got %q\nwant %q", got, text)
	}
}

// TestWrapLinesBreaksEnglishAtSpaces: words are never cut, and a word longer
// than the width stands alone.
func TestWrapLinesBreaksEnglishAtSpaces(t *testing.T) {
	got := wrapLines("the recipient's server refused it: supercalifragilisticexpialidocious indeed", 20)
	want := []string{"the recipient's", "server refused it:", "supercalifragilisticexpialidocious", "indeed"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := wrapText("a b", 10, "  "); got != "a b\n" {
		t.Errorf("wrapText = %q, want %q", got, "a b\n")
	}
	if got := wrapText("aaaa bbbb", 5, "  "); got != "aaaa\n  bbbb\n" {
		t.Errorf("wrapText = %q, want %q", got, "aaaa\n  bbbb\n")
	}
}
