package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// An auto-reply (RFC 3834: an out-of-office notice, a "thank you for your
// message") says what the reader needs in its own first sentences: the
// return date and the person to write to meanwhile. The explanation quotes
// them (autoreplyQuote) rather than telling the reader to go and read the
// reply.

// maxAutoreplyQuote caps the quoted sentences of an auto-reply, in bytes:
// room for what it is, the return date and the person to write to.
const maxAutoreplyQuote = 400

// maxQuotedSentences is how many sentences of an auto-reply are quoted
// when none of them carries a date, an address or a phone number.
const maxQuotedSentences = 3

// maxAutoreplyScan bounds the text of an auto-reply read for sentences,
// in bytes: the return date and the contact are in its first paragraphs.
const maxAutoreplyScan = 4096

// maxGreeting is the longest line taken for a salutation ("Guten Tag,",
// "Dear Sir or Madam,") and skipped.
const maxGreeting = 60

// autoreplyQuote returns what an auto-reply's text (notice, the reply's
// human-readable part, decoded) says the reader needs, one line, without
// control or bidirectional formatting characters, without double quotes
// (it is shown between them), cut at a word to maxAutoreplyQuote; "" when
// the text has no sentence of words. Its courtesy sentences ("Thank you
// for your message") are skipped; the sentences that carry a date, an
// e-mail address or a phone number (replyFact) are quoted, in their order,
// with the first sentence that says what the reply is; without such
// sentences, the first maxQuotedSentences of the text.
func autoreplyQuote(notice string) string { return autoreplyQuoteFor(notice, "en") }

// autoreplyQuoteFor is autoreplyQuote for a reader of the language reader:
// of a notice in two languages, the sentences in the reader's (see
// inQuoteLanguage).
func autoreplyQuoteFor(notice string, reader quoteLang) string {
	// Terminal drops the controls but line ends and the bidirectional
	// formatting characters, and invalid UTF-8.
	if len(notice) > maxAutoreplyScan {
		notice = notice[:maxAutoreplyScan]
	}
	// The sentences, the flags and the quote are on the stack for a reply
	// of up to maxStackSentences sentences (issue 14: allocations).
	var sentences [maxStackSentences]replySentence
	kept := replySentences(sentences[:0], textclean.Terminal(notice))
	kept = inQuoteLanguage(kept, reader)
	n := 0
	for _, rs := range kept {
		if !courtesy(rs.text) || replyFact(rs.text) {
			kept[n] = rs
			n++
		}
	}
	kept = kept[:n]
	var flags [maxStackSentences]bool
	chosen := flags[:0]
	if len(kept) <= len(flags) {
		chosen = flags[:len(kept)]
	} else {
		chosen = make([]bool, len(kept))
	}
	size := 0
	add := func(i int) {
		if chosen[i] || (size > 0 && size+1+len(kept[i].text) > maxAutoreplyQuote) {
			return
		}
		chosen[i] = true
		size += 1 + len(kept[i].text)
	}
	for i, rs := range kept {
		if replyFact(rs.text) {
			add(i)
		}
	}
	if size > 0 {
		add(0)
	} else {
		for i := 0; i < len(kept) && i < maxQuotedSentences && kept[i].paragraph == kept[0].paragraph; i++ {
			add(i)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i, rs := range kept {
		if !chosen[i] {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(rs.text)
	}
	s := textclean.Line(strings.ReplaceAll(b.String(), `"`, "'"), 4*maxAutoreplyQuote)
	if !hasWords(s) {
		return ""
	}
	return cutAtWord(s, maxAutoreplyQuote)
}

// A replySentence is one sentence of an auto-reply's text and the number
// of the paragraph it is in.
type replySentence struct {
	text      string
	paragraph int
}

// maxStackSentences is how many sentences of an auto-reply autoreplyQuote
// keeps on the stack; a longer reply takes an allocation.
const maxStackSentences = 32

// replySentences appends to out the sentences of an auto-reply's text after
// its salutation, up to its sign-off, its signature ("-- ", RFC 3676
// section 4.3) or the quoted original message; a paragraph's end ends a
// sentence.
func replySentences(out []replySentence, notice string) []replySentence {
	// The paragraphs, their lines joined by a space, are written one after
	// the other into one buffer, never longer than notice: one allocation.
	// A sentence is a part of the buffer as it stood when its paragraph
	// ended.
	var para strings.Builder
	para.Grow(len(notice))
	start, paragraph := 0, 0
	flush := func() {
		rest := para.String()[start:]
		start = para.Len()
		for rest != "" {
			_, end := sentenceEnds(rest, 1)
			if t := strings.TrimSpace(rest[:end]); t != "" {
				out = append(out, replySentence{t, paragraph})
			}
			rest = strings.TrimLeft(rest[end:], " ")
		}
		paragraph++
	}
	started := false
	for line := range strings.Lines(notice) {
		if strings.TrimRight(line, "\r\n") == "-- " {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		if quotedLine(t) || signOff(t) {
			if started {
				break
			}
			continue
		}
		if !started && greeting(t) {
			continue
		}
		started = true
		if para.Len() > start {
			para.WriteByte(' ')
		}
		para.WriteString(t)
	}
	flush()
	return out
}

// courtesyOpenings are lower-case openings of the courtesy sentences that
// begin auto-replies and say nothing the reader needs, in the languages
// the product reads.
var courtesyOpenings = [...]string{
	"thank you for your message", "thank you for your email", "thank you for your e-mail", "thank you for your mail",
	"thank you for contacting", "thank you for your enquiry", "thank you for your inquiry", "thanks for your message",
	"thanks for your email", "thanks for your e-mail", "many thanks for your",
	"gracias por su mensaje", "gracias por su correo", "gracias por tu mensaje", "gracias por tu correo",
	"gracias por su e-mail", "gracias por su email", "gracias por escribir", "gracias por contactar",
	"merci pour votre message", "merci pour votre courriel", "merci pour votre e-mail", "merci pour votre mail",
	"merci de votre message", "merci de votre courriel", "merci pour votre email",
	"vielen dank für ihre nachricht", "vielen dank für ihre e-mail", "vielen dank für ihre mail", "vielen dank für ihre email",
	"danke für ihre nachricht", "danke für ihre e-mail", "danke für ihre mail", "herzlichen dank für ihre",
	"grazie per il messaggio", "grazie per il suo messaggio", "grazie per il tuo messaggio", "grazie per la sua email",
	"grazie per la sua e-mail", "grazie per la tua email", "grazie per la sua mail",
	"obrigado pela sua mensagem", "obrigada pela sua mensagem", "obrigado pelo seu e-mail", "obrigado pelo seu email",
	"obrigado pelo contato", "bedankt voor uw bericht", "bedankt voor je bericht", "bedankt voor uw e-mail",
	"bedankt voor uw mail", "dank u voor uw bericht",
	// The opening of Japanese business mail ("we are always in your
	// debt"), a courtesy as "thank you for your message" is.
	"お世話になっております", "いつもお世話になっております", "お世話になります",
	"メールありがとうございます", "ご連絡ありがとうございます", "ご連絡いただきありがとうございます",
	"メールをいただきありがとうございます", "お問い合わせありがとうございます", "お問い合わせいただきありがとうございます",
	"感谢您的来信", "感谢您的邮件", "谢谢您的来信", "谢谢你的邮件", "谢谢您的邮件", "感謝您的來信", "感謝您的郵件",
}

// maxCourtesyLead is how far into a sentence a courtesy may open, in
// bytes: after a salutation on the same line ("Hi, thanks for your email!").
const maxCourtesyLead = 12

// courtesy says whether a sentence opens with a courtesy (see
// courtesyOpenings), a salutation aside.
func courtesy(s string) bool {
	// An opening that starts at most maxCourtesyLead bytes in lies in the
	// first courtesyWindow bytes of the lower-cased sentence: only those
	// are made, on the stack.
	var buf [courtesyWindow + utf8.UTFMax]byte
	l := lowerPrefix(buf[:0], s, courtesyWindow)
	for _, o := range courtesyOpenings {
		for i := 0; i <= maxCourtesyLead && i+len(o) <= len(l); i++ {
			if string(l[i:i+len(o)]) == o {
				return true
			}
		}
	}
	return false
}

// courtesyWindow is how much of a sentence courtesy reads, lower-cased, in
// bytes: the longest courtesyOpenings (TestCourtesyWindowHoldsEveryOpening)
// starting maxCourtesyLead bytes in.
const courtesyWindow = maxCourtesyLead + 64

// lowerPrefix appends s lower-cased, as strings.ToLower makes it, to dst,
// until at least n bytes are appended or s ends.
func lowerPrefix(dst []byte, s string, n int) []byte {
	end := len(dst) + n
	for i := 0; i < len(s) && len(dst) < end; {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += size
	}
	return dst
}

// signOffs are lower-case closing words after which an auto-reply's text
// is its writer's name and signature, no longer its message.
var signOffs = [...]string{"best regards", "kind regards", "regards", "best wishes", "sincerely",
	"mit freundlichen grüßen", "mit freundlichen grüssen", "freundliche grüße", "viele grüße", "beste grüße",
	"cordialement", "bien cordialement", "salutations", "saludos", "atentamente", "un saludo",
	"cordiali saluti", "distinti saluti", "atenciosamente", "met vriendelijke groet", "vriendelijke groeten"}

// signOff says whether a line is a sign-off (see signOffs): short, and
// nothing but those words and punctuation.
func signOff(t string) bool {
	if len(t) > 40 {
		return false
	}
	var buf [64]byte
	t = strings.TrimRight(t, " ,.!")
	l := lowerPrefix(buf[:0], t, len(t)*utf8.UTFMax)
	for _, s := range signOffs {
		if string(l) == s {
			return true
		}
	}
	return false
}

// isMonthWord and isWeekdayWord say whether w is a lower-case name of a
// month or of a weekday in the languages the product reads; a month counts
// only beside a digit ("mai", "mars", "may" are words too), a weekday alone
// ("back on Monday"). Switches, not maps: a map literal is built at every
// start of the binary (issue 14).
func isMonthWord(w string) bool {
	switch w {
	case
		"january", "february", "march", "april", "may", "june", "july",
		"august", "september", "october", "november", "december",
		"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
		"sept", "oct", "nov", "dec",
		"januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember",
		"janvier", "février", "mars", "avril", "juin", "juillet", "août",
		"septembre", "octobre", "novembre", "décembre", "janv", "févr",
		"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio",
		"agosto", "septiembre", "octubre", "noviembre", "diciembre",
		"gennaio", "febbraio", "aprile", "maggio", "giugno", "luglio",
		"settembre", "ottobre", "dicembre",
		"janeiro", "fevereiro", "março", "maio", "junho", "julho",
		"setembro", "outubro", "dezembro",
		"januari", "februari", "maart", "mei", "augustus":
		return true
	}
	return false
}

func isWeekdayWord(w string) bool {
	switch w {
	case
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
		"lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
		"lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo",
		"lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica",
		"maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag":
		return true
	}
	return false
}

// replyFact says whether a sentence carries what a reader of an auto-reply
// acts on: a date (a month or weekday named, digits such as 11.12. or
// 2026-12-07, 12月7日), an e-mail address, or a phone number (seven digits
// or more, with their separators).
func replyFact(s string) bool {
	hasDigit := false
	digits, prev := 0, rune(0)
	for i, r := range s {
		switch {
		case unicode.IsDigit(r):
			hasDigit = true
			digits++
		case r == '@' && i > 0 && strings.Contains(s[i:], "."):
			return true
		case (r == '月' || r == '日' || r == '年') && unicode.IsDigit(prev):
			return true
		case (r == '.' || r == '/' || r == '-') && unicode.IsDigit(prev) && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			if next := strings.IndexFunc(s[i+1:], func(r rune) bool { return !unicode.IsDigit(r) }); next < 0 || next <= 4 {
				return true
			}
		case r == ' ' || r == '(' || r == ')' || r == '+' || r == '-' || r == '/' || r == '.':
		default:
			digits = 0
		}
		if digits >= 7 {
			return true
		}
		prev = r
	}
	// The words, lower-cased on the stack for a sentence of up to 512
	// bytes.
	var buf [512]byte
	l := lowerPrefix(buf[:0], s, len(s)*utf8.UTFMax)
	for i := 0; i < len(l); {
		r, size := utf8.DecodeRune(l[i:])
		if !unicode.IsLetter(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(l) {
			r, size := utf8.DecodeRune(l[j:])
			if !unicode.IsLetter(r) {
				break
			}
			j += size
		}
		// No month or weekday name is longer than 16 bytes; a shorter word
		// is compared on the stack.
		if w := l[i:j]; len(w) <= 16 && (isWeekdayWord(string(w)) || (hasDigit && isMonthWord(string(w)))) {
			return true
		}
		i = j
	}
	return false
}

// quotedLine says whether a line of an auto-reply belongs to a quoted
// message: a "> " quotation, or a separator ("-----Original Message-----",
// "________________").
func quotedLine(t string) bool {
	return strings.HasPrefix(t, ">") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "___")
}

// greeting says whether a line is a salutation: short, and ending in a
// comma or an exclamation mark, as letters open in every language the
// product reads ("Hello,", "Guten Tag,", "Bonjour,", "Estimado cliente:").
func greeting(t string) bool {
	if len(t) > maxGreeting {
		return false
	}
	switch t[len(t)-1] {
	case ',', '!', ':':
		return true
	}
	return false
}

// sentenceEnds returns how many sentences (at most max) end in t and where
// the last of them ends; len(t) when fewer than max end in it. A sentence
// ends at ".", "!" or "?" followed by a space or the end of the line, unless
// a digit comes before it ("bis 11. Dezember"), a word of one or two
// letters does ("z. B.", "e.g."), or a full stop is followed by a word that
// continues the sentence (continued); or at an ideographic full stop.
func sentenceEnds(t string, max int) (n, end int) {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == 0xE3 || c == 0xEF {
			// The ideographic full stop and the full-width marks end a
			// sentence of Japanese or Chinese without a space after them.
			for _, m := range [...]string{"。", "！", "？"} {
				if strings.HasPrefix(t[i:], m) {
					n++
					if n == max {
						return n, i + len(m)
					}
				}
			}
			continue
		}
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(t) && t[i+1] != ' ' {
			continue
		}
		if c == '.' && (abbreviation(t[:i]) || continued(t[i+1:])) {
			continue
		}
		n++
		if n == max {
			return n, i + 1
		}
	}
	return n, len(t)
}

// continued says whether the text after a full stop goes on with the
// same sentence: its next word starts with a digit or a lower-case letter
// ("3 janv. 2027", "approx. two weeks").
func continued(after string) bool {
	after = strings.TrimLeft(after, " ")
	r, _ := utf8.DecodeRuneInString(after)
	return after != "" && (unicode.IsDigit(r) || unicode.IsLower(r))
}

// abbreviation says whether the text before a full stop ends in a number
// or a word of one or two letters, its own dots aside ("e.g", "z. B"); an
// address or a domain ("info@example.fr") is a word of its own.
func abbreviation(before string) bool {
	w := before[strings.LastIndexByte(before, ' ')+1:]
	if w == "" {
		return true
	}
	if r, _ := utf8.DecodeLastRuneInString(w); unicode.IsDigit(r) {
		return true
	}
	return utf8.RuneCountInString(w)-strings.Count(w, ".") <= 2
}

// hasWords says whether s holds at least two words of letters.
func hasWords(s string) bool {
	words := 0
	for f := range strings.FieldsSeq(s) {
		letters := 0
		for _, r := range f {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 2 {
			words++
		}
	}
	return words >= 2
}
