package dsn

import (
	"bytes"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Labelled notices in other languages: the same "Label: value" lines as
// the English ones of noticelabels.go, as gateways and hosted filters
// write them in Japanese, German, French, Spanish, Portuguese, Italian and
// Dutch. Japanese mail gateways and filtering services (HENNGE One, HDE
// Mail, m-FILTER, GUARDIANWALL, Active! gate, Mail Defender) send plain
// text, often ISO-2022-JP (RFC 1468), with labels padded to one width by
// full-width spaces (U+3000) and ended by a colon, ASCII or full-width
// (U+FF1A): "宛先　　　: k.tanaka@example.co.jp", "拒否理由　：...". A
// label may be set off by a bullet ("■理由：") or lenticular brackets
// ("【理由】..."), as those notices do.

// foreignReasonLabels are the labels of a notice's own reason, in lower
// case: "理由", "Grund", "Raison", "Motivo", "Reden", as noticeCauseLabels'
// "reason" in English.
var foreignReasonLabels = [...]string{
	"拒否理由", "受信拒否理由", "ブロック理由", "不達理由", "エラー理由", "エラー内容", "エラー詳細", "詳細情報", "詳細",
	"理由", "原因",
	"grund", "ablehnungsgrund", "fehlergrund", "ursache",
	"raison", "motif", "cause",
	"motivo", "razón", "causa", "razão", "ragione", // es, pt, it (motivo and causa are all three)
	"reden", "oorzaak",
}

// foreignCauseLabels are the other labels of a notice's cause, in lower
// case: the policy or rule that applied and the attachment it named, as
// noticeCauseLabels gives them in English.
var foreignCauseLabels = [...]string{
	"ポリシー名", "ポリシー", "ルール名", "ルール", "添付ファイル名", "添付ファイル", "ファイル名",
	"richtlinie", "regel", "anhang", "dateiname",
	"politique", "règle", "pièce jointe", "nom du fichier",
	"política", "regla", "archivo adjunto", "adjunto", "nombre del archivo",
	"regra", "anexo", "nome do arquivo",
	"politica", "regola", "allegato", "nome del file",
	"beleid", "bijlage", "bestandsnaam",
}

// foreignReplyLabels are the labels after which a notice quotes the remote
// server's reply, in lower case, as noticeReplyLabels gives them in
// English.
var foreignReplyLabels = [...]string{
	"サーバーの応答", "サーバからの応答", "サーバーからの応答", "サーバ応答", "応答メッセージ", "エラーメッセージ", "診断情報",
	"antwort des servers", "serverantwort", "fehlermeldung",
	"réponse du serveur", "message d'erreur",
	"respuesta del servidor", "mensaje de error",
	"resposta do servidor", "mensagem de erro",
	"risposta del server", "messaggio di errore",
	"antwoord van de server", "serverantwoord", "foutmelding",
}

// foreignOtherLabels are the labels of the other lines of such notices,
// in lower case: the sender, the subject and the time, which describe the
// message and are neither its reply nor its cause. ("Date", a header's
// name in English, is left out: a copied header has it.)
var foreignOtherLabels = [...]string{
	"送信者", "差出人", "送信元", "件名", "送信日時", "受信日時", "日時", "メッセージid",
	"absender", "betreff", "gesendet", "expéditeur", "objet", "envoyé",
	"remitente", "asunto", "fecha", "remetente", "assunto", "mittente", "oggetto",
	"afzender", "onderwerp", "verzonden",
}

// labelBullets are the marks that may set off a label at the start of a
// line of a Japanese notice.
var labelBullets = [...]string{"■", "□", "●", "○", "◆", "◇", "・", "※", "▼", "▽", "*", "-"}

// foreignLabelValue reads line t (trimmed) as label lab (lower case) and
// its value: the label, padding (spaces, tabs, full-width spaces), then a
// colon (ASCII or full-width); or the label in lenticular brackets
// ("【理由】", a colon optional). The label is matched without regard to
// case. ok is false when t does not start with it.
func foreignLabelValue(t, lab []byte) (v []byte, ok bool) {
	h, bracket := labelHead(t)
	return headLabelValue(h, bracket, lab)
}

// labelHead is line t (trimmed) without its bullet (trimLabelBullet) and
// its opening lenticular bracket, which bracket reports: where a label of
// another language starts. It depends on the line alone, so a search of a
// list of labels takes it once (issue 14: taking it again for each label
// was a third of Parse's instructions).
func labelHead(t []byte) (h []byte, bracket bool) {
	h = trimLabelBullet(t)
	if bytes.HasPrefix(h, []byte("【")) {
		return h[len("【"):], true
	}
	return h, false
}

// headLabelValue is foreignLabelValue for a line whose head (labelHead) is
// h and bracket.
func headLabelValue(h []byte, bracket bool, lab []byte) (v []byte, ok bool) {
	if len(h) < len(lab) || !bytes.EqualFold(h[:len(lab)], lab) {
		return nil, false
	}
	v = trimLabelPadding(h[len(lab):])
	if bracket {
		if !bytes.HasPrefix(v, []byte("】")) {
			return nil, false
		}
		v = trimLabelPadding(v[len("】"):])
		if !bytes.HasPrefix(v, []byte(":")) && !bytes.HasPrefix(v, []byte("\uff1a")) {
			return v, true
		}
	}
	switch {
	case bytes.HasPrefix(v, []byte(":")):
		v = v[1:]
	case bytes.HasPrefix(v, []byte("\uff1a")):
		v = v[len("\uff1a"):]
	default:
		return nil, false
	}
	return trimLabelPadding(v), true
}

// foreignLabel is a label of another language (lower case) and the byte a
// head (labelHead) of ASCII must start with, in lower case, to start with
// the label without regard to case: the label's first byte, or the ASCII
// letter that folds to its first character (none folds to a Japanese one;
// U+212A KELVIN SIGN folds to k), or utf8.RuneSelf when there is none.
type foreignLabel struct {
	text    []byte
	initial byte
}

// newForeignLabels returns labels as foreignLabels.
func newForeignLabels(labels []string) []foreignLabel {
	out := make([]foreignLabel, len(labels))
	for i, l := range labels {
		out[i] = foreignLabel{text: []byte(l), initial: utf8.RuneSelf}
		r, _ := utf8.DecodeRuneInString(l)
		for f := r; ; {
			if f < utf8.RuneSelf {
				out[i].initial = ascii.Lower(byte(f))
				break
			}
			if f = unicode.SimpleFold(f); f == r {
				break
			}
		}
	}
	return out
}

// value is headLabelValue for the label, which first tells a head of ASCII
// by its first byte from a label it cannot start with.
func (l *foreignLabel) value(h []byte, bracket bool) (v []byte, ok bool) {
	if len(h) < len(l.text) || h[0] < utf8.RuneSelf && ascii.Lower(h[0]) != l.initial {
		return nil, false
	}
	return headLabelValue(h, bracket, l.text)
}

// trimLabelBullet drops one bullet mark and the padding after it from the
// start of t.
func trimLabelBullet(t []byte) []byte {
	if len(t) == 0 || !maybeBullet[t[0]] {
		return t
	}
	for _, b := range labelBullets {
		if bytes.HasPrefix(t, []byte(b)) {
			rest := trimLabelPadding(t[len(b):])
			if (b == "*" || b == "-") && len(rest) == len(t)-1 {
				return t // "-" or "*" without a space after it is no bullet
			}
			return rest
		}
	}
	return t
}

// maybeBullet holds the first bytes of labelBullets.
var maybeBullet = func() (m [256]bool) {
	for _, b := range labelBullets {
		m[b[0]] = true
	}
	return m
}()

// trimLabelPadding drops spaces, tabs and full-width spaces (U+3000) from
// the start of b.
func trimLabelPadding(b []byte) []byte {
	for len(b) > 0 {
		switch {
		case b[0] == ' ' || b[0] == '\t':
			b = b[1:]
		case bytes.HasPrefix(b, []byte("\u3000")):
			b = b[len("\u3000"):]
		default:
			return b
		}
	}
	return b
}

// foreignLabelLists are the foreign labels of a notice by what they
// introduce: reason labels, the other cause labels, reply labels, the
// others.
var foreignLabelLists = [...]struct {
	kind   labelKind
	labels []string
}{{labelCause, foreignReasonLabels[:]}, {labelCause, foreignCauseLabels[:]}, {labelReply, foreignReplyLabels[:]}, {labelOther, foreignOtherLabels[:]}}

// foreignLabelTables are the foreign labels as foreignLabels: the sets of
// foreignLabelLists, and foreignRecipientLabels.
type foreignLabelTables struct {
	sets      [len(foreignLabelLists)]foreignLabelSet
	recipient []foreignLabel
}

// foreignLabels returns the foreign label tables, built on first use: only
// a line that may start with a label (maybeForeignLabel,
// foreignLabelStart) needs them, and building them at start was half of
// the package's allocations there, for commands that read no notice
// (issue 14: start-up).
var foreignLabels = sync.OnceValue(func() *foreignLabelTables {
	t := &foreignLabelTables{recipient: newForeignLabels(foreignRecipientLabels[:])}
	for i, l := range foreignLabelLists {
		t.sets[i] = newForeignLabelSet(l.kind, l.labels)
	}
	return t
})

// foreignLabelSet is a list of foreign labels, with the indexes of those a
// head (labelHead) of ASCII may start with by its first byte: a line is
// tried against those alone (issue 14: trying every label was 4% of
// Parse's instructions).
type foreignLabelSet struct {
	kind      labelKind
	labels    []foreignLabel
	all       []uint8                // every index, for a head that starts beyond ASCII
	byInitial [utf8.RuneSelf][]uint8 // by foreignLabel.initial, in list order
}

// newForeignLabelSet returns the set of labels (at most 256), which
// introduce kind.
func newForeignLabelSet(kind labelKind, labels []string) foreignLabelSet {
	s := foreignLabelSet{kind: kind, labels: newForeignLabels(labels)}
	for i, l := range s.labels {
		s.all = append(s.all, uint8(i))
		if l.initial < utf8.RuneSelf {
			s.byInitial[l.initial] = append(s.byInitial[l.initial], uint8(i))
		}
	}
	return s
}

// candidates returns the indexes of the labels head h may start with, in
// list order: those of its first byte when it is ASCII (see
// foreignLabel.value), every one otherwise.
func (s *foreignLabelSet) candidates(h []byte) []uint8 {
	switch {
	case len(h) == 0:
		return nil
	case h[0] < utf8.RuneSelf:
		return s.byInitial[ascii.Lower(h[0])]
	}
	return s.all
}

// foreignNoticeLabel reads a trimmed line of a notice as a label of
// another language and its value (see foreignLabelValue): labelNone when
// it starts with none. Lines of ASCII alone are tried only against the
// labels written in ASCII; most lines of an English notice start with
// none, which the first byte tells.
func foreignNoticeLabel(t []byte) (labelKind, []byte) {
	if len(t) < 3 || !maybeForeignLabel(t[0]) {
		return labelNone, nil
	}
	h, bracket := labelHead(t)
	sets := &foreignLabels().sets
	for k := range sets {
		set := &sets[k]
		for _, i := range set.candidates(h) {
			if v, ok := set.labels[i].value(h, bracket); ok {
				return set.kind, v
			}
		}
	}
	return labelNone, nil
}

// maybeForeignLabel says whether a line starting with byte c may start
// with a foreign label: a letter of a label, a bullet, a bracket, or the
// first byte of a character beyond ASCII.
func maybeForeignLabel(c byte) bool {
	return c >= utf8.RuneSelf || foreignLabelInitial[c]
}

// foreignLabelInitial holds the ASCII first letters of the foreign labels
// (either case) and of the ASCII bullets.
var foreignLabelInitial = func() (m [256]bool) {
	m['*'], m['-'] = true, true
	for _, l := range foreignLabelLists {
		for _, lab := range l.labels {
			if c := lab[0]; c < utf8.RuneSelf {
				m[c] = true
				m[c&^0x20] = true
			}
		}
	}
	return m
}()

// foldWidth folds full-width ASCII, full-width spaces and punctuation to
// their ASCII forms and half-width katakana to full-width (Unicode UAX #11,
// golang.org/x/text/width.Fold), so that "（暗号化）ＺＩＰ" reads as
// "(暗号化)ZIP" for the rules. Text of ASCII alone is returned as it is.
func foldWidth(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return width.Fold.String(s)
		}
	}
	return s
}

// failurePhrasesJa are the Japanese sentences of gateway and ISP notices
// that state a delivery failure (failurePhrases): "could not be delivered"
// (配信・配送・送信できませんでした, お届けできませんでした), "delivery
// failed" (配送に失敗しました), "receipt was refused" (受信を拒否いたしました),
// "delivery was stopped" (配送を中止しました), "address unknown" (宛先不明).
// A notice in Japanese with Auto-Submitted: auto-replied is a bounce when
// it says so (issue 8 point 2). failureStated reads them.
var failurePhrasesJa = [...]string{
	"配信できませんでした", "配送できませんでした", "送信できませんでした", "お届けできませんでした",
	"届けることができませんでした", "配送に失敗", "配信に失敗", "送信に失敗", "受信を拒否", "受信拒否",
	"配送を中止", "配信を停止", "配送されませんでした", "配信されませんでした", "宛先不明",
}

// failureStatedJa says whether lower-case notice words hold one of
// failurePhrasesJa. Japanese is written without spaces, so a phrase is
// found anywhere, not at the start of a word as failurePhrases finds
// theirs.
func failureStatedJa(words []byte) bool {
	if isASCII(words) {
		return false
	}
	for _, p := range failurePhrasesJaBytes() {
		if bytes.Contains(words, p) {
			return true
		}
	}
	return false
}

// failurePhrasesJaBytes are failurePhrasesJa as byte slices: []byte(p) in
// the loop was a heap copy per phrase longer than 32 bytes at every call
// (issue 14: two allocations per message). bytes.Contains skips text of
// ASCII alone at the speed of IndexByte, which an automaton would read a
// byte at a time.
// They are made on first use: a notice of ASCII alone never needs them.
var failurePhrasesJaBytes = sync.OnceValue(func() (out [len(failurePhrasesJa)][]byte) {
	for i, p := range failurePhrasesJa {
		out[i] = []byte(p)
	}
	return out
})

// statesForeignReason says whether the lines of a block (buf) hold a
// reason label of another language (foreignReasonLabels) with a value.
func statesForeignReason(buf []byte) bool {
	for i := 0; i < len(buf); {
		line, next := ascii.NextLine(buf, i)
		i = next
		t := bytes.TrimSpace(line)
		if len(t) < 3 || !maybeForeignLabel(t[0]) {
			continue
		}
		h, bracket := labelHead(t)
		reasons := &foreignLabels().sets[0]
		for _, j := range reasons.candidates(h) {
			if v, ok := reasons.labels[j].value(h, bracket); ok && len(bytes.TrimSpace(v)) > 0 {
				return true
			}
		}
	}
	return false
}

// withJapaneseOpening returns the diagnostic d of a block of a Japanese
// labelled notice that states no reason line (statesForeignReason) nor
// code, with the sentence that opens the notice before it: the nearest
// paragraph above the block that states a failure in Japanese
// (failurePhrasesJa), "お送りいただいたメールは、当社の情報セキュリティポリシー
// により受信を拒否いたしました。", which is then its only cause. d as it is
// otherwise.
func (s *blockScanner) withJapaneseOpening(b *textBlock, d string) string {
	// The paragraphs are tried first: most notices have no Japanese one,
	// and the tests of d and of the block (a search for codes, a reading
	// of every line as a label) are then not needed.
	var stack [maxEarlier + 1][2]int // no allocation per block
	paras := stack[:0]
	if b.hasBefore {
		paras = append(paras, b.before)
	}
	for k := b.nEarlier - 1; k >= 0 && len(paras) < len(stack); k-- {
		paras = append(paras, b.earlier[k])
	}
	for _, p := range paras {
		e := s.text[p[0]:p[1]]
		if len(e) > maxBlockText || !failureStatedJa(e) {
			continue
		}
		if hasCode(d) || statesForeignReason(s.buf) {
			return d
		}
		opening := foldWidth(collapseSpace(s.sc, s.sc.add(e)))
		if d == "" {
			return opening
		}
		return s.sc.concat(opening, " ", d)
	}
	return d
}
