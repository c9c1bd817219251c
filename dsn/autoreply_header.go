package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// MarkedAutoReply reports whether a message's header marks it, in a header
// field, as an automatic response to another message: an auto-reply, an
// out-of-office notice, a challenge-response request or a quarantine
// notice. RFC 3834 section 5 asks every automatic responder, challenge-
// response systems included (its section 1), to write "Auto-Submitted:
// auto-replied"; the other fields are those responders write instead
// (X-Autoreply, X-Autorespond, X-Autoresponder, X-Vacation, "Precedence:
// auto_reply", and Exchange's X-Auto-Response-Suppress together with
// X-MS-Exchange-Inbox-Rules-Loop, which only its inbox rules write).
//
// It is stricter than the Kind a Report gets: the subject alone ("Out of
// office", "Automatic reply", ...) also makes a message KindAutoreply, but
// a person may write such a subject, and a judgement of backscatter is
// never made on a person's message. A message no person writes (the null
// envelope sender, RFC 5321 section 4.5.5) is marked by its envelope, which
// only the front end knows.
func MarkedAutoReply(h message.Header) bool {
	if v := ascii.LowerString(strings.TrimSpace(headerString(h, "Auto-Submitted"))); strings.HasPrefix(v, "auto-replied") {
		return true
	}
	for _, name := range [...]string{"X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Vacation"} {
		if h.Has(name) {
			return true
		}
	}
	if p := ascii.LowerString(strings.TrimSpace(headerString(h, "Precedence"))); p == "auto_reply" || p == "auto-reply" {
		return true
	}
	return h.Has("X-Auto-Response-Suppress") && h.Has("X-MS-Exchange-Inbox-Rules-Loop")
}
