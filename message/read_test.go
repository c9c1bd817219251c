package message

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// report is a multipart/report with a text part in quoted-printable, a
// delivery-status part and the original's header, in CRLF.
var report = strings.ReplaceAll(`From: MAILER-DAEMON@mx.example.org
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="B1/mx.example.org"

This is a MIME-encapsulated message.

--B1/mx.example.org
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Ihre Nachricht an <j=F6rg@example.net> konnte nicht zugestellt werden.=
 Bitte pr=FCfen.
--B1/mx.example.org
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Final-Recipient: rfc822; jorg@example.net
Action: failed
Status: 5.1.1
--B1/mx.example.org
Content-Type: text/rfc822-headers

Message-ID: <1@example.org>
--B1/mx.example.org--
`, "\n", "\r\n")

func TestReadFindsTheLeavesAndWhereTheyStart(t *testing.T) {
	raw := []byte(report)
	m := Read(raw)
	if m.Truncated {
		t.Error("Truncated set for a complete message")
	}
	if got := m.Header.GetString("Subject"); got != "Undelivered Mail Returned to Sender" {
		t.Errorf("Subject %q", got)
	}
	want := []struct {
		mediaType, charset, cte, body string
	}{
		{"text/plain", "iso-8859-1", "quoted-printable", "Ihre Nachricht an <j=F6rg@example.net> konnte nicht zugestellt werden.=\r\n Bitte pr=FCfen."},
		{"message/delivery-status", "", "", "Reporting-MTA: dns; mx.example.org\r\nFinal-Recipient: rfc822; jorg@example.net\r\nAction: failed\r\nStatus: 5.1.1"},
		{"text/rfc822-headers", "", "", "Message-ID: <1@example.org>"},
	}
	if len(m.Parts) != len(want) {
		t.Fatalf("%d parts, want %d", len(m.Parts), len(want))
	}
	for i, w := range want {
		p := m.Parts[i]
		if p.MediaType != w.mediaType || p.Charset != w.charset || p.TransferEncoding != w.cte || string(p.Body) != w.body || p.Depth != 1 {
			t.Errorf("part %d: %q %q %q depth %d body %q, want %q %q %q depth 1 body %q", i, p.MediaType, p.Charset, p.TransferEncoding, p.Depth, p.Body, w.mediaType, w.charset, w.cte, w.body)
		}
		if !bytes.HasPrefix(raw[p.Offset:], p.Body) {
			t.Errorf("part %d: Offset %d does not point at its body", i, p.Offset)
		}
	}
	text, cut := m.Parts[0].Decode(1 << 20)
	if cut || string(text) != "Ihre Nachricht an <jörg@example.net> konnte nicht zugestellt werden. Bitte prüfen." {
		t.Errorf("decoded text %q (cut %v)", text, cut)
	}
}

func TestReadSingleParts(t *testing.T) {
	raw := []byte("From: a@example.org\nSubject: hi\n\nbody text\n")
	m := Read(raw)
	if len(m.Parts) != 1 {
		t.Fatalf("%d parts, want 1", len(m.Parts))
	}
	p := m.Parts[0]
	if p.MediaType != "text/plain" || p.Depth != 0 || string(p.Body) != "body text\n" || p.Offset != len(raw)-len("body text\n") {
		t.Errorf("part %+v", p)
	}
	// No header at all: the whole input is the body.
	m = Read([]byte("just text\n"))
	if len(m.Header) != 0 || len(m.Parts) != 1 || string(m.Parts[0].Body) != "just text\n" || m.Parts[0].Offset != 0 {
		t.Errorf("headerless input: %+v", m)
	}
}

func TestReadIsLenientWithBrokenMultiparts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		raw       string
		types     []string
		truncated bool
	}{
		{"close delimiter missing", "Content-Type: multipart/mixed; boundary=x\n\n--x\n\nfirst\n--x\nContent-Type: text/html\n\nsecond, cut", []string{"text/plain", "text/html"}, true},
		{"no boundary parameter", "Content-Type: multipart/mixed\n\n--x\n\nfirst\n--x--\n", []string{"text/plain"}, false},
		{"boundary never used", "Content-Type: multipart/mixed; boundary=y\n\n--x\n\nfirst\n--x--\n", []string{"text/plain"}, true},
		{"delimiter not at a line start", "Content-Type: multipart/mixed; boundary=x\n\n--x\n\nsee --x here\n--x--\n", []string{"text/plain"}, false},
		{"padding after delimiter", "Content-Type: multipart/mixed; boundary=x\n\n--x  \n\nfirst\n--x--  \n", []string{"text/plain"}, false},
		{"garbage content type", "Content-Type: \x00\xff;;; boundary\n\nbody", []string{"text/plain"}, false},
	} {
		m := Read([]byte(tc.raw))
		var types []string
		for _, p := range m.Parts {
			types = append(types, p.MediaType)
		}
		if fmt.Sprint(types) != fmt.Sprint(tc.types) || m.Truncated != tc.truncated {
			t.Errorf("%s: parts %v truncated %v, want %v %v", tc.name, types, m.Truncated, tc.types, tc.truncated)
		}
	}
}

func TestReadStopsAtTheCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=\"D0=\"\n\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "--D%d=\nContent-Type: multipart/mixed; boundary=\"D%d=\"\n\n", i, i+1)
	}
	b.WriteString("--D50=\n\ndeep\n")
	if m := Read([]byte(b.String())); !m.Truncated || len(m.Parts) != 0 {
		t.Errorf("nesting 50 deep: %d parts, truncated %v; want none read past MaxDepth and Truncated", len(m.Parts), m.Truncated)
	}
	b.Reset()
	b.WriteString("Content-Type: multipart/mixed; boundary=x\n\n")
	for i := 0; i < MaxParts+10; i++ {
		b.WriteString("--x\n\npart\n")
	}
	b.WriteString("--x--\n")
	if m := Read([]byte(b.String())); !m.Truncated || len(m.Parts) != MaxParts {
		t.Errorf("%d parts: read %d, truncated %v; want MaxParts and Truncated", MaxParts+10, len(m.Parts), m.Truncated)
	}
	b.Reset()
	for i := 0; i < MaxHeaderFields+5; i++ {
		b.WriteString("X-Field: v\n")
	}
	b.WriteString("\nbody")
	h, body, truncated := ReadHeader([]byte(b.String()))
	if len(h) != MaxHeaderFields || !truncated || string(body) != "body" {
		t.Errorf("%d fields: read %d, truncated %v, body %q", MaxHeaderFields+5, len(h), truncated, body)
	}
}

func TestParseContentType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ContentType
	}{
		{"", ContentType{MediaType: "text/plain"}},
		{"garbage", ContentType{MediaType: "text/plain"}},
		{"Text/PLAIN; Charset=\"ISO-8859-1\"", ContentType{MediaType: "text/plain", Charset: "iso-8859-1"}},
		{"text/plain charset=utf-8", ContentType{MediaType: "text/plain", Charset: "utf-8"}},
		{`multipart/report; report-type=delivery-status;; boundary="a\"b; c"`, ContentType{MediaType: "multipart/report", Boundary: `a"b; c`}},
		{"multipart/mixed; boundary=simple ; charset='x-weird'", ContentType{MediaType: "multipart/mixed", Boundary: "simple", Charset: "x-weird"}},
		{"application/X-Unknown", ContentType{MediaType: "application/x-unknown"}},
	} {
		if got := ParseContentType([]byte(tc.in)); got != tc.want {
			t.Errorf("ParseContentType(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, cte, charset, body, want string
		limit                          int
		cut                            bool
	}{
		{"base64 with junk", "base64", "", "aGVs\r\nbG8g*d29y\nbGQ=\n", "hello world", 100, false},
		{"base64 url alphabet", "base64", "", "-_8=", "\xfb\xff", 100, false},
		{"concatenated base64", "base64", "", "YQ==YmM=", "abc", 100, false},
		{"quoted-printable soft breaks", "quoted-printable", "", "a=\r\nb= \nc=3D=3d", "abc==", 100, false},
		{"malformed escape kept", "quoted-printable", "", "100% =ZZ done=", "100% =ZZ done", 100, false},
		{"latin-1", "8bit", "iso-8859-1", "j\xf6rg", "jörg", 100, false},
		{"iso-2022-jp", "7bit", "iso-2022-jp", "\x1b$B$3$s$K$A$O\x1b(B", "こんにちは", 100, false},
		{"unknown charset passes through", "8bit", "x-no-such-charset", "caf\xe9", "caf\xe9", 100, false},
		{"cut at the limit", "", "", "0123456789", "01234", 5, true},
	} {
		p := Part{ContentType: ContentType{MediaType: "text/plain", Charset: tc.charset}, TransferEncoding: tc.cte, Body: []byte(tc.body)}
		got, cut := p.Decode(tc.limit)
		if string(got) != tc.want || cut != tc.cut {
			t.Errorf("%s: %q (cut %v), want %q (cut %v)", tc.name, got, cut, tc.want, tc.cut)
		}
	}
	// A huge encoded body is read only as far as the limit needs.
	huge := Part{TransferEncoding: "base64", Body: bytes.Repeat([]byte("QUJD"), 1<<20)}
	got, cut := huge.Decode(30)
	if len(got) != 30 || !cut {
		t.Errorf("huge base64: %d bytes (cut %v), want 30 and cut", len(got), cut)
	}
}

func TestHTMLText(t *testing.T) {
	in := `<html><head><style>p { color: red }</STYLE><script>alert("x")</script></head>
<body><p>Delivery&nbsp;failed:</p><div>&lt;a@example.org&gt;</div><table><tr><td>550</td><td>5.1.1</td></tr></table>Caf&eacute; &amp; more<br>end`
	want := "\n\nDelivery failed:\n\n<a@example.org>\n\n 550\n 5.1.1\n\n\nCaf&eacute; & more\nend"
	if got := string(HTMLText([]byte(in))); got != want {
		t.Errorf("HTMLText = %q, want %q", got, want)
	}
	if got := string(HTMLText([]byte("text <b unterminated"))); got != "text " {
		t.Errorf("unterminated tag: %q", got)
	}
}

func TestArenaReuseLeavesNothingBehind(t *testing.T) {
	msgs := [][]byte{
		[]byte(report),
		[]byte("From: a@example.org\nTo: b@example.org\nSubject: second\n\nbody\n"),
		[]byte("Content-Type: multipart/mixed; boundary=q\n\n--q\nX-A: 1\n\none\n--q\nX-B: 2\n\ntwo\n--q--\n"),
	}
	fresh := make([]string, len(msgs))
	for i, raw := range msgs {
		fresh[i] = describe(Read(raw))
	}
	a := NewArena()
	defer a.Release()
	for round := 0; round < 3; round++ {
		for i, raw := range msgs {
			if got := describe(a.Read(raw)); got != fresh[i] {
				t.Errorf("round %d, message %d read in an arena:\n got %s\nwant %s", round, i, got, fresh[i])
			}
			h, _, _ := a.ReadHeader([]byte("Message-ID: <x@y>\n\n"))
			if h.GetString("Message-ID") != "<x@y>" || cap(h) != len(h) {
				t.Errorf("arena header %v cap %d", h, cap(h))
			}
			if got := a.Lower([]byte("MiXeD")); string(got) != "mixed" {
				t.Errorf("Lower = %q", got)
			}
		}
		a.Release()
		a = NewArena()
	}
}

// describe prints what a reading found, for comparisons.
func describe(m Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "truncated=%v", m.Truncated)
	for _, f := range m.Header {
		fmt.Fprintf(&b, " %s=%q", f.Name, f.Value())
	}
	for _, p := range m.Parts {
		fmt.Fprintf(&b, " [%s %s %s %d@%d", p.MediaType, p.Charset, p.TransferEncoding, p.Depth, p.Offset)
		for _, f := range p.Header {
			fmt.Fprintf(&b, " %s=%q", f.Name, f.Value())
		}
		fmt.Fprintf(&b, " %q]", p.Body)
	}
	return b.String()
}
