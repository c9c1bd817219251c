package dsn

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Notices sent as plain text that are not bounces though they come from
// software and speak of a message's fate: read receipts that are no RFC
// 8098 report (Lotus Notes' "Return Receipt", Outlook's and others' "Read:"
// notices), and a mailing list's notice that a post is held for its
// moderator. Each is told by its subject or sender first (ordinary mail
// costs no text search), then by the words of its text, and never when the
// text states a delivery failure.

// receiptSubjects are lower-case subject words of read receipts sent as
// text: Lotus Notes' "Return Receipt", the "Read:" and "Not read:"
// prefixes of Outlook and Exchange and their translations (the same
// vocabulary as RFC 8098's MDN subjects those clients write).
var receiptSubjects = [...]string{
	"return receipt", "read receipt", "read:", "read report", "lesebestätigung", "gelesen:",
	"accusé de lecture", "confirmation de lecture", "lu :", "lu:", "leído:", "letto:", "lido:",
	"gelezen:", "odczytano:", "přečteno:", "прочитано:", "開封確認", "已读", "已讀", "읽음",
}

// receiptPhrases are lower-case phrases of the text of read receipts: Lotus
// Notes' "Your document: ... was received by: ... at: ...", Outlook's and
// Apple Mail's "Your message ... was read on ...", "deleted without being
// read" (RFC 8098's "deleted" disposition written out), and translations.
var receiptPhrases = newPhraseList([]string{
	"your document:", "was received by:", "was read on", "was read by", "was read at",
	"your message was read", "has been read", "was displayed on", "deleted without being read",
	"wurde gelesen", "gelesen am", "a été lu", "fue leído", "è stato letto", "foi lido", "is gelezen",
})

// readTextReceipt reads a read receipt sent as text (see receiptSubjects
// and receiptPhrases). It says whether the message is one; the report is
// then a KindReceipt whose recipient is the reader, its From.
func (p *parser) readTextReceipt() bool {
	if !headerHolds(p.hdr, "Subject", receiptSubjectSet) {
		return false
	}
	p.loadText()
	words := p.noticeWords()
	if !receiptPhrases.in(words) || failureStated(words) {
		return false
	}
	r := p.rep
	r.Kind = KindReceipt
	r.Format = "receipt-text"
	if a := firstAddress(decodeWords(p.sc, headerString(p.hdr, "From"))); a != "" {
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: a})
	}
	return true
}

// heldPhrases are lower-case phrases by which a mailing list tells the
// sender that a post waits for its moderator, in the wording of the list
// managers: Mailman 2 and 3 ("Your message to LIST awaits moderator
// approval", "Is being held until the list moderator can review it for
// approval"), Sympa ("has been forwarded to the moderator(s)"), LISTSERV
// (moderators are "editors": "forwarded to the list editor"), Majordomo
// ("forwarded to the list owner for approval"), Google Groups ("pending
// approval by a moderator").
var heldPhrases = newPhraseList([]string{
	"awaits moderator approval", "awaiting moderator approval", "awaiting moderation", "awaiting approval",
	"is being held until the list moderator", "being held for moderator approval", "held for moderator approval",
	"held for moderation", "held for approval", "has been held for", "held in the moderation queue",
	"forwarded to the moderator", "forwarded to the list moderator", "forwarded to the list editor",
	"forwarded to the list owner for approval", "submitted to the moderator", "submitted to the list editor",
	"pending moderator approval", "pending moderation", "pending approval", "requires moderator approval",
	"must be approved by the moderator", "must be approved by a moderator",
	// Sympa's message catalogue (po/sympa/*.po, the "moderating_message"
	// report of mail_tt2/message_report.tt2, "Your message for list '%s'
	// has been forwarded to the moderator(s)"), in the languages it ships:
	// fr, de, es, it, pt, nl.
	"transmis aux modérateurs", "transmis au modérateur", "transmis aux modérateur", "transmis au(x) modérateur",
	"en attente de modération", "en attente de validation par le modérateur", "soumis à la modération",
	"an die moderatoren weitergeleitet", "an den moderator weitergeleitet", "an den/die moderator",
	"wartet auf die freigabe durch", "wartet auf freigabe durch", "wartet auf moderation",
	"reenviado a los moderadores", "enviado a los moderadores", "remitido a los moderadores",
	"reenviado al moderador", "pendiente de moderación", "pendiente de aprobación por el moderador",
	"inoltrato ai moderatori", "inoltrato al moderatore", "in attesa di moderazione", "in attesa di approvazione",
	"encaminhada aos moderadores", "encaminhada ao moderador", "aguardando moderação",
	"doorgestuurd naar de moderator", "wacht op goedkeuring van de moderator",
	// Mailman 2's postheld.txt in templates/fr, de, es and ja ("...est
	// retenu jusqu'à ce que le modérateur de la liste puisse l'examiner",
	// "wird zurückgehalten, bis der Listenmoderator", "está retenido hasta
	// que el moderador de la lista", "モデレータの承認待ち"/"保留").
	"retenu jusqu'à ce que le modérateur", "retenu jusqu'a ce que le modérateur",
	"zurückgehalten, bis der listenmoderator", "bis der listenmoderator",
	"retenido hasta que el moderador", "hasta que el moderador de la lista",
	"承認待ち", "モデレータの承認", "司会者の承認", "保留されています",
})

// listRobotSenders are lower-case parts of the From of list managers:
// Mailman's LIST-owner and LIST-bounces, Majordomo's owner-LIST, Sympa's
// LIST-request and sympa@, LISTSERV@, Google Groups, mlmmj's LIST+owner.
var listRobotSenders = [...]string{"-owner@", "owner-", "-bounces", "-request@", "listserv", "sympa", "mailman", "majordomo", "listmaster", "googlegroups",
	// mlmmj's LIST+owner@ (its notices' From; text.skel/en/prologue "Hi,
	// this is the Mlmmj program managing the <LIST> mailing list").
	"+owner@"}

// heldSubjects are lower-case subject words of moderation notices; they
// count only in a message marked as sent by software (see automatic).
var heldSubjects = [...]string{"moderat", "approval", "held", "awaits", "pending",
	"modérat", "modera", "freigabe", "zurückgehalten", "retenu", "retenido", "承認", "保留"}

// readModerationHold reads a mailing list's notice that a post is held for
// its moderator: an auto-reply of the list (the message was neither
// delivered nor refused yet), not a bounce. It says whether the message is
// one.
func (p *parser) readModerationHold() bool {
	if !headerHolds(p.hdr, "From", listRobotSenderSet) && !(headerHolds(p.hdr, "Subject", heldSubjectSet) && automatic(p.hdr)) {
		return false
	}
	p.loadText()
	words := p.noticeWords()
	if !heldPhrases.in(words) || failureStated(words) {
		return false
	}
	r := p.rep
	r.Kind = KindAutoreply
	r.Format = FormatListHeld
	// The list is the recipient that holds the post; the notice's From is
	// the list's owner or bounce robot, never the recipient.
	if a := p.holdingList(words); a != "" {
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: a, Diagnostic: p.holdReason(words)})
	}
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(decodeWords(p.sc, headerString(p.hdr, "To")))
	}
	return true
}

// FormatListHeld is the Format of a KindAutoreply report that is a
// mailing list's notice that a post waits for its moderator (see
// heldPhrases): neither delivered nor refused yet. Its one recipient, when
// the list is named, is the list's address, with the reason the notice
// gives for the hold as its Diagnostic.
const FormatListHeld = "list-held"

// heldListPrefixes are the lower-case words after which a hold notice names
// the list: Mailman 2 (templates/en/postheld.txt, "Your mail to
// '%(listname)s' with the subject") and Mailman 3 (list:user:notice:hold,
// "Your mail to '$listname' with the subject", its subject "Your message to
// $listname awaits moderator approval"), Sympa ("Your message for list
// '%s' has been forwarded to the moderator(s)"), Google Groups ("Your
// message to GROUP ... pending moderator approval").
var heldListPrefixes = [...]string{"your mail to ", "your message to the group ",
	// "Your message to list NAME has been rejected" (Sympa's wording):
	// the word "list" is no list's name.
	"your message to list ", "your message to the list ", "your mail to list ", "your message to ",
	"your message for list ", "your message for the list ", "your post to ", "your posting to ",
	// Sympa's catalogue and Mailman 2's postheld.txt translated (see
	// heldPhrases): fr, de, es, it, pt, nl.
	"votre message pour la liste ", "votre message à la liste ", "votre courriel destiné à ",
	"votre message destiné à ", "ihre nachricht für die liste ", "ihre nachricht an die liste ",
	"ihre mail an ", "ihre nachricht an ", "su mensaje para la lista ", "su mensaje a la lista ",
	"su mensaje a ", "il tuo messaggio per la lista ", "il vostro messaggio per la lista ",
	"sua mensagem para a lista ", "uw bericht voor de lijst ", "uw bericht aan de lijst ",
	// LISTSERV names the list bare before the word "list": its refusal
	// "You are not authorized to send mail to the NAME list from your
	// ADDRESS account" and its hold "has been submitted to the moderator
	// of the NAME list".
	"not authorized to send mail to the ", "to the moderator of the "}

// maxHoldReason bounds the reason a hold notice gives, in bytes.
const maxHoldReason = 300

// heldReasonLabels are the lower-case labels after which a hold notice
// states why the post is held: Mailman 2 (postheld.txt "The reason it is
// being held:", followed by Moderate.py's and Hold.py's reasons: "Post by
// non-member to a members-only list", "Too many recipients to the
// message", "Message has implicit destination", "Message body is too big",
// "Message has a suspicious header"...), Mailman 3 (list:user:notice:hold
// "The message is being held because:", its rules' reasons: "The message
// is not from a list member", "Message has more than N recipients",
// "Message has implicit destination", "The message is larger than the N KB
// maximum size"...).
var heldReasonLabels = [...]string{"the reason it is being held:", "the message is being held because:",
	"is being held because:", "it is being held because:", "held for the following reason:", "reason for the hold:",
	// Mailman 2's postheld.txt in templates/fr, de, es.
	"la raison de cette retenue :", "la raison de la retenue :", "raison de la retenue :",
	"der grund für das zurückhalten:", "der grund für die zurückhaltung:", "grund für das zurückhalten:",
	"la razón por la que está retenido:", "la razón de la retención:", "motivo de la retención:"}

// holdingList returns the address of the list that holds a post, "" when
// none is certain: the address the notice names after heldListPrefixes
// (a bare list name, as Mailman 2 writes, is no address), else the list's
// address in the notice's header (RFC 2369 List-Post, Mailman's
// X-BeenThere). Never the notice's From: that is the list's owner or
// bounce robot, which did not hold the post.
func (p *parser) holdingList(words []byte) (list string) {
	var bare string
	for _, prefix := range heldListPrefixes {
		i := bytes.Index(words, []byte(prefix))
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(string(p.text[i+len(prefix):len(words)]), " \t")
		if rest != "" && (rest[0] == '\'' || rest[0] == '"') {
			if j := strings.IndexByte(rest[1:], rest[0]); j >= 0 {
				rest = rest[1 : j+1]
			}
		}
		if j := strings.IndexAny(rest, " \t\r\n"); j >= 0 {
			rest = rest[:j]
		}
		name := strings.Trim(rest, "\"'.,:;")
		if a := cleanAddress(name); plausibleAddress(a) && !listRobotAddress(a) {
			return a
		}
		bare = name
		break
	}
	defer func() {
		if list == "" && bare != "" {
			list = p.robotsList(bare)
		}
		if list == "" && bare != "" {
			list = p.addressOfName(bare)
		}
	}()
	for _, n := range [...]string{"List-Post", "X-BeenThere", "X-Loop"} {
		if a := firstAddress(strings.TrimPrefix(strings.TrimSpace(headerString(p.hdr, n)), "<mailto:")); plausibleAddress(a) && !listRobotAddress(a) {
			return a
		}
	}
	return ""
}

// robotsList returns the address of the list a hold notice names by its
// bare name ("Votre message pour la liste 'doc'"), "" when it is not
// certain: the name at the domain of the notice's From when that From is
// the list's own robot (Mailman's and Sympa's NAME-owner, NAME-request,
// NAME-bounces, NAME-editor), or Sympa's robot sympa@DOMAIN, whose lists
// are all NAME@DOMAIN (Sympa's robot domain is its lists' host).
func (p *parser) robotsList(name string) string {
	name = strings.ToLower(name)
	for i := 0; i < len(name); i++ {
		if c := name[i]; !ascii.IsAlpha(c) && !ascii.IsDigit(c) && c != '-' && c != '_' && c != '.' {
			return ""
		}
	}
	if name == "" || len(name) > 64 {
		return ""
	}
	from := strings.ToLower(firstAddress(decodeWords(p.sc, headerString(p.hdr, "From"))))
	at := strings.LastIndexByte(from, '@')
	if at <= 0 {
		return ""
	}
	local, domain := from[:at], from[at+1:]
	ours := local == "sympa"
	for _, s := range listRobotSuffixes {
		ours = ours || local == name+s
	}
	if !ours {
		return ""
	}
	if a := name + "@" + domain; plausibleAddress(a) {
		return a
	}
	return ""
}

// addressOfName returns the address whose local part is the bare list
// name a notice gives ("to the ASTRO-L list", LISTSERV's wording, whose
// robot LISTSERV@ says nothing of the list's domain) when the notice itself
// writes that address: in the original message's To (the post was sent to
// the list) or in its text (the copy of the post LISTSERV quotes below its
// refusal). "" when it writes none, or two different ones.
func (p *parser) addressOfName(name string) string {
	if name == "" || len(name) > 64 || strings.ContainsAny(name, "@ \t") {
		return ""
	}
	found := ""
	consider := func(s string) bool {
		lower := ascii.LowerString(s)
		key := ascii.LowerString(name) + "@"
		for off := 0; off < len(lower); {
			i := strings.Index(lower[off:], key)
			if i < 0 {
				return true
			}
			i += off
			off = i + len(key)
			if i > 0 && !strings.ContainsRune(" \t\r\n<:,;'\"(", rune(lower[i-1])) {
				continue
			}
			end := i
			for end < len(s) && !strings.ContainsRune(" \t\r\n>,;'\")", rune(s[end])) {
				end++
			}
			a := cleanAddress(strings.TrimRight(s[i:end], "."))
			if !plausibleAddress(a) || listRobotAddress(a) {
				continue
			}
			if found != "" && !strings.EqualFold(found, a) {
				found = ""
				return false
			}
			found = a
		}
		return true
	}
	if !consider(p.rep.Original.To) {
		return ""
	}
	if found == "" {
		p.loadText()
		if !consider(string(p.text)) {
			return ""
		}
	}
	return found
}

// listRobotLocals are lower-case local parts of a list manager's own
// mailboxes, which hold no post: Sympa's robot (sympa@, whose X-Loop a
// robot's notice carries) and listmaster@, Mailman's mailman@, Majordomo's
// and LISTSERV's.
var listRobotLocals = [...]string{"sympa", "listmaster", "mailman", "majordomo", "listserv", "postmaster", "mailer-daemon"}

// listRobotSuffixes and listRobotPrefixes mark the per-list robot
// addresses: Mailman's and Sympa's LIST-request, LIST-owner, LIST-bounces,
// Sympa's LIST-editor, Majordomo's owner-LIST.
var (
	listRobotSuffixes = [...]string{"-request", "-owner", "-bounces", "-editor", "-admin"}
	listRobotPrefixes = [...]string{"owner-", "sympa-"}
)

// listRobotAddress says whether an address is a list manager's robot or
// administrative mailbox (see listRobotLocals), never the list that holds
// a post.
func listRobotAddress(a string) bool {
	at := strings.LastIndexByte(a, '@')
	if at < 0 {
		return false
	}
	local := strings.ToLower(a[:at])
	if i := strings.IndexByte(local, '+'); i >= 0 {
		local = local[:i]
	}
	for _, l := range listRobotLocals {
		if local == l {
			return true
		}
	}
	for _, s := range listRobotSuffixes {
		if strings.HasSuffix(local, s) || strings.Contains(local, s+"+") {
			return true
		}
	}
	for _, pre := range listRobotPrefixes {
		if strings.HasPrefix(local, pre) {
			return true
		}
	}
	return false
}

// holdReason returns the reason a hold notice gives (see heldReasonLabels):
// the lines after the label up to the next blank line, on one line, at
// most maxHoldReason bytes; "" when the notice gives none.
func (p *parser) holdReason(words []byte) string {
	for _, label := range heldReasonLabels {
		i := bytes.Index(words, []byte(label))
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(string(p.text[i+len(label):len(words)]), " \t\r\n")
		if j := strings.Index(rest, "\n\n"); j >= 0 {
			rest = rest[:j]
		}
		if j := strings.Index(rest, "\n\r\n"); j >= 0 {
			rest = rest[:j]
		}
		rest = strings.Join(strings.Fields(rest), " ")
		if len(rest) > maxHoldReason {
			rest = rest[:maxHoldReason]
		}
		return strings.ToValidUTF8(rest, "")
	}
	return ""
}

// automatic says whether a message's header marks it as sent by software:
// Auto-Submitted other than "no" (RFC 3834 section 5), Precedence bulk,
// list or junk, or a null reverse path.
func automatic(h message.Header) bool {
	if v := strings.TrimSpace(headerString(h, "Auto-Submitted")); v != "" && !strings.EqualFold(v, "no") {
		return true
	}
	switch v := strings.TrimSpace(headerString(h, "Precedence")); {
	case strings.EqualFold(v, "bulk"), strings.EqualFold(v, "list"), strings.EqualFold(v, "junk"):
		return true
	}
	return strings.TrimSpace(headerString(h, "Return-Path")) == "<>"
}

// headerHolds says whether the first field called name holds one of the
// lower-case words, without regard to ASCII case, its encoded words
// (RFC 2047) decoded. Most messages pass here: a value without encoded
// words is searched where it is, without a copy.
func headerHolds(h message.Header, name string, words *phraseSet) bool {
	v := h.Get(name)
	var buf [maxShortField]byte
	if bytes.Contains(v, []byte("=?")) {
		// Decoded on the stack when short, into memory of its own
		// otherwise, and lowered where it is.
		d := message.AppendDecodedWords(buf[:0], view(v))
		return words.in(ascii.LowerInto(d, d))
	}
	if len(v) <= len(buf) {
		// Lowered once for all the words, on the stack.
		return words.in(ascii.LowerInto(buf[:0], v))
	}
	for _, w := range words.phrases {
		if indexFoldBytes(v, w) >= 0 {
			return true
		}
	}
	return false
}

// indexFoldBytes is indexFold for a byte slice.
func indexFoldBytes(b []byte, sub string) int {
	return indexFold(unsafe.String(unsafe.SliceData(b), len(b)), sub)
}

// listRejectPhrases are lower-case phrases by which a mailing list tells
// the sender that a post was refused, in the wording of the list managers'
// notice templates: Mailman 2 (Handlers/Moderate.py: "You are not allowed
// to post to this mailing list, and your message has been automatically
// rejected"; its hold reason "Post by non-member to a members-only list";
// a moderator's "has been rejected by the list moderator"), Mailman 3
// ("Your message to LIST was rejected", "rejected by the list moderator"),
// Sympa ("You are not allowed to send to list"), Google Groups ("you may
// not have permission to post messages to the group").
var listRejectPhrases = newPhraseList([]string{
	"you are not allowed to post to this mailing list", "not allowed to post to this list",
	"your message has been automatically rejected", "post by non-member to a members-only list",
	"rejected by the list moderator", "you are not allowed to send to list",
	// Mailman 3's list:user:notice:rejected template: "Your message to LIST
	// with the subject ... was rejected for the following reasons:", the
	// reasons in the next paragraph.
	"was rejected for the following reason",
	"you are not allowed to send to this list", "permission to post messages to the group",
	// LISTSERV's refusal of a sender it does not know ("You are not
	// authorized to send mail to the NAME list from your ADDRESS account.
	// You might be authorized to send to the list from another of your
	// accounts"), and Sympa's of a non-subscriber ("Your message for list
	// 'NAME' has been rejected", mail_tt2 and po/sympa: "You are not
	// allowed to send messages to list NAME").
	"you are not authorized to send mail to the", "you are not allowed to send messages to list",
	// Sympa 6.2's refusal of a post its send scenario rejects
	// (mail_tt2/delivery_status_notification.tt2, status 5.7.1: "Your
	// message for list '%1' (attached below) was rejected. You are not
	// allowed to send this message for the following reason:", then
	// report.tt2's reason, "Message distribution in the list is restricted
	// to list subscribers." for send_subscriber), sent as a DSN or, when
	// the scenario names a template, as text; in the languages of its
	// catalogue (po/sympa: fr, de, es, ja).
	"you are not allowed to send this message", "vous n'êtes pas autorisé à diffuser ce message",
	"sie dürfen aus folgendem grund diese nachricht nicht senden", "no tienes permiso para enviar este mensaje",
	"このメッセージは以下の理由で送ることができません",
	// mlmmj's deny-post notice (text.skel/en/deny-post: "The message from
	// <ADDRESS> with subject "..." was unable to be delivered to the list
	// because you are not a list subscriber." or another reason: size,
	// access rule, moderator), from LIST+owner@.
	"was unable to be delivered to the list",
	// Google Groups' refusal as its SMTP reply and notice word it.
	"you do not have permission to post to this group",
})

// FormatListRejected is the Format of a KindBounce report that is a
// mailing list's notice that it refused a post: the failed recipient is
// the list's own address, not the -owner or -bounces address that sent
// the notice.
const FormatListRejected = "list-rejected"

// maxListDiagnostic bounds the sentence of a list's refusal taken as the
// diagnostic.
const maxListDiagnostic = 512

// readListRejection reads a mailing list's notice that it refused a post
// (see listRejectPhrases). It is a bounce, whatever its Auto-Submitted
// field or "Auto-response" subject say (the text decides, not one header):
// the list was the recipient and did not take the message. It says whether
// the message is one.
func (p *parser) readListRejection() bool {
	if !headerHolds(p.hdr, "From", listRobotSenderSet) && !(automatic(p.hdr) && len(p.hdr.Get("List-Id")) > 0) {
		return false
	}
	p.loadText()
	words := p.noticeWords()
	text := string(p.text[:len(words)])
	at := listRejectPhrases.find(words)
	var diag string
	switch {
	case at >= 0:
		diag = paragraphAndReasons(text, at, maxListDiagnostic)
	default:
		if at = namedListRejection(words); at < 0 {
			return false
		}
		diag = paragraphAndNext(text, at, maxListDiagnostic)
	}
	r := p.rep
	r.Kind = KindBounce
	r.Format = FormatListRejected
	r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{
		Address:    p.rejectingList(words),
		Diagnostic: withOwnerContact(text, diag, maxListDiagnostic),
		Action:     smtpcode.ActionFailed,
	})
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(decodeWords(p.sc, headerString(p.hdr, "To")))
	}
	p.finish(func() smtpcode.Action { return smtpcode.ActionFailed })
	return true
}

// listRejectedWords are the lower-case words by which a list's notice
// says, in the sentence that names the list, that the post was refused:
// Sympa's "Your message to list NAME has been rejected" (the notices of
// mail_tt2/reject.tt2 and message_report.tt2, under "Auto-Submitted:
// auto-replied"), Mailman 3's "Your message to LIST was rejected".
var listRejectedWords = newPhraseList([]string{
	"has been rejected", "was rejected", "is rejected", "has been refused", "was refused",
	"a été rejeté", "wurde abgelehnt", "ha sido rechazado",
})

// maxListSentence bounds how far after the list's name listRejectedWords
// are looked for: the rest of one sentence.
const maxListSentence = 160

// namedListRejection returns where a list's notice (words, see
// noticeWords) names the list it sent a post to (heldListPrefixes) and
// says, in the same sentence, that the post was refused
// (listRejectedWords); -1 when it does not.
func namedListRejection(words []byte) int {
	for _, prefix := range heldListPrefixes {
		i := bytes.Index(words, []byte(prefix))
		if i < 0 {
			continue
		}
		end := min(len(words), i+len(prefix)+maxListSentence)
		sentence := words[i:end]
		if k := bytes.IndexByte(sentence[len(prefix):], '.'); k >= 0 {
			// Up to the sentence's full stop, a dot of the list's
			// address excepted (one followed by no space).
			for k >= 0 && len(prefix)+k+1 < len(sentence) && !isSpace(sentence[len(prefix)+k+1]) {
				next := bytes.IndexByte(sentence[len(prefix)+k+1:], '.')
				if next < 0 {
					k = -1
					break
				}
				k += next + 1
			}
			if k >= 0 {
				sentence = sentence[:len(prefix)+k]
			}
		}
		if listRejectedWords.in(sentence) {
			return i
		}
	}
	return -1
}

// paragraphAndNext returns the paragraph of text around at, as
// paragraphAt, and the paragraph after it, which states the reason after
// a refusal's opening sentence ("Your message to list NAME has been
// rejected." then why); at most max bytes.
func paragraphAndNext(text string, at, max int) string {
	p := paragraphAt(text, at, max)
	end := strings.LastIndexByte(text[:at], '\n') + 1 + len(p)
	rest := strings.TrimLeft(text[end:], " \t\r\n")
	if rest == "" || len(p)+1 >= max || ownerContactPhrases.in([]byte(strings.ToLower(paragraphAt(rest, 0, max)))) {
		return p
	}
	next := paragraphAt(rest, 0, max-len(p)-1)
	return strings.TrimSpace(p) + " " + strings.Join(strings.Fields(next), " ")
}

// rejectingList returns the address of the list that refused a post, ""
// when none is certain. In order: the address the notice names after "your
// message to" (Mailman 3); the list's address in the notice's header
// (listAddressFields: RFC 2369 List-Post, Mailman's X-BeenThere); the
// notice's From with the list manager's robot suffix or prefix taken off
// (Mailman's LIST-owner, LIST-bounces, LIST-request; Majordomo's
// owner-LIST).
func (p *parser) rejectingList(words []byte) string {
	// The list as a hold notice names it (heldListPrefixes: Mailman's
	// "your message to", Sympa's "your message for list 'NAME'",
	// LISTSERV's "to the NAME list"), or the list's header fields.
	if a := p.holdingList(words); a != "" {
		return a
	}
	from := firstAddress(decodeWords(p.sc, headerString(p.hdr, "From")))
	at := strings.LastIndexByte(from, '@')
	if at <= 0 {
		return ""
	}
	local, domain := from[:at], from[at:]
	lower := ascii.LowerString(local)
	for _, suffix := range [...]string{"-owner", "-bounces", "-request", "+owner"} {
		if strings.HasSuffix(lower, suffix) && len(local) > len(suffix) {
			return local[:len(local)-len(suffix)] + domain
		}
	}
	if strings.HasPrefix(lower, "owner-") && len(local) > len("owner-") {
		return local[len("owner-"):] + domain
	}
	return ""
}

// ownerContactPhrases are lower-case phrases by which a list's notice
// gives the address of the list's owner or administrator, in a paragraph of
// its own: Mailman 2 (templates/en/refuse.txt "Any questions or comments
// should be directed to the list administrator at:"), Mailman 2's
// Moderate.py ("contact the mailing list owner at"), LISTSERV ("please
// contact the list owners:"), Sympa and fml ("please contact").
var ownerContactPhrases = newPhraseList([]string{
	"directed to the list administrator", "directed to the list owner", "contact the mailing list owner",
	"contact the list owner", "contact the list administrator", "please contact",
})

// withOwnerContact returns a list's refusal (diag, a paragraph of text)
// followed by the paragraph of text that gives the list owner's address,
// when the refusal lacks one and the notice has it (ownerContactPhrases,
// an address in that paragraph): the owner is whom the sender asks to be
// accepted. At most max bytes.
func withOwnerContact(text, diag string, max int) string {
	if strings.IndexByte(diag, '@') >= 0 && ownerContactPhrases.in([]byte(strings.ToLower(diag))) {
		return diag
	}
	lower := strings.ToLower(text)
	at := ownerContactPhrases.find([]byte(lower))
	if at < 0 {
		return diag
	}
	start := strings.LastIndexByte(text[:at], '\n') + 1
	raw := paragraphAt(text, at, max)
	contact := strings.Join(strings.Fields(raw), " ")
	// The address may be alone on the next paragraph ("at:", then the
	// address indented below it, as refuse.txt writes it).
	if strings.IndexByte(contact, '@') < 0 && strings.HasSuffix(contact, ":") {
		rest := strings.TrimLeft(text[start+len(raw):], " \t\r\n")
		if next := strings.Fields(paragraphAt(rest, 0, max)); len(next) > 0 {
			contact += " " + next[0]
		}
	}
	if strings.IndexByte(contact, '@') < 0 || strings.Contains(strings.Join(strings.Fields(diag), " "), contact) {
		return diag
	}
	joined := strings.TrimSpace(diag) + " " + contact
	if len(joined) > max {
		return diag
	}
	return joined
}

// paragraphAt returns the paragraph of text that holds the byte at,
// from the start of its line to the next blank line, at most max bytes.
// paragraphAndReasons returns the paragraph of text around at, as
// paragraphAt, and when it ends with a colon ("was rejected for the
// following reasons:") the paragraph after it too, which holds what the
// colon announces; at most max bytes.
func paragraphAndReasons(text string, at, max int) string {
	p := paragraphAt(text, at, max)
	if !strings.HasSuffix(strings.TrimSpace(p), ":") {
		return p
	}
	end := strings.LastIndexByte(text[:at], '\n') + 1 + len(p) // paragraphAt's start, then its length
	rest := strings.TrimLeft(text[end:], " \t\r\n")
	if rest == "" || len(p)+1 >= max {
		return p
	}
	next := paragraphAt(rest, 0, max-len(p)-1)
	return strings.TrimSpace(p) + " " + strings.Join(strings.Fields(next), " ")
}

func paragraphAt(text string, at, max int) string {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	end := len(text)
	if i := strings.Index(text[at:], "\n\n"); i >= 0 {
		end = at + i
	}
	if i := strings.Index(text[at:], "\n\r\n"); i >= 0 && at+i < end {
		end = at + i
	}
	if end-start > max {
		end = start + max
	}
	return text[start:end]
}
