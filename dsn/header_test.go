package dsn

import "testing"

func TestToLower(t *testing.T) {
	// Every byte value, at every offset of the eight-byte words.
	var in []byte
	for i := 0; i < 256; i++ {
		in = append(in, byte(i))
	}
	in = append(in, "MiXeD Case ÄÖÜ @EXAMPLE.COM [Z] `a{"...)
	for off := 0; off < 8; off++ {
		got := toLower(in[off:])
		for i, c := range in[off:] {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 'a' - 'A'
			}
			if got[i] != want {
				t.Fatalf("offset %d, byte %d (%#x): got %#x, want %#x", off, i, c, got[i], want)
			}
		}
	}
}

func TestParseHeaderFolding(t *testing.T) {
	raw := []byte("Subject: a\r\n  b\r\n\tc\r\nContent-Type: multipart/mixed;\nboundary=\"x\"\nX-Empty:\nTo: d@example.com\n\nbody")
	h, body, _ := parseHeader(raw)
	if got := string(h.get("subject")); got != "a b c" {
		t.Errorf("unfolded Subject %q, want %q", got, "a b c")
	}
	if got := string(h.get("Content-Type")); got != `multipart/mixed; boundary="x"` {
		t.Errorf("Content-Type with a broken fold %q", got)
	}
	if !h.has("x-empty") || h.getString("To") != "d@example.com" || string(body) != "body" {
		t.Errorf("fields %d, body %q", len(h), body)
	}
}

func TestDecodeWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"=?UTF-8?Q?Quarterly_report_=E2=80=93_draft?=", "Quarterly report – draft"},
		{"=?ISO-8859-1?Q?R=E9union?= du lundi", "Réunion du lundi"},
		{"=?utf-8?B?0J/RgNC40LI=?= =?utf-8?B?0LXRgg==?=", "Привет"},
		{"a =?ISO-2022-JP?B?GyRCJDMkcyRLJEEkTxsoQg==?= b", "a こんにちは b"},
		{"=?x-unknown?Q?abc?=", "=?x-unknown?Q?abc?="},
		{"=?utf-8?Q?broken", "=?utf-8?Q?broken"},
		{"=?=?utf-8?Q?x?=", "=?x"},
	} {
		if got := decodeWords(c.in); got != c.want {
			t.Errorf("decodeWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
