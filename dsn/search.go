package dsn

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// indexString is bytes.Index with a string pattern. It views b as a string
// without copying it, so that the pattern tables stay strings and the
// search is strings.Index's; b is not changed while the view is in use.
func indexString(b []byte, s string) int {
	if len(b) == 0 {
		if len(s) == 0 {
			return 0
		}
		return -1
	}
	return strings.Index(unsafe.String(unsafe.SliceData(b), len(b)), s)
}

// hasCodeBytes is hasCode of b, without a copy of b: hasCode keeps
// nothing of the text it reads.
func hasCodeBytes(b []byte) bool {
	return len(b) > 0 && hasCode(unsafe.String(unsafe.SliceData(b), len(b)))
}

// headerValue is h.GetString(name) as bytes, without the copy: for the
// fields that are only tested, not kept.
func headerValue(h message.Header, name string) []byte {
	return bytes.TrimSpace(h.Get(name))
}

// headerString is h.GetString(name) without the copy: a view of the
// field's value (see view), which detach copies if the Report keeps it.
func headerString(h message.Header, name string) string {
	return view(headerValue(h, name))
}

// decodeWords is message.DecodeWords(v) in the scratch memory (see add),
// valid until the end of the Parse: a value with no encoded word that is
// valid UTF-8 is v itself, and the others cost no allocation of their own
// (issue 14: an encoded Subject or From was three or four per reading).
func decodeWords(sc *scratch, v string) string {
	if sc == nil || !strings.Contains(v, "=?") && utf8.ValidString(v) {
		return message.DecodeWords(v)
	}
	return sc.finish(message.AppendDecodedWords(sc.start(len(v)), v))
}

// hasPrefixFoldBytes says whether b starts with the lower-case ASCII
// prefix, without regard to the case of b.
func hasPrefixFoldBytes(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && indexFoldBytes(b[:len(prefix)], prefix) == 0
}

// containsString is bytes.Contains with a string pattern.
func containsString(b []byte, s string) bool { return indexString(b, s) >= 0 }

// phraseList finds whether a text holds any of a list of lower-case
// phrases in one pass over the text, trying at each place only the
// phrases whose first two bytes are there (see wordIndex): the lists of
// notice phrases are long, and one search per phrase read the notice a
// hundred times.
type phraseList struct {
	phrases []string
	index   *wordIndex // built on first use
}

// newPhraseList indexes phrases (lower case, two bytes or more, at most 256).
func newPhraseList(phrases []string) *phraseList {
	return &phraseList{phrases: phrases, index: newWordIndex(phrases)}
}

// in says whether the lower-case text holds one of the phrases at the
// start of a word, a space of a phrase matching any run of white space (a
// line break included: notices wrap their sentences anywhere).
func (l *phraseList) in(text []byte) bool {
	return l.find(text) >= 0
}

// find returns where in the lower-case text the first of the phrases
// starts (as in finds it), -1 when none is there.
func (l *phraseList) find(text []byte) int {
	s := unsafe.String(unsafe.SliceData(text), len(text))
	index := l.index.table()
	for i := 0; i+1 < len(s); i++ {
		if !index.first[s[i]] || i > 0 && isWordByte(s[i-1]) {
			continue
		}
		for _, k := range index.atSpaced(s, i) {
			if matchSpaced(s, i, l.phrases[k]) {
				return i
			}
		}
	}
	return -1
}

// taggedPhraseList is the union of several phraseLists, each phrase tagged
// with the bit of its list: one pass over a text says which of the lists
// hold a phrase in it, where a search per list read it once per list.
type taggedPhraseList struct {
	all  *phraseList
	tags []uint8 // the list bit of each phrase of all
}

// newTaggedPhraseList returns the union of the lists, by bit (at most 256
// phrases in all).
func newTaggedPhraseList(lists map[uint8]*phraseList) *taggedPhraseList {
	t := &taggedPhraseList{}
	var phrases []string
	for bit := 1; bit < 256; bit <<= 1 {
		if l := lists[uint8(bit)]; l != nil {
			for _, p := range l.phrases {
				phrases = append(phrases, p)
				t.tags = append(t.tags, uint8(bit))
			}
		}
	}
	t.all = newPhraseList(phrases)
	return t
}

// lists returns the bits of the lists that have a phrase in the lower-case
// text (as phraseList.in finds it); it may stop early, once a bit of stop
// is found.
func (t *taggedPhraseList) lists(text []byte, stop uint8) uint8 {
	s := unsafe.String(unsafe.SliceData(text), len(text))
	index := t.all.index.table()
	var found uint8
	for i := 0; i+1 < len(s); i++ {
		if !index.first[s[i]] || i > 0 && isWordByte(s[i-1]) {
			continue
		}
		for _, k := range index.atSpaced(s, i) {
			if tag := t.tags[k]; found&tag == 0 && matchSpaced(s, i, t.all.phrases[k]) {
				if found |= tag; found&stop != 0 {
					return found
				}
			}
		}
	}
	return found
}

// isWordByte says whether c may be inside a word: an ASCII letter or
// digit, or a byte of a multi-byte character.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// matchSpaced says whether phrase starts at s[i], a space of the phrase
// matching a run of white space.
func matchSpaced(s string, i int, phrase string) bool {
	for j := 0; j < len(phrase); j++ {
		if i >= len(s) {
			return false
		}
		if phrase[j] == ' ' {
			if !isSpace(s[i]) {
				return false
			}
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			continue
		}
		if s[i] != phrase[j] {
			return false
		}
		i++
	}
	return true
}

// maxShortField is the longest field value headerContainsAny lowers on the
// stack.
const maxShortField = 256

// headerContainsAny says whether any of the words of a set (lower case)
// occurs in the value of the field called name, decoded (RFC 2047) and in
// ASCII lower case: strings.Contains(ascii.LowerString(message.DecodeWords(h.GetString(name))), w)
// for a w of words, all found in one pass. A short value is decoded and
// lowered in a buffer on the stack rather than copied twice or more
// (issue 14: the Subject and From of every message).
func headerContainsAny(h message.Header, name string, words *phraseSet) bool {
	var buf [maxShortField]byte
	low := message.AppendDecodedWords(buf[:0], view(headerValue(h, name)))
	return words.in(ascii.LowerInto(low, low)) // low is buf or an array of its own
}
