package explanation

import (
	"regexp"
	"testing"
)

// codeArgumentPattern is what codeArgument reads, as the regular expression
// it replaced: the tests hold it to that reading.
var codeArgumentPattern = regexp.MustCompile(`(?is)^(?:diagnostic-code:\s*)?(?:[a-z][a-z0-9-]*;\s*)?` +
	`((?:[2-5][0-5][0-9](?:[ \t-]|$)|[245]\.[0-9]{1,3}\.[0-9]{1,3}(?:[ \t]|$)).*)$`)

// codeArgumentQueries are queries at the edges of the reading: each
// optional part present or not, codes of every length, what may follow
// them, case and Unicode folding, and near misses.
var codeArgumentQueries = []string{
	"", "5", "55", "550", "550 ", "550-", "550\t", "550x", "5500", "550\n", "599", "560", "150", "650", "250 ok",
	"5.1.1", "5.1.1 ", "5.1.1\t", "5.1.1-", "5.1.1x", "5.1.1\n", "5.123.123", "5.1234.1", "5.1.1234", "5..1", "5.1.", "5.1",
	"3.1.1", "2.0.0", "4.4.7 later", "5.7.509 Access denied", "550 5.7.26 Unauthenticated",
	"Diagnostic-Code: smtp; 550 5.1.1 no such user", "diagnostic-code:550", "DIAGNOSTIC-CODE:\t\r\n\f 550",
	"Diagnostic-Code smtp; 550", "Diagnostic-Code: smtp;550", "Diagnostic-Code: smtp;\v550", "smtp; 550", "smtp;550", "x-unix; 5.1.1",
	"SMTP; 5.1.1", "s-1; 550", "1smtp; 550", "-smtp; 550", "smtp 550", "smtp;; 550", "smtp; ; 550", "a;b; 550",
	"diagnostic-code: diagnostic-code: 550", "diagnostic-code; 550", "diagnoſtic-code: 550", "ſmtp; 550", "\u212aey; 550",
	"diagnostic-code: \u212a; 5.1.1", "é; 550", "smtp; 550 \xff\xfe", "550 line one\nline two", "Diagnostic-Code: \xff; 550",
	"hello", "999 no", "From: a@b", "5.7", "smtp;", "diagnostic-code:", "diagnostic-code: smtp;",
}

func TestCodeArgumentReadsAsItsRegularExpression(t *testing.T) {
	for _, q := range codeArgumentQueries {
		checkCodeArgument(t, q)
	}
}

func FuzzCodeArgument(f *testing.F) {
	for _, q := range codeArgumentQueries {
		f.Add(q)
	}
	f.Fuzz(checkCodeArgument)
}

// checkCodeArgument fails t when codeArgument and codeArgumentPattern read
// q differently: one accepts and the other not, or the code starts at
// another place.
func checkCodeArgument(t *testing.T, q string) {
	m := codeArgumentPattern.FindStringSubmatchIndex(q)
	start, ok := codeArgument(q)
	switch {
	case ok != (m != nil):
		t.Errorf("%q: codeArgument says %t, the expression %t", q, ok, m != nil)
	case ok && start != m[2]:
		t.Errorf("%q: codeArgument has the code at %d, the expression at %d", q, start, m[2])
	}
}
