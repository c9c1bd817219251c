package decide

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// TestBodySummaryGoesWhereTheTextStarts: the summary is put in front of the
// text a mail reader shows first, and only where that text is written as it
// is; a message too broken to be sure of that place is left alone.
func TestBodySummaryGoesWhereTheTextStarts(t *testing.T) {
	const sum = "SUMMARY\r\n"
	for _, tc := range []struct {
		name, raw string
		want      string // the new body, "" for none
	}{
		{"plain message", "From: a@example.org\r\nSubject: x\r\n\r\nbody\r\n", sum + "body\r\n"},
		{"no content type is text/plain", "Subject: x\n\nbody\n", sum + "body\n"},
		{"first part of a report",
			"Content-Type: multipart/report; boundary=\"b\"\n\npreamble\n--b\nContent-Type: text/plain; charset=us-ascii\n\ntext\n--b\nContent-Type: message/delivery-status\n\nStatus: 5.1.1\n--b--\n",
			"preamble\n--b\nContent-Type: text/plain; charset=us-ascii\n\n" + sum + "text\n--b\nContent-Type: message/delivery-status\n\nStatus: 5.1.1\n--b--\n"},
		{"first part without a header",
			"Content-Type: multipart/mixed; boundary=b\n\n--b\n\ntext\n--b--\n",
			"--b\n\n" + sum + "text\n--b--\n"},
		{"parameter without its semicolon",
			"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n   charset=\"iso-2022-jp\"\n\ntext\n--b--\n",
			"--b\nContent-Type: text/plain\n   charset=\"iso-2022-jp\"\n\n" + sum + "text\n--b--\n"},
		{"base64 text", "Content-Transfer-Encoding: base64\n\nYm9keQ==\n", ""},
		{"quoted-printable first part", "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Transfer-Encoding: quoted-printable\n\ntext=\n--b--\n", ""},
		{"html", "Content-Type: text/html\n\n<p>body</p>\n", ""},
		{"first part is html", "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\n\n<p>x</p>\n--b--\n", ""},
		{"nested alternative", "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: multipart/alternative; boundary=c\n\n--c\n\ntext\n--c--\n--b--\n", ""},
		{"first part a multipart without boundary", "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: multipart/alternative\n\ntext\n--b--\n", ""},
		{"multipart without boundary", "Content-Type: multipart/mixed\n\n--b\n\ntext\n--b--\n", ""},
		{"boundary never in the body", "Content-Type: multipart/mixed; boundary=z\n\n--b\n\ntext\n--b--\n", ""},
		{"close delimiter first", "Content-Type: multipart/mixed; boundary=b\n\n--b--\n\nepilogue\n", ""},
		{"header ends at a line that is no field", "Subject: x\nnot a field\n\nbody\n", ""},
		{"header ends at a line of blanks", "Subject: x\n   \nbody\n", ""},
		{"header never ends", "Subject: x\nTo: y@example.org\n", ""},
		{"part header ends at a line that is no field", "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\ntext at once\n--b--\n", ""},
	} {
		got := string(withSummary([]byte(tc.raw), func(bool) string { return sum }))
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestBodySummaryIsASCII: whatever the bounce says, the summary lines are
// ASCII, at most 76 characters when the words allow it, in CRLF.
func TestBodySummaryIsASCII(t *testing.T) {
	hostile := rules.Reading{
		Recipient:      dsn.Recipient{Address: "jörg@例え.example\r\nX-NDR-Owner: none", Action: "failed"},
		Classification: rules.Classification{Explanation: "Zustellung fehlgeschlagen \x1b[2J — " + strings.Repeat("très long ", 20), Status: "5.1.1"},
	}
	text := summaryText([]rules.Reading{hostile, hostile}, backscatter.Judgement{Verdict: backscatter.Yes}, language.English, true)
	if !strings.Contains(text, "j?rg@??.example X-NDR-Owner: none: Zustellung fehlgeschlagen [2J ? tr?s long") {
		t.Errorf("summary does not carry the explanation made ASCII:\n%s", text)
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n") {
		if len(line) > 76 {
			t.Errorf("summary line of %d characters: %q", len(line), line)
		}
		for i := 0; i < len(line); i++ {
			if line[i] >= 0x80 || line[i] < ' ' {
				t.Fatalf("summary line %q has byte %#x", line, line[i])
			}
		}
	}
}

func TestBodySummaryInGermanAndJapanese(t *testing.T) {
	de := rules.Reading{
		Recipient:      dsn.Recipient{Address: "bob@remote.example", Action: "failed"},
		Classification: rules.Classification{Explanation: "Die Nachricht wurde abgelehnt, weil das Postfach des Empfängers voll ist.", Fix: "Senden Sie sie später noch einmal.", Status: "5.2.2"},
	}
	ascii := summaryText([]rules.Reading{de}, backscatter.Judgement{Verdict: backscatter.No}, language.German, false)
	for _, want := range []string{"[ndrmilter] Was diese Unzustellbarkeitsnachricht bedeutet:", "Empfaengers voll ist. Senden Sie sie spaeter noch einmal.",
		"Die Nachricht, um die es geht, wurde von hier gesendet."} {
		if !strings.Contains(ascii, want) {
			t.Errorf("German summary for a part that is not UTF-8 lacks %q:\n%s", want, ascii)
		}
	}
	if !isASCII(ascii) {
		t.Errorf("German summary for a part that is not UTF-8 is not ASCII:\n%s", ascii)
	}
	utf8 := summaryText([]rules.Reading{de}, backscatter.Judgement{}, language.German, true)
	if !strings.Contains(utf8, "Empfängers voll ist. Senden Sie sie später noch einmal.") {
		t.Errorf("German summary for a UTF-8 part lost its umlauts:\n%s", utf8)
	}
	ja := de
	ja.Explanation = strings.Repeat("メッセージは受信者のメールボックスがいっぱいのため拒否されました。", 4)
	if got := summaryText([]rules.Reading{ja}, backscatter.Judgement{}, language.Japanese, false); got != "" {
		t.Errorf("Japanese summary for a part that is not UTF-8: %q; want none (its words would be lost)", got)
	}
	for _, line := range strings.Split(summaryText([]rules.Reading{ja}, backscatter.Judgement{}, language.Japanese, true), "\r\n") {
		if len(line) > 76 {
			t.Errorf("Japanese summary line of %d octets: %q", len(line), line)
		}
	}
}
