package main

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// wrapLines fills text into lines of at most n columns (a wide character
// counts two). Lines break at spaces, and also between two wide characters,
// since Japanese and Chinese put no spaces between words; a line never
// starts with closing punctuation ("、", "。", "」") nor ends with an opening
// one ("「"), the basic rule of Japanese line breaking (JIS X 4051's
// kinsoku). A word longer than n stands alone on its line.
func wrapLines(text string, n int) []string {
	var lines []string
	var line strings.Builder
	col := 0
	for _, word := range strings.Fields(text) {
		for i, piece := range breakable(word) {
			w := columns(piece)
			// A space before the word's first piece; its other pieces join
			// without one.
			sep := 0
			if i == 0 && col > 0 {
				sep = 1
			}
			if col > 0 && col+sep+w > n {
				lines = append(lines, line.String())
				line.Reset()
				col, sep = 0, 0
			}
			if sep == 1 {
				line.WriteByte(' ')
			}
			line.WriteString(piece)
			col += sep + w
		}
	}
	if line.Len() > 0 {
		lines = append(lines, line.String())
	}
	return lines
}

// wrapText is wrapLines joined for a terminal: lines after the first start
// with indent, and the result ends with a newline.
func wrapText(text string, n int, indent string) string {
	return strings.Join(wrapLines(text, n), "\n"+indent) + "\n"
}

// breakable cuts a word (no spaces) into the pieces a line may break
// between: a run of narrow characters stays whole, each wide character is a
// piece of its own, closing punctuation is kept with the piece before it
// and opening punctuation with the piece after it.
func breakable(word string) []string {
	var pieces []string
	start := 0
	prevWide, glue := false, false
	for i, r := range word {
		wide := isWide(r)
		if i > start && !glue && (wide || prevWide) && !closing(r) {
			pieces = append(pieces, word[start:i])
			start = i
		}
		prevWide, glue = wide, opening(r)
	}
	return append(pieces, word[start:])
}

func isWide(r rune) bool {
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}

// closing is punctuation that must not start a line.
func closing(r rune) bool {
	return strings.ContainsRune("、。，．・：；？！）」』】〕〉》ー々ぁぃぅぇぉっゃゅょァィゥェォッャュョ", r) ||
		unicode.Is(unicode.Pe, r) || unicode.Is(unicode.Pf, r) || strings.ContainsRune(",.;:!?%", r)
}

// opening is punctuation that must not end a line.
func opening(r rune) bool {
	return unicode.Is(unicode.Ps, r) || unicode.Is(unicode.Pi, r)
}
