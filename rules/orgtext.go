package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// The organisation's own words in a transport-rule rejection. An Exchange
// mail flow rule's "Reject the message with the explanation" action
// (RejectMessageReasonText, Exchange Server 2013-2019 and Exchange Online
// "Mail flow rule actions") puts the admin's text into the NDR: in the
// part for the sender, the paragraph under the failed recipient before
// "Diagnostic information for administrators", and, when the rule sets no
// text of its own, the reply "550 5.7.1 TRANSPORT.RULES.RejectMessage; the
// message was rejected by organization policy". The explanation quotes that
// text (in whatever language it is written) and the fix says to follow it.
//
// The same action may set the enhanced status code
// (RejectMessageEnhancedStatusCode): 5.7.1, or any of 5.7.900 to 5.7.999,
// which Microsoft reserves for the rules an organisation writes (Microsoft
// Learn, "Mail flow rule actions in Exchange Online" and
// New-TransportRule -RejectMessageEnhancedStatusCode; not IANA codes: the
// registry, RFC 3463 and RFC 5248, assigns no X.7.9xx). The reply is then
// "550 5.7.9xx TEXT", TEXT the rule's own or, when it gives none, the
// default "Delivery not authorized, message refused". With 5.7.1 and no
// marker, the reply's text is the organisation's only when the NDR also
// shows it as its paragraph for the sender: Exchange writes its own
// template sentence there for any other 5.7.1. A 5.7.1 with that default
// reply is a rule's rejection too; its paragraph for the sender, when it is
// not Exchange's own sentence, is the organisation's custom NDR text
// (Microsoft Learn, "Customize NDR messages", New-SystemMessage -DsnCode).

// transportRuleMarker is the lower-case mark of an Exchange transport
// rule's rejection in its reply.
const transportRuleMarker = "transport.rules.rejectmessage"

// transportRuleDefault is the lower-case default text after
// transportRuleMarker; any other text there is the rule's own.
const transportRuleDefault = "the message was rejected by organization policy"

// maxOrgText bounds the quoted text of the organisation.
const maxOrgText = 320

// adminHeadings are the lower-case headings that start the part of an
// Exchange NDR for administrators, in the NDR languages of Exchange Server
// and Exchange Online: the part for the sender comes before.
var adminHeadings = [...]string{
	"diagnostic information for administrators", "informations de diagnostic pour les administrateurs",
	"diagnoseinformationen für administratoren", "información de diagnóstico para administradores",
	"informazioni di diagnostica per gli amministratori", "informações de diagnóstico para administradores",
	"diagnostische gegevens voor beheerders", "diagnostikinformation för administratörer",
	"管理者向けの診断情報", "管理员诊断信息", "관리자용 진단 정보",
	// Exchange Online's newest layout (seed 001, "What's included in an
	// NDR?": Cause, fix-it owner, How to fix it, More info for email
	// admins): the cause paragraph under "Your message to X couldn't be
	// delivered." is the rule's text when it gave one.
	"more info for email admins",
}

// exchangeDefaults are lower-case openings of Exchange's own sentences for
// the sender (its default NDR texts for a refusal by policy, in English,
// French, German and Spanish; Exchange Online's "A custom mail flow rule
// created by an admin at DOMAIN has blocked your message"): a paragraph
// that starts so is not the organisation's text.
var exchangeDefaults = [...]string{
	"your message wasn't delivered", "your message was not delivered", "you do not have permission",
	"you don't have permission", "the message was rejected", "delivery has failed",
	"a custom mail flow rule", "action required", // Exchange Online's NDR: its own sentence and its table
	"votre message n'a pas été remis", "vous n'avez pas l'autorisation", "ihre nachricht wurde nicht",
	"sie haben keine berechtigung", "su mensaje no se entregó", "no tiene permiso",
}

// customRuleDefault is the lower-case default text of a rejection with a
// custom enhanced status code and no RejectMessageReasonText.
const customRuleDefault = "delivery not authorized, message refused"

// organisationText returns the text an organisation's transport rule gave
// for refusing a message, cleaned and bounded, "" when there is none: the
// rule's own text in the reply diag, else the paragraph of the notice
// under the recipient's line in the part for the sender. It reads only a
// reply that marks a transport rule's rejection (the marker, or a code of
// 5.7.900-5.7.999), or a 5.7.1 whose text the NDR repeats as its paragraph
// for the sender.
func organisationText(diag, notice, recipient string) string {
	if k := indexFoldASCII(diag, transportRuleMarker); k >= 0 {
		own := strings.TrimLeft(diag[k+len(transportRuleMarker):], " ;:")
		own = strings.TrimRight(strings.TrimSpace(withoutServerStamp(own)), "'\"")
		if own != "" && !strings.HasPrefix(ascii.LowerString(own), transportRuleDefault) {
			return cleanOrgText(own)
		}
		return noticeOrgText(notice, recipient)
	}
	code, own := replyText(diag)
	switch {
	case customRuleCode(code):
		if own != "" && !strings.HasPrefix(ascii.LowerString(own), customRuleDefault) {
			return cleanOrgText(own)
		}
		return noticeOrgText(notice, recipient)
	case code == "5.7.1" && strings.HasPrefix(ascii.LowerString(own), customRuleDefault):
		// A rule's rejection without a text of its own: the words for the
		// sender, when the organisation gave any, are the NDR's paragraph
		// (a custom NDR text, New-SystemMessage -DsnCode 5.7.1).
		return noticeOrgText(notice, recipient)
	case code == "5.7.1" && own != "":
		if para := noticeOrgText(notice, recipient); para != "" && repeats(para, own) {
			return para
		}
	}
	return ""
}

// noticeOrgText returns the paragraph of an Exchange NDR's part for the
// sender under the recipient's line, cleaned, "" when the notice has not
// that layout or the paragraph is Exchange's own sentence.
func noticeOrgText(notice, recipient string) string {
	if notice == "" || recipient == "" {
		return ""
	}
	lower := ascii.LowerString(notice) // the same length: offsets hold in notice
	end := -1
	for _, h := range adminHeadings {
		if i := strings.Index(lower, h); i >= 0 && (end < 0 || i < end) {
			end = i
		}
	}
	if end < 0 {
		return "" // not the layout of an Exchange NDR
	}
	user, lowerUser := notice[:end], lower[:end]
	at := strings.Index(lowerUser, ascii.LowerString(recipient))
	if at < 0 {
		return ""
	}
	nl := strings.IndexByte(user[at:], '\n')
	if nl < 0 {
		return ""
	}
	rest := strings.TrimLeft(user[at+nl+1:], " \t\r\n")
	if i := strings.Index(rest, "\n\n"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.Index(rest, "\n\r\n"); i >= 0 {
		rest = rest[:i]
	}
	text := cleanOrgText(rest)
	lt := strings.ToLower(text)
	for _, d := range exchangeDefaults {
		if strings.HasPrefix(lt, d) {
			return ""
		}
	}
	if strings.Contains(lt, transportRuleMarker) {
		return "" // the reply repeated, not a text of the organisation
	}
	return text
}

// replyText returns the enhanced status code of a reply and the text
// after it, without the quote that closes Exchange's "Remote Server
// returned '...'" and without Exchange Online's server stamp; "" and ""
// when the reply has no code.
func replyText(diag string) (code, text string) {
	code = smtpcode.FindStatus(diag)
	if code == "" {
		return "", ""
	}
	i := strings.Index(diag, code)
	if i < 0 {
		return code, ""
	}
	text = strings.TrimLeft(diag[i+len(code):], " ;:-")
	text = strings.TrimRight(strings.TrimSpace(withoutServerStamp(text)), "'\"")
	return code, strings.TrimSpace(text)
}

// customRuleCode says whether code is one of 5.7.900 to 5.7.999, the
// enhanced status codes of an organisation's own transport rules.
func customRuleCode(code string) bool {
	d, ok := strings.CutPrefix(code, "5.7.")
	return ok && len(d) == 3 && d[0] == '9' && isDigits(d)
}

// withoutServerStamp returns s without the "[HOST.prod.outlook.com DATE
// ID]" that Exchange Online puts at the end of its replies: the server's
// stamp, no word of the organisation.
func withoutServerStamp(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, "'\"")
	if !strings.HasSuffix(s, "]") {
		return s
	}
	i := strings.LastIndexByte(s, '[')
	if i < 0 || !strings.Contains(ascii.LowerString(s[i:]), ".outlook.com") {
		return s
	}
	return strings.TrimSpace(s[:i])
}

// repeats says whether the paragraph para and the reply's text own say the
// same, apart from spacing, case and a cut: own's opening (up to 60 bytes,
// at least 12) is in para.
func repeats(para, own string) bool {
	p := strings.ToLower(strings.Join(strings.Fields(para), " "))
	o := strings.ToLower(strings.Join(strings.Fields(own), " "))
	if len(o) < 12 {
		return false
	}
	if len(o) > 60 {
		o = o[:60]
	}
	return strings.Contains(p, o)
}

// cleanOrgText makes a text of the organisation one line without control
// characters, cut at a word to maxOrgText bytes.
func cleanOrgText(s string) string {
	s = textclean.Line(s, 4*maxOrgText)
	return cutAtWord(s, maxOrgText)
}

// indexFoldASCII returns the index of the lower-case ASCII sub in s
// without regard to ASCII case, -1 if none.
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if ascii.HasPrefixFold(s[i:], sub) {
			return i
		}
	}
	return -1
}
