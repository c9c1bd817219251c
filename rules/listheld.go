package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// A mailing list that holds a post for its moderator (dsn.FormatListHeld)
// has neither delivered nor refused it: the list's moderator decides, and
// the notice says why the post is held. Its reading is onhold, owned by the
// group's owner, with the list and the reason named.

// nonMemberHoldWords are lower-case words by which a hold reason says that
// the sender is not a member of the list: Mailman 2 (Handlers/Moderate.py
// "Post by non-member to a members-only list"), Mailman 3 (rules/
// moderation.py "The message is not from a list member"), Sympa and Google
// Groups ("not subscribed", "non-subscriber").
var nonMemberHoldWords = [...]string{"non-member", "nonmember", "not from a list member", "not a member",
	"not a list member", "not subscribed", "non-subscriber", "nonsubscriber", "not on the list"}

// listHeld is the reading of a list's moderation notice: the list named
// (the report's one recipient), the reason quoted, and a fix that says to
// wait rather than resend, and to subscribe when the reason is
// non-membership.
func (e *Engine) listHeld(r *dsn.Report, lang int) Classification {
	t := e.textsFor(lang)
	v := Classification{Reason: ReasonOnHold, Owner: OwnerGroupOwner}
	var list, reason string
	if len(r.Recipients) > 0 {
		list, reason = r.Recipients[0].Address, r.Recipients[0].Diagnostic
	}
	v.Summary = t[textListHeldSummary].plain()
	v.Explanation = t[textListHeldExplanation].render(&slotValues{slotRecipient: sanitize(list), slotReply: holdReasonQuote(reason)})
	v.Fix = t[textListHeldFix].plain()
	lower := strings.ToLower(reason)
	for _, w := range nonMemberHoldWords {
		if strings.Contains(lower, w) {
			v.Fix = t[textListHeldNonMemberFix].plain()
			break
		}
	}
	return v
}

// holdReasonQuote returns a hold reason as the explanation quotes it: one
// line of ASCII, without double quotes (it is shown between them), cut at a
// word to maxAutoreplyQuote. Not quoteReply: the reason is no SMTP reply,
// and its numbers ("with a limit of 40 KB") are not codes to strip.
func holdReasonQuote(reason string) string {
	s := textclean.ASCII(strings.ReplaceAll(reason, `"`, "'"), 4*maxAutoreplyQuote)
	if !hasWords(s) {
		return ""
	}
	return cutAtWord(s, maxAutoreplyQuote)
}
