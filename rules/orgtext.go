package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
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

// organisationText returns the text an organisation's transport rule gave
// for refusing a message, cleaned and bounded, "" when there is none: the
// rule's own text in the reply diag, else the paragraph of the notice
// under the recipient's line in the part for the sender. It reads only a
// reply that marks a transport rule's rejection.
func organisationText(diag, notice, recipient string) string {
	k := indexFoldASCII(diag, transportRuleMarker)
	if k < 0 {
		return ""
	}
	own := strings.TrimLeft(diag[k+len(transportRuleMarker):], " ;:")
	own = strings.TrimRight(strings.TrimSpace(own), "'\"")
	if own != "" && !strings.HasPrefix(ascii.LowerString(own), transportRuleDefault) {
		return cleanOrgText(own)
	}
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
