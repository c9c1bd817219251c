package dsn

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// TestPhraseSetFindsWhatASearchPerPhraseFinds holds the automaton to the
// loop it replaces (bytes.Contains for each phrase in list order): which
// phrase comes first in the list, and whether any occurs, over random texts
// of the phrases' bytes, with phrases that are prefixes, suffixes and
// infixes of one another.
func TestPhraseSetFindsWhatASearchPerPhraseFinds(t *testing.T) {
	lists := [][]string{
		{"abc", "bc", "c", "abcd", "xbcd"},
		{"message", "header", "content-type", "age", "ssa"},
		{"aa", "aaa", "a-a", "ba"},
		textFamilyPhrases(),
		originalSeparators,
	}
	rnd := rand.New(rand.NewSource(14))
	for _, list := range lists {
		ps := newPhraseSet(list...)
		var alphabet []byte
		for _, p := range list {
			alphabet = append(alphabet, p...)
		}
		alphabet = append(alphabet, 'z', '\n', 0x80)
		for n := 0; n < 2000; n++ {
			text := make([]byte, rnd.Intn(80))
			for i := range text {
				text[i] = alphabet[rnd.Intn(len(alphabet))]
			}
			if n%5 == 0 {
				// Plant a phrase.
				p := list[rnd.Intn(len(list))]
				at := rnd.Intn(len(text) + 1)
				text = append(text[:at], append([]byte(p), text[at:]...)...)
			}
			want := -1
			for i, p := range list {
				if bytes.Contains(text, []byte(p)) {
					want = i
					break
				}
			}
			if got := ps.firstIn(text); got != want {
				t.Fatalf("firstIn(%q) over %q = %d, a search per phrase gives %d", text, list, got, want)
			}
			if got := ps.in(text); got != (want >= 0) {
				t.Fatalf("in(%q) over %q = %v, a search per phrase gives %v", text, list, got, want >= 0)
			}
			if got := ps.inString(string(text)); got != (want >= 0) {
				t.Fatalf("inString(%q) over %q = %v, a search per phrase gives %v", text, list, got, want >= 0)
			}
		}
	}
}

// textFamilyPhrases returns the phrases of textFamilies, in order.
func textFamilyPhrases() []string {
	var out []string
	for _, f := range textFamilies {
		out = append(out, f.phrase)
	}
	return out
}

// TestFindCommandFindsTheFirstMarkInListOrder holds findCommand (an
// automaton over the marks) to the plain definition: the command of the
// mark earliest in commandMarks that the text holds, without regard to
// case, as whole words; over texts made of pieces of marks, in both cases,
// with word bytes around them.
func TestFindCommandFindsTheFirstMarkInListOrder(t *testing.T) {
	reference := func(diag string) string {
		for _, m := range commandMarks {
			for i := 0; i+len(m.mark) <= len(diag); i++ {
				if ascii.HasPrefixFold(diag[i:], m.mark) && wholeWords(diag, i, len(m.mark)) {
					return m.command
				}
			}
		}
		return ""
	}
	rnd := rand.New(rand.NewSource(14))
	pieces := []string{"x", "a", " ", ":", "<", "1", "é"}
	for _, m := range commandMarks {
		pieces = append(pieces, m.mark, strings.ToUpper(m.mark), m.mark[:len(m.mark)/2], m.mark[len(m.mark)/2:])
	}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rnd.Intn(8); k >= 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		diag := b.String()
		if got, want := findCommand(diag), reference(diag); got != want {
			t.Fatalf("findCommand(%q) = %q, the first mark in list order gives %q", diag, got, want)
		}
	}
}

// TestFindRemoteHostReadsTheMarksInTheirOrder holds findRemoteHost (one
// pass of an automaton) to its plain definition: the host after the first
// of hostIntros in list order that has one, else after the first " by "
// (searched on from each one's end) with " [" or "[" after the host, else
// before the first " does not like "; over texts made of the marks, host
// names and brackets, in both cases.
func TestFindRemoteHostReadsTheMarksInTheirOrder(t *testing.T) {
	reference := func(d string) string {
		for _, intro := range hostIntros {
			for i := 0; i+len(intro) <= len(d); i++ {
				if !ascii.HasPrefixFold(d[i:], intro) || i > 0 && ascii.IsAlpha(d[i-1]) {
					continue
				}
				if h := hostToken(d[i+len(intro):]); h != "" {
					return h
				}
			}
		}
		for from := 0; from < len(d); {
			k := indexFoldLoop(d[from:], " by ")
			if k < 0 {
				break
			}
			k += from
			from = k + 4
			h := hostToken(d[k+4:])
			if h == "" {
				continue
			}
			rest := strings.TrimLeft(d[k+4+len(h):], ".")
			if strings.HasPrefix(rest, " [") || strings.HasPrefix(rest, "[") {
				return h
			}
		}
		if k := indexFoldLoop(d, " does not like "); k > 0 {
			s := strings.LastIndexByte(d[:k], ' ')
			if h := hostToken(d[s+1 : k]); h != "" {
				return h
			}
		}
		return ""
	}
	rnd := rand.New(rand.NewSource(14))
	pieces := []string{"x", "a", " ", ".", "[", " [", "192.0.2.1", "mx.example.org", "mx.example.org.", "by", " BY ", "Host"}
	for _, m := range remoteHostMarks {
		pieces = append(pieces, m, strings.ToUpper(m))
	}
	for n := 0; n < 30000; n++ {
		var b strings.Builder
		for k := rnd.Intn(9); k >= 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		d := b.String()
		if got, want := findRemoteHost(d), reference(d); got != want {
			t.Fatalf("findRemoteHost(%q) = %q, the marks in their order give %q", d, got, want)
		}
	}
}

// TestExpandedFromTakesTheFirstMarkOfTheSurestKind holds expandedFrom (one
// pass for both marks) to its plain definition: the address after the
// first "expanded from", else after the first "generated from", in any
// case.
func TestExpandedFromTakesTheFirstMarkOfTheSurestKind(t *testing.T) {
	reference := func(full string) string {
		k, n := indexFoldLoop(full, "expanded from"), len("expanded from")
		if k < 0 {
			k, n = indexFoldLoop(full, "generated from"), len("generated from")
		}
		if k < 0 {
			return ""
		}
		rest := full[k+n:]
		if end := strings.IndexAny(rest, ")\n"); end >= 0 {
			rest = rest[:end]
		}
		a, _ := findAddress(rest[:min(len(rest), maxExpandedFrom)], 0)
		if !plausibleAddress(a) {
			return ""
		}
		return a
	}
	rnd := rand.New(rand.NewSource(14))
	pieces := []string{"<a@example.net>", " b@example.org", ")", "\n", " ", "x", "(", "Expanded From", "GENERATED FROM: ", "expanded from", "generated from", "expanded", " from "}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rnd.Intn(8); k >= 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		full := b.String()
		if got, want := expandedFrom(full), reference(full); got != want {
			t.Fatalf("expandedFrom(%q) = %q, the first mark of the surest kind gives %q", full, got, want)
		}
	}
}

// TestRetryStateReadsItsListsInOnePassAsOneByOne holds retryState (one
// pass over the union of its lists) to the lists searched one by one, in
// their order, over texts made of their phrases and words around them.
func TestRetryStateReadsItsListsInOnePassAsOneByOne(t *testing.T) {
	reference := func(words []byte) string {
		switch {
		case gaveUpPhrases.in(words):
			return "failed"
		case stillTryingPhrases.in(words):
			return "delayed"
		case deliveredPhrases.in(words) && !undeliveredPhrases.in(words):
			if relayedPhrase.in(words) {
				return "relayed"
			}
			return "delivered"
		}
		return ""
	}
	var pieces []string
	for _, l := range []*phraseList{gaveUpPhrases, stillTryingPhrases, deliveredPhrases, undeliveredPhrases, relayedPhrase} {
		pieces = append(pieces, l.phrases...)
	}
	pieces = append(pieces, " ", "\n", "x", "un", "  ", "was successfully", "delivered")
	rnd := rand.New(rand.NewSource(14))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rnd.Intn(6); k >= 0; k-- {
			p := pieces[rnd.Intn(len(pieces))]
			if rnd.Intn(4) == 0 {
				p = strings.ReplaceAll(p, " ", " \n ")
			}
			b.WriteString(p)
		}
		words := []byte(b.String())
		if got, want := string(retryState(words)), reference(words); got != want {
			t.Fatalf("retryState(%q) = %q, the lists one by one give %q", words, got, want)
		}
	}
}

// TestSentenceMarkersFitTheirRoom checks that sentenceAddress's array on
// the stack holds every marker: one left out would never be found.
func TestSentenceMarkersFitTheirRoom(t *testing.T) {
	if len(sentenceMarkers) > maxSentenceMarkers {
		t.Fatalf("%d sentenceMarkers, room for %d: raise maxSentenceMarkers", len(sentenceMarkers), maxSentenceMarkers)
	}
}

// TestSentenceAddressTriesTheMarkersInListOrder holds sentenceAddress (the
// first place of every marker from one pass) to a search per marker in
// list order, over lines made of markers, addresses and words.
func TestSentenceAddressTriesTheMarkersInListOrder(t *testing.T) {
	reference := func(tl, l []byte) (string, []byte) {
		if bytes.IndexByte(tl, '@') < 0 || !sentenceMarkerList.in(l) {
			return "", nil
		}
		for _, m := range sentenceMarkers {
			m = strings.TrimRight(m, " ")
			k := indexString(l, m)
			if k < 0 {
				continue
			}
			s := view(tl[k+len(m):])
			a, end := findAddress(s, 0)
			if a == "" || !plausibleAddress(a) {
				continue
			}
			if at := strings.Index(s, a); at > 60 || senderContext(strings.ToLower(s[:max(at, 0)])) {
				continue
			}
			return a, bytes.TrimLeft(tl[k+len(m)+min(end, len(s)):], " \t:>).")
		}
		return "", nil
	}
	pieces := append([]string{" ", "x", "<a@example.net>", " b@example.org ", "from ", ": ", strings.Repeat("y", 70)}, sentenceMarkers...)
	rnd := rand.New(rand.NewSource(14))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rnd.Intn(6); k >= 0; k-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		line := []byte(b.String())
		low := ascii.ToLower(line)
		ga, gr := sentenceAddress(line, low)
		wa, wr := reference(line, low)
		if ga != wa || !bytes.Equal(gr, wr) {
			t.Fatalf("sentenceAddress(%q) = %q, %q; the markers one by one give %q, %q", line, ga, gr, wa, wr)
		}
	}
}
