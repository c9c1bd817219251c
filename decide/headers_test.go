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
		v := fold(hdrExplanation, textclean.Unstructured(textclean.Line(s, maxText)))
		checkFolded(t, hdrExplanation, v)
		sv := fold(hdrStatus, statusValue("status", s, "recipient", s))
		checkFolded(t, hdrStatus, sv)
		if c := textclean.Line(s, maxText); !utf8.ValidString(c) || len(c) > maxText {
			t.Fatalf("textclean.Line gave %d bytes, valid UTF-8 %v", len(c), utf8.ValidString(c))
		}
	})
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
