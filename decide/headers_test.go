package decide

import (
	"mime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/rules"
)

// checkFolded asserts the invariants of a header value ndrmilter writes.
func checkFolded(t *testing.T, name, v string) {
	t.Helper()
	lines := strings.Split(name+": "+v, "\n")
	for i, line := range lines {
		if len(line) > maxLine {
			t.Fatalf("line %d of %s is %d octets", i, name, len(line))
		}
		if i > 0 && (len(line) < 2 || line[0] != '\t' || line[1] == ' ' || line[1] == '\t') {
			t.Fatalf("continuation line %d of %s is %q: want a tab then text", i, name, line)
		}
		for j := 0; j < len(line); j++ {
			if c := line[j]; c >= 0x80 || c == 0x7f || (c < 0x20 && !(c == '\t' && j == 0 && i > 0)) {
				t.Fatalf("%s line %d has byte %#x: %q", name, i, c, line)
			}
		}
	}
}

func TestFoldAndClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"  lots   of\t\tspace \r\n here ", "lots of space here"},
		{"inject\r\nX-NDR-Backscatter: no", "inject X-NDR-Backscatter: no"},
		{"nul\x00and\x7fdel", "nul and del"},
		{"bad utf8 \xff\xfe end", "bad utf8 ? end"},
		{"line\u2028sep", "line sep"},
	} {
		if got := textclean.Line(tc.in, 100); got != tc.want {
			t.Errorf("textclean.Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := textclean.Line(strings.Repeat("é", 100), 11); got != "ééééé" {
		t.Errorf("textclean.Line cut mid-rune: %q", got)
	}

	long := strings.Repeat("word ", 300) + strings.Repeat("x", 5000)
	v := fold(hdrExplanation, textclean.Unstructured(textclean.Line(long, 10000)))
	checkFolded(t, hdrExplanation, v)
	if got := strings.ReplaceAll(strings.ReplaceAll(v, "\n\t", " "), " ", ""); got != strings.ReplaceAll(textclean.Line(long, 10000), " ", "") {
		t.Fatal("folding lost or changed text")
	}

	// Non-ASCII text becomes RFC 2047 encoded-words that decode back.
	u := "Zustellung an jörg@beispiel.example fehlgeschlagen: Postfach voll — bitte später"
	enc := fold(hdrExplanation, textclean.Unstructured(u))
	checkFolded(t, hdrExplanation, enc)
	dec, err := new(mime.WordDecoder).DecodeHeader(strings.ReplaceAll(enc, "\n\t", " "))
	if err != nil || dec != u {
		t.Fatalf("RFC 2047 round trip: %q, %v; want %q", dec, err, u)
	}
}

func TestStatusValue(t *testing.T) {
	got := statusValue("status", "5.1.1", "reason", "userunknown", "recipient", "a@b.example", "permanent", "yes")
	if got != "status=5.1.1; reason=userunknown; recipient=a@b.example; permanent=yes" {
		t.Fatalf("statusValue = %q", got)
	}
	// Values that are not tokens are quoted; quotes, backslashes, ";" and
	// line breaks cannot break out of the parameter.
	got = statusValue("recipient", "\"evil\"; permanent=no\r\nX: y\\", "reason", "")
	want := `recipient="\"evil\"; permanent=no X: y\\"; reason=""`
	if got != want {
		t.Fatalf("statusValue = %q, want %q", got, want)
	}
	if got := paramValue("jörg@beispiel.example"); got != `"j?rg@beispiel.example"` {
		t.Fatalf("non-ASCII value = %q", got)
	}
}

// FuzzHeaderValue: whatever the bounce says, the header value written is
// ASCII, folded, and never over 998 octets a line.
func FuzzHeaderValue(f *testing.F) {
	f.Add("550 5.1.1 <a@b>: user unknown")
	f.Add("x\r\nX-NDR-Owner: none\r\n")
	f.Add(strings.Repeat("é", 2000))
	f.Add(strings.Repeat("a", 3000))
	f.Fuzz(func(t *testing.T, s string) {
		line := textclean.Line(s, maxText)
		v := encodeValue(hdrExplanation, line, "")
		checkFolded(t, hdrExplanation, v)
		checkEncodedWords(t, hdrExplanation, v)
		if got := decodeValue(t, v); got != line {
			t.Fatalf("encodeValue(%q) decodes to %q", line, got)
		}
		sv := fold(hdrStatus, statusValue("status", s, "recipient", s))
		checkFolded(t, hdrStatus, sv)
		if c := textclean.Line(s, maxText); !utf8.ValidString(c) || len(c) > maxText {
			t.Fatalf("textclean.Line gave %d bytes, valid UTF-8 %v", len(c), utf8.ValidString(c))
		}
	})
}

// decodeValue undoes the folding and the encoded words of a header value.
func decodeValue(t *testing.T, v string) string {
	t.Helper()
	dec, err := new(mime.WordDecoder).DecodeHeader(strings.ReplaceAll(v, "\n\t", " "))
	if err != nil {
		t.Fatalf("decoding %q: %v", v, err)
	}
	return dec
}

// checkEncodedWords asserts that every encoded word of v is at most 75
// octets (RFC 2047 section 2) and holds whole UTF-8 sequences (section 5,
// rule 3: a word is never split inside a character).
func checkEncodedWords(t *testing.T, name, v string) {
	t.Helper()
	for _, w := range strings.Fields(strings.ReplaceAll(v, "\n\t", " ")) {
		if !strings.HasPrefix(w, "=?utf-8?") {
			continue
		}
		if len(w) > 75 {
			t.Fatalf("%s: encoded word of %d octets: %q", name, len(w), w)
		}
		dec, err := new(mime.WordDecoder).Decode(w)
		if err != nil || !utf8.ValidString(dec) {
			t.Fatalf("%s: encoded word %q decodes to %q (%v): not whole UTF-8 sequences", name, w, dec, err)
		}
	}
}

// foldWidthOK asserts that no line of a header value is longer than 78
// octets, the name and ": " included on the first.
func foldWidthOK(t *testing.T, name, v string) {
	t.Helper()
	for i, line := range strings.Split(name+": "+v, "\n") {
		if len(line) > foldWidth {
			t.Errorf("%s: line %d is %d octets, over 78: %q", name, i, len(line), line)
		}
	}
}

func TestLongGermanAndJapaneseExplanationsAreEncodedWordsFoldedAt78(t *testing.T) {
	for _, text := range []string{
		"bob@remote.example: Die Nachricht an bob@remote.example wurde von mx.remote.example abgelehnt, weil es " +
			"diese Adresse dort nicht gibt: Sie ist falsch geschrieben, wurde gelöscht oder stammt aus einem veralteten " +
			"Adressbuch. Prüfen Sie die Adresse auf Tippfehler. Wenn sie stimmt, hat die Person das Unternehmen " +
			"vielleicht verlassen oder ihre Adresse geändert: Fragen Sie sie auf anderem Weg nach einer aktuellen " +
			"Adresse, und entfernen Sie diese aus Ihrem Adressbuch, der automatischen Vervollständigung Ihres " +
			"E-Mail-Programms und Ihren Verteilerlisten. Überprüfen Sie außerdem Größe, Übertragungsweg und Zustellbarkeit.",
		"bob@remote.example: bob@remote.example 宛てのメッセージは、mx.remote.example で拒否されました。" +
			"このアドレスは存在しません。入力ミス、削除されたアドレス、またはアドレス帳の古い項目の可能性があります。" +
			"アドレスに入力ミスがないか確認してください。正しい場合は、相手が退職したかアドレスを変更した可能性があります。" +
			"別の方法で現在のアドレスを問い合わせ、このアドレスをアドレス帳、メールソフトの自動補完、配信リストから削除してください。",
		"jörg@beispiel.example: Größenüberschreitung—äöüß" + strings.Repeat("ü", 200) + " " + strings.Repeat("日本", 120),
	} {
		for _, name := range []string{hdrExplanation, "Subject", "X-A-Very-Long-Header-Name-That-Leaves-Little-Room"} {
			v := encodeValue(name, text, "")
			checkFolded(t, name, v)
			checkEncodedWords(t, name, v)
			foldWidthOK(t, name, v)
			if got := decodeValue(t, v); got != text {
				t.Errorf("%s: round trip:\n got %q\nwant %q", name, got, text)
			}
			if !strings.Contains(strings.ReplaceAll(v, "\n\t", " "), "bob@remote.example: ") && strings.HasPrefix(text, "bob@") {
				t.Errorf("%s: the ASCII address is not left as it is: %q", name, v)
			}
		}
	}
	// Mostly Latin text takes Q (readable), Japanese B (shorter).
	if v := encodeValue(hdrExplanation, "Die Nachricht wurde abgelehnt, weil das Postfach voll ist. Größe prüfen.", ""); !strings.Contains(v, "=?utf-8?q?Gr=C3=B6=C3=9Fe_pr=C3=BCfen.?=") {
		t.Errorf("German: %q; want the Q encoding of Größe", v)
	}
	if v := encodeValue(hdrExplanation, "このアドレスは存在しません。", ""); !strings.HasPrefix(v, "=?utf-8?b?") {
		t.Errorf("Japanese: %q; want B encoding", v)
	}
}

func TestASCIIValuesAreFoldedAsBefore(t *testing.T) {
	text := "bob@remote.example: The message to bob@remote.example was refused by mx.remote.example because the address does not exist. Check the address for typos."
	if got, want := encodeValue(hdrExplanation, text, ""), fold(hdrExplanation, text); got != want {
		t.Errorf("encodeValue of ASCII:\n got %q\nwant %q", got, want)
	}
	if got, want := encodeValue("Subject", "[Bounce: mailbox full]", "=?utf-8?q?R=C3=A9union?= Monday"), fold("Subject", "[Bounce: mailbox full] =?utf-8?q?R=C3=A9union?= Monday"); got != want {
		t.Errorf("Subject of ASCII:\n got %q\nwant %q", got, want)
	}
	// A word of the text that reads like an encoded word is encoded, so
	// that a reader shows it as it is.
	if got := decodeValue(t, encodeValue(hdrExplanation, "a =?utf-8?q?x?= b", "")); got != "a =?utf-8?q?x?= b" {
		t.Errorf("a literal encoded word: decodes to %q", got)
	}
}

func TestTranslatedSubjectTagKeepsTheSpaceBeforeAnEncodedSubject(t *testing.T) {
	for _, tail := range []string{"=?utf-8?q?R=C3=A9union?= Montag", "Plain subject", ""} {
		v := encodeValue("Subject", "[Unzustellbar: Empfänger unbekannt]", tail)
		checkFolded(t, "Subject", v)
		want := "[Unzustellbar: Empfänger unbekannt]"
		if tail != "" {
			want += " " + decodeValue(t, tail)
		}
		if got := decodeValue(t, v); got != want {
			t.Errorf("tail %q: %q decodes to %q; want %q", tail, v, got, want)
		}
	}
}

// X-NDR-Status says whether its status came from the server or was inferred
// by ndrmilter, and says nothing of a source when there is no status.
func TestStatusHeaderNamesTheSourceOfTheCode(t *testing.T) {
	for _, tc := range []struct {
		status string
		source rules.StatusSource
		want   string
	}{
		{"5.1.1", rules.StatusServer, "; status-source=server"},
		{"5.0.911", rules.StatusInferred, "; status-source=inferred"},
	} {
		r := rules.Reading{Classification: rules.Classification{Status: tc.status, StatusSource: tc.source, Reason: rules.ReasonUserUnknown}}
		if got := statusOf(r); !strings.HasSuffix(got, tc.want) || !strings.HasPrefix(got, "status="+tc.status+";") {
			t.Errorf("status %s from %s: X-NDR-Status %q, want it to start with status=%s and end with %q", tc.status, tc.source, got, tc.status, tc.want)
		}
	}
	if got := statusOf(rules.Reading{}); !strings.HasPrefix(got, "status=none;") || strings.Contains(got, "status-source") {
		t.Errorf("no status: X-NDR-Status %q, want status=none and no status-source", got)
	}
}
