package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// kindOfAction maps an RFC 3464 Action (section 2.3.3) to a Kind.
func kindOfAction(action smtpcode.Action) Kind {
	switch action {
	case smtpcode.ActionFailed:
		return KindBounce
	case smtpcode.ActionDelayed:
		return KindDelay
	case smtpcode.ActionDelivered:
		return KindDelivered
	case smtpcode.ActionRelayed:
		return KindRelayed
	case smtpcode.ActionExpanded:
		return KindExpanded
	}
	return ""
}

// kindRank orders kinds by significance: a report with one failed and one
// delayed recipient is a bounce.
func kindRank(k Kind) int {
	switch k {
	case KindBounce:
		return 5
	case KindDelay:
		return 4
	case KindDelivered:
		return 3
	case KindRelayed:
		return 2
	case KindExpanded:
		return 1
	}
	return 0
}

// settleKinds fills each recipient's missing Action from its status class
// (or the fallback action, asked for only when a record needs it) and sets
// the report's Kind to that of its most significant recipient.
func settleKinds(r *Report, fallbackAction func() smtpcode.Action) {
	best := Kind("")
	for i := range r.Recipients {
		rc := &r.Recipients[i]
		if rc.Action == "" || kindOfAction(rc.Action) == "" {
			switch {
			case strings.HasPrefix(rc.Status, "5"):
				rc.Action = smtpcode.ActionFailed
			case strings.HasPrefix(rc.Status, "4"):
				if fallbackAction() == smtpcode.ActionFailed {
					// A report that gave up on a temporary error (expired).
					rc.Action = smtpcode.ActionFailed
				} else {
					rc.Action = smtpcode.ActionDelayed
				}
			case strings.HasPrefix(rc.Status, "2"):
				rc.Action = smtpcode.ActionDelivered
			default:
				rc.Action = fallbackAction()
			}
		}
		if k := kindOfAction(rc.Action); kindRank(k) > kindRank(best) {
			best = k
		}
	}
	if best != "" {
		r.Kind = best
	}
}

// isAutoReply says whether a message's header marks it as an automatic reply
// (RFC 3834 section 5, and the fields and subjects common auto-responders
// use instead).
func isAutoReply(h message.Header) bool {
	if hasPrefixFoldBytes(headerValue(h, "Auto-Submitted"), "auto-replied") {
		return true
	}
	for _, name := range [...]string{"X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Vacation"} {
		if h.Has(name) {
			return true
		}
	}
	if p := headerValue(h, "Precedence"); ascii.EqualFold(p, "auto_reply") || ascii.EqualFold(p, "auto-reply") {
		return true
	}
	if v := headerValue(h, "X-Auto-Response-Suppress"); len(v) > 0 && h.Has("X-MS-Exchange-Inbox-Rules-Loop") {
		return true
	}
	return headerContainsAny(h, "Subject", autoReplySubjectSet)
}

// autoReplySubjects are lower-case subject words of auto-responders: the
// "Automatic reply:" prefix Outlook and Exchange write in the sender's
// language (German, Dutch, French, Spanish, Italian, Portuguese, the
// Scandinavian languages, Finnish, Polish, Czech, Japanese, Chinese), and the
// words of other responders' subjects.
var autoReplySubjects = []string{
	"auto:", "automatic reply", "autoreply", "auto-reply", "auto reply", "autoresponse",
	"auto response", "auto-response", "out of office", "out of the office", "vacation",
	"away from my mail", "abwesenheitsnotiz", "absence du bureau", "réponse automatique",
	"risposta automatica", "respuesta automática", "自動応答", "不在",
	"automatische antwort", "automatisch antwoord", "resposta automática", "automatiskt svar",
	"automatisk svar", "automaattinen vastaus", "odpowiedź automatyczna", "automatická odpověď",
	"自動返信", "自动回复", "自動回覆",
}
