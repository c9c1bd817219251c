package dsn

import (
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestJapaneseGatewayNoticeNamesTheLabelledRecipientInEveryEncoding checks
// that a Japanese gateway's notice, in ISO-2022-JP (7bit), Shift_JIS
// (base64) and UTF-8 (base64 and 8bit), reports the address of its 宛先 /
// 受信者 line, padded with full-width spaces or set in brackets, with the
// value of its labelled reason line as the diagnostic (its opening
// sentence when it has no reason line), and never the address of its
// contact block.
func TestJapaneseGatewayNoticeNamesTheLabelledRecipientInEveryEncoding(t *testing.T) {
	for _, c := range []struct {
		file, recipient, cause, contact string
	}{
		{"ja-gateway-notice-01.eml", "k.tanaka@kaisha.example.co.jp", "パスワード付き(暗号化)ZIPファイルが添付されています", "mail-admin@kaisha.example.co.jp"},
		{"ja-gateway-notice-02.eml", "h.suzuki@shoji.example.jp", "メールサイズが上限を超えています", "postmaster@shoji.example.jp"},
		{"ja-gateway-notice-03.eml", "m.kobayashi@seisakusho.example.jp", "ウイルスが検出されました(Trojan.Agent-12345)", "security-desk@seisakusho.example.jp"},
		{"ja-gateway-notice-05.eml", "n.watanabe@isp.example.ne.jp", "メールボックスの容量を超えている", "support@isp.example.ne.jp"},
		// No reason line: the opening sentence is the cause.
		{"ja-gateway-notice-06.eml", "t.yoshida@bussan.example.co.jp", "メールセキュリティポリシーにより受信を拒否いたしました", "secadmin@bussan.example.co.jp"},
	} {
		b, err := os.ReadFile("../internal/testdata/bounces/eml/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if rep.Kind != KindBounce || len(rep.Recipients) != 1 {
			t.Fatalf("%s: kind %s with %d recipients, want one bounce", c.file, rep.Kind, len(rep.Recipients))
		}
		rc := rep.Recipients[0]
		if rc.Address != c.recipient {
			t.Errorf("%s: recipient %q, want %q", c.file, rc.Address, c.recipient)
		}
		if !strings.Contains(rc.Diagnostic, c.cause) {
			t.Errorf("%s: diagnostic %q lacks the labelled cause %q", c.file, rc.Diagnostic, c.cause)
		}
		if strings.Contains(rc.Diagnostic, c.contact) {
			t.Errorf("%s: diagnostic %q holds the contact block", c.file, rc.Diagnostic)
		}
	}
}

// TestContactBlockAloneNamesNoRecipient checks that a notice that names no
// recipient, only the address of its contact block (a heading, a
// department line, then the address), reports no recipient rather than
// the contact.
func TestContactBlockAloneNamesNoRecipient(t *testing.T) {
	b, err := os.ReadFile("../internal/testdata/bounces/eml/ja-gateway-notice-04.eml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != KindBounce || len(rep.Recipients) != 1 {
		t.Fatalf("kind %s with %d recipients, want one bounce", rep.Kind, len(rep.Recipients))
	}
	if a := rep.Recipients[0].Address; a != "" {
		t.Errorf("recipient %q, want none: the contact block's address is given to write to", a)
	}
	if d := rep.Recipients[0].Diagnostic; !strings.Contains(d, "受信ポリシーにより配信を停止しました") {
		t.Errorf("diagnostic %q lacks the labelled reason", d)
	}
}

// TestLabelledNoticeInOtherLanguagesKeepsItsContactOut checks the same
// labels in German, French, Spanish, Portuguese, Italian and Dutch: the
// recipient line's address is the one failed recipient, the contact
// block's is none, and the reason line is the diagnostic.
func TestLabelledNoticeInOtherLanguagesKeepsItsContactOut(t *testing.T) {
	for _, c := range []struct {
		file, recipient, cause string
	}{
		{"foreign-gateway-labels-01.eml", "b.schulz@firma.example.de", "Grund: Empfänger unbekannt (550 5.1.1 User unknown)"},
		{"foreign-gateway-labels-02.eml", "j.dupont@societe.example.fr", "Motif : Boîte aux lettres pleine"},
		{"foreign-gateway-labels-03.eml", "p.ruiz@empresa.example.es", "Motivo: El mensaje supera el tamaño máximo permitido"},
		{"foreign-gateway-labels-04.eml", "f.lima@empresa.example.com.br", "Motivo: 550 5.1.1 Usuário desconhecido"},
		{"foreign-gateway-labels-05.eml", "m.bianchi@azienda.example.it", "Motivo: Casella di posta piena"},
		{"foreign-gateway-labels-06.eml", "p.jansen@bedrijf.example.nl", "Reden: 550 5.1.1 Onbekende gebruiker"},
	} {
		b, err := os.ReadFile("../internal/testdata/bounces/eml/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(rep.Recipients) != 1 || rep.Recipients[0].Address != c.recipient {
			var got []string
			for _, rc := range rep.Recipients {
				got = append(got, rc.Address)
			}
			t.Errorf("%s: recipients %q, want only %q", c.file, got, c.recipient)
			continue
		}
		if d := collapseSpace(nil, rep.Recipients[0].Diagnostic); !strings.Contains(d, c.cause) {
			t.Errorf("%s: diagnostic %q lacks %q", c.file, d, c.cause)
		}
	}
}

// TestForeignLabelValueReadsPaddingColonsAndBrackets checks the forms of a
// label line: padded with full-width spaces, an ASCII or a full-width
// colon, lenticular brackets, a bullet; and that a label must be whole.
func TestForeignLabelValueReadsPaddingColonsAndBrackets(t *testing.T) {
	for _, c := range []struct {
		line, label, value string
		ok                 bool
	}{
		{"宛先　　　: k.tanaka@example.co.jp", "宛先", "k.tanaka@example.co.jp", true},
		{"拒否理由　：パスワード付きZIP", "拒否理由", "パスワード付きZIP", true},
		{"【理由】 メールサイズ超過", "理由", "メールサイズ超過", true},
		{"■理由：容量超過", "理由", "容量超過", true},
		{"EMPFÄNGER:  b@example.de", "empfänger", "b@example.de", true},
		{"Motif : Boîte pleine", "motif", "Boîte pleine", true},
		{"理由があって送れません", "理由", "", false},
		{"宛先アドレス: a@example.jp", "宛先", "", false},
		{"-理由: x", "理由", "", false},
	} {
		v, ok := foreignLabelValue([]byte(c.line), []byte(c.label))
		if ok != c.ok || string(v) != c.value {
			t.Errorf("foreignLabelValue(%q, %q) = %q, %v; want %q, %v", c.line, c.label, v, ok, c.value, c.ok)
		}
	}
}

// TestForeignLabelInitialRejectsOnlyWhatEqualFoldWould checks that the
// first-byte test of foreignLabel.value turns away no line that
// headLabelValue (bytes.EqualFold) reads as the label: every label of the
// lists, in lower, upper and title case, behind every ASCII byte, and with
// the characters that fold to ASCII letters (U+212A KELVIN SIGN, U+017F
// LONG S) in place of its first letter or, in a label, before it.
func TestForeignLabelInitialRejectsOnlyWhatEqualFoldWould(t *testing.T) {
	var labels []foreignLabel
	for _, set := range foreignLabels().sets {
		labels = append(labels, set.labels...)
	}
	labels = append(labels, foreignLabels().recipient...)
	// "\u212ak" is "k\u212a" without regard to case, a line of ASCII
	// first byte of the same length.
	labels = append(labels, newForeignLabels([]string{"kelvin", "sender", "\u212aelvin", "\u017fender", "\u212ak"})...)
	for _, l := range labels {
		lab := string(l.text)
		first, size := utf8.DecodeRuneInString(lab)
		rest := lab[size:]
		lines := []string{lab, strings.ToUpper(lab), string(unicode.ToUpper(first)) + rest, "\u212a" + rest, "\u017f" + rest, "K" + rest, "S" + rest, "k\u212a"}
		for c := 0; c < utf8.RuneSelf; c++ {
			lines = append(lines, string(rune(c))+rest)
		}
		for _, line := range lines {
			for _, form := range []string{line + ": v", "【" + line + "】v"} {
				h, bracket := labelHead([]byte(form))
				want, wantOK := headLabelValue(h, bracket, l.text)
				got, gotOK := l.value(h, bracket)
				if gotOK != wantOK || string(got) != string(want) {
					t.Errorf("label %q, line %q: value = %q, %v; headLabelValue = %q, %v", lab, form, got, gotOK, want, wantOK)
				}
			}
		}
	}
}

// TestForeignLabelCandidatesFindTheFirstLabel checks that a set tried
// through candidates gives, for lines of every label and case, the label
// a try of the whole list with headLabelValue finds first.
func TestForeignLabelCandidatesFindTheFirstLabel(t *testing.T) {
	sets := &foreignLabels().sets
	for k := range sets {
		set := &sets[k]
		for _, l := range set.labels {
			lab := string(l.text)
			first, size := utf8.DecodeRuneInString(lab)
			for _, line := range []string{lab + ": v", strings.ToUpper(lab) + "：v", "■" + string(unicode.ToUpper(first)) + lab[size:] + " : v", "【" + lab + "】v", "x" + lab + ": v"} {
				h, bracket := labelHead([]byte(line))
				want := -1
				for i := range set.labels {
					if _, ok := headLabelValue(h, bracket, set.labels[i].text); ok {
						want = i
						break
					}
				}
				got := -1
				for _, i := range set.candidates(h) {
					if _, ok := set.labels[i].value(h, bracket); ok {
						got = int(i)
						break
					}
				}
				if got != want {
					t.Errorf("set %d, line %q: label %d through candidates, %d in the whole list", k, line, got, want)
				}
			}
		}
	}
}

// TestJapaneseFailureSentenceMakesAnAutoRepliedNoticeABounce checks that
// a Japanese notice marked Auto-Submitted: auto-replied is a bounce when
// its text says the message was refused (受信を拒否いたしました), and that
// a Japanese out-of-office reply stays an auto-reply.
func TestJapaneseFailureSentenceMakesAnAutoRepliedNoticeABounce(t *testing.T) {
	b, err := os.ReadFile("../internal/testdata/bounces/eml/ja-gateway-notice-01.eml")
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := Parse(b); rep == nil || rep.Kind != KindBounce {
		t.Errorf("gateway notice read as %v, want a bounce", rep)
	}
	if !failureStatedJa([]byte("当社のポリシーにより受信を拒否いたしました。")) {
		t.Error("受信を拒否 not read as a failure")
	}
	if failureStatedJa([]byte("ただいま不在にしております。12月3日に戻ります。")) {
		t.Error("an out-of-office sentence read as a failure")
	}
}

// TestIsASCII checks isASCII at every place of a text of ASCII, the
// eight-byte words and the bytes after them.
func TestIsASCII(t *testing.T) {
	text := []byte("Delivery to the following recipients failed permanently")
	if !isASCII(text) || !isASCII(nil) {
		t.Errorf("isASCII of ASCII text = false")
	}
	for i := range text {
		b := append([]byte(nil), text...)
		b[i] = 0xE3
		if isASCII(b) {
			t.Errorf("isASCII with a byte 0xE3 at %d = true", i)
		}
	}
}
