package textclean

import (
	"mime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineIsOnePrintableLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"  lots   of\t\tspace \r\n here ", "lots of space here"},
		{"inject\r\nX-NDR-Backscatter: no", "inject X-NDR-Backscatter: no"},
		{"nul\x00and\x7fdel", "nul and del"},
		{"bad utf8 \xff\xfe end", "bad utf8 ? end"},
		{"line\u2028sep\u2029x", "line sep x"},
		{"c1\u0085\u009bcontrols", "c1 controls"},
		{"Jörg", "Jörg"},
	} {
		if got := Line(tc.in, 100); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Line(strings.Repeat("é", 100), 11); got != "ééééé" {
		t.Errorf("Line cut mid-rune: %q", got)
	}
	if got := Line("abc def", 4); got != "abc" {
		t.Errorf("Line cut before a space kept it: %q", got)
	}
}

func TestUnstructuredEncodesOnlyNonASCII(t *testing.T) {
	if got := Unstructured("plain ASCII: =? stays"); got != "plain ASCII: =? stays" {
		t.Errorf("ASCII text changed: %q", got)
	}
	u := "Zustellung an jörg@beispiel.example fehlgeschlagen — bitte später"
	enc := Unstructured(u)
	for i := 0; i < len(enc); i++ {
		if enc[i] >= 0x80 || enc[i] < ' ' {
			t.Fatalf("encoded value has byte %#x: %q", enc[i], enc)
		}
	}
	for _, w := range strings.Fields(enc) {
		if len(w) > 75 {
			t.Errorf("encoded word of %d octets, RFC 2047 allows 75: %q", len(w), w)
		}
	}
	if dec, err := new(mime.WordDecoder).DecodeHeader(enc); err != nil || dec != u {
		t.Errorf("round trip: %q, %v; want %q", dec, err, u)
	}
}

func TestASCIIIsPrintableASCII(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"user@example.com", 200, "user@example.com"},
		{"a\r\nInjected: yes", 200, "a Injected: yes"},
		{"jörg@beispiel.example", 200, "j?rg@beispiel.example"},
		{"日本", 200, "??"},
		{"bad \xff\xfe bytes", 200, "bad ?? bytes"},
		{"\x1b[31mred\x1b[0m", 200, "[31mred [0m"},
		{"  spaced   out  ", 200, "spaced out"},
		{strings.Repeat("x", 300), 200, strings.Repeat("x", 200)},
		{"", 200, ""},
	} {
		got := ASCII(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("ASCII(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestTerminalRemovesControls(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\n\ttext", "plain\n\ttext"},
		{"Jörg 日本", "Jörg 日本"},
		{"\x1b]0;owned\x07title", "]0;ownedtitle"},
		{"\x1b[2J\x1b[Hclear", "[2J[Hclear"},
		{"over\rwrite\bX", "overwriteX"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"raw c1 \x9b31m", "raw c1 \uFFFD31m"},
		{"bad \xff\xfe\xfd run", "bad \uFFFD run"},
		{"rtl \u202eevil\u202c end", "rtl evil end"},
		{"del\x7f nul\x00", "del nul"},
		{"kept \uFFFD", "kept \uFFFD"},
	} {
		if got := Terminal(tc.in); got != tc.want {
			t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestUTF8ReplacesInvalidRuns(t *testing.T) {
	if got := UTF8("ok é"); got != "ok é" {
		t.Errorf("valid text changed: %q", got)
	}
	if got := UTF8("a\xff\xfeb\xc3"); got != "a\uFFFDb\uFFFD" {
		t.Errorf("UTF8 = %q", got)
	}
}

// FuzzClean: whatever comes in, each function keeps its promise.
func FuzzClean(f *testing.F) {
	f.Add("550 5.1.1 <a@b>: user unknown")
	f.Add("x\r\nX-NDR-Owner: none\r\n\x1b[2J\u202e\x9b")
	f.Add(strings.Repeat("é", 300))
	f.Fuzz(func(t *testing.T, s string) {
		if l := Line(s, 100); len(l) > 100 || !utf8.ValidString(l) || strings.ContainsAny(l, "\r\n\x00\t\x7f") || strings.HasPrefix(l, " ") || strings.HasSuffix(l, " ") {
			t.Fatalf("Line(%q) = %q", s, l)
		}
		if a := ASCII(s, 100); len(a) > 100 || strings.Contains(a, "  ") {
			t.Fatalf("ASCII(%q) = %q", s, a)
		} else {
			for i := 0; i < len(a); i++ {
				if a[i] < ' ' || a[i] > '~' {
					t.Fatalf("ASCII(%q) has byte %#x", s, a[i])
				}
			}
		}
		term := Terminal(s)
		if !utf8.ValidString(term) {
			t.Fatalf("Terminal(%q) is not valid UTF-8", s)
		}
		for _, r := range term {
			if !terminalRune(r) {
				t.Fatalf("Terminal(%q) kept %U", s, r)
			}
		}
		if u := UTF8(s); !utf8.ValidString(u) {
			t.Fatalf("UTF8(%q) is not valid UTF-8", s)
		}
	})
}
