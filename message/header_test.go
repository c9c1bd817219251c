package message

import (
	"testing"
)

func TestParseHeaderFolding(t *testing.T) {
	raw := []byte("Subject: a\r\n  b\r\n\tc\r\nContent-Type: multipart/mixed;\nboundary=\"x\"\nX-Empty:\nTo: d@example.com\n\nbody")
	h, body, _ := ReadHeader(raw)
	if got := string(h.Get("subject")); got != "a b c" {
		t.Errorf("unfolded Subject %q, want %q", got, "a b c")
	}
	if got := string(h.Get("Content-Type")); got != `multipart/mixed; boundary="x"` {
		t.Errorf("Content-Type with a broken fold %q", got)
	}
	if !h.Has("x-empty") || h.GetString("To") != "d@example.com" || string(body) != "body" {
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
		if got := DecodeWords(c.in); got != c.want {
			t.Errorf("DecodeWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
