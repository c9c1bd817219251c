package decide

import (
	"mime"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

var enDe = []language.Tag{language.English, language.German}

func TestParseLanguageTakesOfferedLanguagesAndAuto(t *testing.T) {
	for _, c := range []struct {
		v, def string
		want   Language
		err    string
	}{
		{"", "", Language{Tag: language.English, Default: language.English}, ""},
		{"de", "", Language{Tag: language.German, Default: language.English}, ""},
		{"de-CH", "", Language{Tag: language.German, Default: language.English}, ""},
		{" AUTO ", "de", Language{Auto: true, Default: language.German}, ""},
		{"fr", "", Language{}, `language "fr": not a language ndrmilter writes (yet): expected one of en, de or auto`},
		{"!!", "", Language{}, `language "!!": not a language tag: expected one of en, de or auto`},
		{"auto", "ja", Language{}, `language_default "ja": not a language ndrmilter writes (yet): expected one of en, de`},
	} {
		got, err := ParseLanguage(c.v, c.def, enDe)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseLanguage(%q, %q) = %v, %v; want the error %q", c.v, c.def, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseLanguage(%q, %q) = %+v, %v; want %+v", c.v, c.def, got, err, c.want)
		}
	}
	// Without the offered languages (the rules are not loaded yet) only the
	// form is checked.
	if l, err := ParseLanguage("fr", "", nil); err != nil || l.Tag != language.French {
		t.Errorf("ParseLanguage(fr, nil) = %+v, %v; want fr", l, err)
	}
}

// originalBounce is a bounce whose message/rfc822 part has the header
// fields extra and the text body.
func originalBounce(extra, body string) []byte {
	return []byte("From: MAILER-DAEMON@mx.example\r\nTo: alice@example.com\r\nSubject: Undelivered\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nThe message could not be delivered.\r\n" +
		"--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example\r\n\r\n" +
		"Final-Recipient: rfc822; bob@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n" +
		"--b\r\nContent-Type: message/rfc822\r\n\r\nFrom: alice@example.com\r\nTo: bob@example.org\r\n" +
		"Subject: Termin\r\n" + extra + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n--b--\r\n")
}

func TestAutoWritesInTheLanguageOfTheOriginal(t *testing.T) {
	auto := Language{Auto: true, Default: language.English}
	german := "Hallo Bob, vielen Dank für die Nachricht. Wir schicken Ihnen den Bericht am Montag, wenn das für Sie passt."
	english := "Hello Bob, thanks for your note. We will send the report with the figures on Monday, if that is fine with you."
	for _, c := range []struct {
		name string
		raw  []byte
		l    Language
		want language.Tag
	}{
		{"Content-Language of the original", originalBounce("Content-Language: de-DE\r\n", english), auto, language.German},
		{"Content-Language not offered, text German", originalBounce("Content-Language: fr\r\n", german), auto, language.German},
		{"no Content-Language: told from the text", originalBounce("", german), auto, language.German},
		{"English text", originalBounce("", english), Language{Auto: true, Default: language.German}, language.English},
		{"too short to tell: the default", originalBounce("", "ok"), Language{Auto: true, Default: language.German}, language.German},
		{"no original: the default", []byte("Subject: x\r\n\r\nhello\r\n"), Language{Auto: true, Default: language.German}, language.German},
		{"one language: the original does not count", originalBounce("Content-Language: de\r\n", german), Language{Tag: language.English}, language.English},
		{"the zero Language is English", originalBounce("", german), Language{}, language.English},
	} {
		if got := c.l.For(c.raw, nil, enDe); got != c.want {
			t.Errorf("%s: For = %v; want %v", c.name, got, c.want)
		}
	}
}

func TestInboundWritesItsOwnWordsInTheLanguageOfTheFacts(t *testing.T) {
	unexplained := reading(dsn.KindBounce, "bob@remote.example", "failed", "5.1.1", "undefined", rules.OwnerUnknown, true, "", "", "")
	f := bounce(backscatter.Judgement{Verdict: backscatter.No}, unexplained)
	f.Language = language.German
	out := Inbound(Policy{SubjectTag: true}, f)
	var expl, subject string
	for _, h := range out.Add {
		if h.Name == hdrExplanation {
			expl = h.Value
		}
	}
	for _, h := range append(out.Change, out.Add...) {
		if h.Name == "Subject" {
			subject = h.Value
		}
	}
	dec := new(mime.WordDecoder)
	if got, err := dec.DecodeHeader(strings.ReplaceAll(expl, "\n\t", " ")); err != nil ||
		got != "bob@remote.example: Die Zustellung ist mit dem Status 5.1.1 fehlgeschlagen; eine Erklärung dafür ist nicht bekannt." {
		t.Errorf("X-NDR-Explanation %q decodes to %q (%v)", expl, got, err)
	}
	if got, err := dec.DecodeHeader(strings.ReplaceAll(subject, "\n\t", " ")); err != nil || !strings.HasPrefix(got, "[Unzustellbar: Zustellung fehlgeschlagen]") {
		t.Errorf("Subject %q decodes to %q (%v)", subject, got, err)
	}
}

func TestNoHeaderLineIsOver998OctetsWhateverTheWords(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, text := range []string{
		"Prüfen Sie " + long + " bitte.",
		"アドレス " + long + " を確認してください。" + strings.Repeat("確認", 600),
		strings.Repeat("ü", 4000),
	} {
		for _, tail := range []string{"", "=?utf-8?q?R=C3=A9union?= " + long} {
			v := encodeValue("Subject", text, tail)
			checkFolded(t, "Subject", v)
			checkEncodedWords(t, "Subject", v)
		}
	}
}
