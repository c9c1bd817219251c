package smtpcode

import "testing"

func TestFindStatus(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"550 5.1.1 <a@example.com>: user unknown", "5.1.1"},
		{"Sorry, no mailbox here by that name. (#5.1.1)", "5.1.1"},
		{"host 192.0.2.5 said: 550 4.7.1 go away", "4.7.1"},
		{"451 4.7.650 rate limited", "4.7.650"},
		{"550 Requested action not taken", ""},
		{"", ""},
		// Specific beats generic, wherever it stands.
		{"550 5.0.0 <bob@example.net>... 5.7.1 Relaying denied", "5.7.1"},
		{"5.0.0 then 5.2.2", "5.2.2"},
		{"550 5.0.0 only", "5.0.0"},
		{"550 5.0.000 zeros", "5.0.000"},
		// The code after the reply code beats an earlier one.
		{"5.1.0 - Unknown address error 550-'5.2.2 mailbox full'", "5.2.2"},
		// "554 4.4.7" pairs a 5yz reply with a 4.X.X code: the reporting
		// MTA's summary, not a server's reply; the reply under it is.
		{"554 4.4.7 expired <421 4.4.2 Connection timed out>", "4.4.2"},
		{"said: 550-5.1.1 The email account does not exist 550 5.1.1 try again", "5.1.1"},
		// A generic code after the reply code gives way to a precise one
		// anywhere, before or after it.
		{"5.2.1 disabled; 550 5.0.0 refused", "5.2.1"},
		{"550-5.0.0 refused 550-5.7.1 policy", "5.7.1"},
		// Subjects: one digit, 0-7.
		{"550 5.8.1 no", ""},
		{"550 5.9.0 no", ""},
		{"550 5.7.1 yes", "5.7.1"},
		{"score 5.13.68 no", ""},
		{"engine=2.50.10432:5.13.68,1.0.28", ""},
		// Not part of something longer.
		{"version 5.2.10.1 of the software", ""},
		{"connect to 5.1.1.9[5.1.1.9]:25: refused", ""},
		{"host [192.0.5.1.1] refused", ""},
		{"Mail server v2.1.12 said: 550 no", ""},
		{"(20011202/4.0.3) said no", ""},
		{"mxl_mta-5.5.0-3", ""},
		{"ticket 45501-5.1.1 no", ""},
		{"codes 5.1.2,5.1.3 in a list", ""},
		{"550 5.1.1000 no", ""},
		{"5.1.1-2 range", ""},
		// Codes may follow punctuation.
		{"dsn=5.1.1, status=bounced", "5.1.1"},
		{"ERROR_CODE :5.2.2 <a@example.jp>", "5.2.2"},
		{`"status":"5.1.1"`, "5.1.1"},
		{"Status: 5.1.1\n", "5.1.1"},
		{"5.1.1", "5.1.1"},
		{"5.1.1, user unknown", "5.1.1"},
		{"5.7.1.", "5.7.1"},
	} {
		if got := FindStatus(c.text); got != c.want {
			t.Errorf("FindStatus(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestStatusAfterReply(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"550 5.1.1 user unknown", "5.1.1"},
		{"550-5.1.1 user unknown", "5.1.1"},
		{"error 550-'5.2.2 mailbox full'", "5.2.2"},
		{"550 #5.1.0 Address rejected", "5.1.0"},
		{"550 (5.1.1) unknown", "5.1.1"},
		{"550 5.0.0 refused", "5.0.0"},
		{"554 4.4.7 expired <421 4.4.2 timed out>", "4.4.2"}, // the class must agree
		{"5.1.1 user unknown", ""},
		{"x550 5.1.1", ""},
		{"1550 5.1.1", ""},
		{"550 5.8.1", ""},
		{"550  5.1.1", ""},
		{"", ""},
	} {
		if got := StatusAfterReply(c.text); got != c.want {
			t.Errorf("StatusAfterReply(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestStatusPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"5.7.26 Unauthenticated": "5.7.26",
		"5.1.1":                  "5.1.1",
		"5.1.1.2 address":        "",
		"5.13.1 x":               "",
		"Unauthenticated":        "",
		"":                       "",
	} {
		if got := StatusPrefix(in); got != want {
			t.Errorf("StatusPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFindReply(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"550 5.1.1 <a@example.com>: User unknown", "550"},
		{"550-5.1.1 The email account", "550"},
		{"host mx.example.net[192.0.2.1] said: 550 5.1.1 unknown", "550"},
		{"smtp; 550 5.7.1 blocked", "550"},
		{"550:5.7.1 no", "550"},
		{"550", "550"},
		{"(554) refused", "554"},
		{"[421]\tclosing", "421"},
		{`"452" busy`, "452"},
		// Not a reply.
		{"error 550", ""},
		{"x: 550: no", ""},
		{"message size 552 bytes over the limit", ""},
		{"550 bytes of headers is too many", ""},
		{"421 Seconds to wait", ""},
		{"560 5.7.1 no", ""},
		{"354 go ahead", ""},
		{"15501 refused", ""},
		{"ID 4550a refused", ""},
		{"port=550 x", ""},
		{"5.5.0 refused", ""},
		{"v550 x", ""},
		{"#550. x", ""},
		{"", ""},
	} {
		if got := FindReply(c.text); got != c.want {
			t.Errorf("FindReply(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestScannersFindOnlyValidCodes: whatever the text, what a scanner returns
// parses, and a status found in text has a registered subject.
func TestScannersFindOnlyValidCodes(t *testing.T) {
	texts := []string{
		"550 5.1.1 x", "5.0.0 5.7.1", "2.1.5", "421-4.7.0 x 421 4.7.0 y", "550-'5.2.2'", "#4.4.1",
		"5.8.1 5.9.9 5.13.1 4.7.999 4.7.9999", "5.7.", "5.", "550-", "550 5", "550 5.1", "550 5.1.",
	}
	for _, s := range texts {
		for i := 0; i <= len(s); i++ {
			checkFound(t, s[i:])
			checkFound(t, s[:i])
		}
	}
}

func checkFound(t *testing.T, text string) {
	t.Helper()
	for _, code := range []string{FindStatus(text), StatusAfterReply(text), StatusPrefix(text)} {
		if code == "" {
			continue
		}
		st, err := ParseStatus(code)
		if err != nil || !st.Registered() {
			t.Errorf("%q: found %q, which is not a registered status (%v)", text, code, err)
		}
	}
	if r := FindReply(text); r != "" && !IsReply(r) {
		t.Errorf("%q: FindReply found %q, which is not a reply code", text, r)
	}
}

// TestScannersDoNotAllocate: the scanners run on every recipient of every
// bounce; they return slices of their input.
func TestScannersDoNotAllocate(t *testing.T) {
	text := "Technical details: host mx.example.net[192.0.2.1] said: 550-5.0.0 refused 550-5.7.1 policy (v2.1.12) 552 bytes"
	allocs := testing.AllocsPerRun(100, func() {
		_ = FindStatus(text)
		_ = StatusAfterReply(text)
		_ = StatusPrefix(text)
		_ = FindReply(text)
		_ = IsStatus("5.7.509")
		_ = IsReply("550")
	})
	if allocs != 0 {
		t.Errorf("scanners allocate %v times per run, want 0", allocs)
	}
}

func FuzzScanners(f *testing.F) {
	for _, s := range []string{"550 5.1.1 x", "5.0.0 then 5.7.1", "550-'5.2.2'", "(#5.1.1)", "192.0.5.1.1", "550 bytes", "\xff5.1.1\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkFound(t, text)
	})
}

func BenchmarkFindStatus(b *testing.B) {
	text := "Technical details of permanent failure: Google tried to deliver your message, but it was rejected by the server for the recipient domain example.net by mx.example.net. [192.0.2.25]. The error that the other server returned was: 550-5.1.1 The email account that you tried to reach does not exist."
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		_ = FindStatus(text)
		_ = FindReply(text)
	}
}
