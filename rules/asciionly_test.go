package rules

import (
	"slices"
	"testing"
)

// TestPatternInOtherScriptsFilteredOnASCIIText: on a text all of ASCII, a
// pattern whose alternation names a thing in other scripts too is
// filtered and started by its ASCII literals alone (the others cannot
// occur there), and a pattern that needs a literal beyond ASCII is not run
// at all; on every text it finds what its (?i) regexp finds over the whole
// text.
func TestPatternInOtherScriptsFilteredOnASCIIText(t *testing.T) {
	label := &pattern{src: `(?:添付ファイル名?|anhang|pièce jointe|nom du fichier) ?: ?(?P<file>[^\s"<>]{1,100}\.[a-z0-9]{2,5})\b`}
	label.analyse()
	q := label.forASCII
	if q == nil {
		t.Fatal("no pattern for ASCII texts")
	}
	if got, want := q.filter.String(), "anhang :|anhang:|nom du fichier :|nom du fichier: & ."; !sameSets(got, want) {
		t.Errorf("ASCII filter = %q, want %q", got, want)
	}
	if q.lead == nil {
		t.Error("no leading literals for ASCII texts")
	}
	if q.filter.allows([]byte("550 5.7.1 message refused: see https://x.example/a.html"), nil) {
		t.Error("the ASCII filter allows a text without any label")
	}

	size := &pattern{src: `(?P<limit>[0-9]+ ?(?:kb|mb|バイト))\)?\s?を超え`}
	size.analyse()
	if size.forASCII == nil || size.forASCII.filter.allows([]byte("552 5.3.4 message size 2048 kb exceeds the limit"), nil) {
		t.Error("a pattern that needs を超え is run over an ASCII text")
	}

	// The Kelvin sign folds onto k: it matches in an ASCII text.
	kelvin := &pattern{src: "ma\u212ae"}
	kelvin.analyse()
	if kelvin.forASCII != nil {
		t.Error("a literal that folds onto ASCII was left out for ASCII texts")
	}

	for _, text := range []string{
		"552 anhang: rechnung.exe wurde blockiert",
		"552 nom du fichier : facture.scr refusé",
		"552 添付ファイル名: invoice.exe",
		"552 pièce jointe: a.exe",
		"message 3000 kb exceeds",
		"3000 バイト を超えています",
		"make it",
		"ma\u212ae it",
	} {
		n := normalize(nil, text)
		for _, p := range []*pattern{label, size, kelvin} {
			want := p.regexp().FindSubmatchIndex(n)
			if got := p.find(n, classOfText(n)); !slices.Equal(got, want) {
				t.Errorf("pattern %q in %q: find = %v, the regexp over the whole text %v", p.src, n, got, want)
			}
			if got := p.match(n, classOfText(n)); got != (want != nil) {
				t.Errorf("pattern %q in %q: match = %t, want %t", p.src, n, got, want != nil)
			}
		}
	}
}

// TestPatternFilteredOnTextBeyondASCII: on a text with characters beyond
// ASCII (none that (?i) folds onto ASCII), a pattern is filtered by its
// literals, those beyond ASCII included, and finds what its (?i) regexp
// finds over the whole text, in every case of a letter that folds.
func TestPatternFilteredOnTextBeyondASCII(t *testing.T) {
	p := &pattern{src: `(?:添付ファイル名?|anhang|pièce jointe) ?: ?["'「]?(?P<file>[^\s"<>「」]{1,100}\.[a-z0-9]{2,5})\b`}
	p.analyse()
	if !p.literalsHold(textFoldSafe) {
		t.Fatal("the literals do not hold in a text beyond ASCII")
	}
	if p.filter.allows(normalize(nil, "メッセージを配信できませんでした: 550 5.7.1 refused. こんにちは"), nil) {
		t.Error("the filter allows a text without any label")
	}
	matched := 0
	for _, text := range []string{
		"ご注意: 添付ファイル名:「請求書.exe」は削除されました",
		"ご注意: 添付ファイル:請求書.exe は削除",
		"été — PIÈCE JOINTE: facture.scr refusée",
		"été — pièce jointe : facture.scr refusée",
		"été — piece jointe: facture.scr",
		"\xff\x80 anhang: a.exe",
		"日本語 anhang: a\u212a.exe", // textFolding: as written
	} {
		n := normalize(nil, text)
		want := p.regexp().FindSubmatchIndex(n)
		if want != nil {
			matched++
		}
		if got := p.find(n, classOfText(n)); !slices.Equal(got, want) {
			t.Errorf("in %q: find = %v, the regexp over the whole text %v", n, got, want)
		}
	}
	if matched < 5 {
		t.Fatalf("%d texts matched, want 5: the test texts do not test the matches", matched)
	}
}
