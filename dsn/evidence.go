package dsn

import (
	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// Whether a message without a report part is a bounce at all, and which
// writer it comes from.

// textFamilies name the writer of a free-text report from a phrase of its
// boilerplate, for logs and tests: the reading itself is the same for all.
var textFamilies = []struct{ phrase, family string }{
	{"qmail-send program", "qmail"},
	{"this message was created automatically by mail delivery software", "exim"},
	{"this is the mail system at host", "postfix"},
	{"this is the postfix program", "postfix"},
	{"transcript of session follows", "sendmail"},
	{"the original message was received at", "sendmail"},
	{"did not reach the following recipient", "exchange2003"},
	{"delivery has failed to these recipients or groups", "exchange2007"},
	{"google tried to deliver your message", "gmail"},
	{"delivery to the following recipient failed permanently", "gmail"},
	{"we were unable to deliver your message to the following address", "yahoo"},
	{"this is the mailer-daemon, please do not reply", "opensmtpd"},
	{"failure reasons", "notes"},
	{"dragonfly mail agent", "dragonfly"},
	{"courier mail server", "courier"},
}

// textFamily returns the family of a free-text report, "text" when unknown.
func textFamily(lowerSection []byte) string {
	if i := textFamilySet.firstIn(lowerSection); i >= 0 {
		return textFamilies[i].family
	}
	return "text"
}

// textFamilySet finds the first of textFamilies' phrases in one pass.
var textFamilySet = func() *phraseSet {
	phrases := make([]string, len(textFamilies))
	for i, f := range textFamilies {
		phrases[i] = f.phrase
	}
	return newPhraseSet(phrases...)
}()

// failedRecipientsHeader reads X-Failed-Recipients (Exim, Gmail).
// The list starts in sc (see scratch.strings).
func failedRecipientsHeader(h message.Header, sc *scratch) []string {
	var out []string
	for i := range h {
		if ascii.EqualFold(h[i].Name, "X-Failed-Recipients") {
			if out == nil {
				out = sc.strings(4)
			}
			out = appendAddressList(out, view(h[i].Value()))
		}
	}
	return out
}

// bounceEvidence says how sure the header and text make it that the
// message is a bounce: 0 not at all; 1 the sender is a mailer daemon (or
// the null reverse path, or an automatic message), or the subject and the
// text both read like a bounce; 2 such a sender and a bounce subject or
// text, or X-Failed-Recipients. Words alone, from an ordinary sender, are
// not enough for 2: newsletters say "delivery failed" too.
func bounceEvidence(h message.Header, sender, subject bool, lowerText func() []byte) int {
	if h.Has("X-Failed-Recipients") {
		return 2
	}
	switch {
	case sender && subject:
		return 2 // the text need not be read
	case !sender && !subject:
		return 0 // nor here: words alone never make a bounce
	case !sender:
		if rp := headerString(h, "Return-Path"); rp != "" && rp != "<>" {
			// An ordinary sender with a return path of its own: bounces
			// travel with the null reverse path.
			return 0
		}
	}
	text := false
	lt := lowerText()
	for _, w := range bouncePhrases {
		if containsString(lt, w) {
			text = true
			break
		}
	}
	switch {
	case sender && text:
		return 2
	case sender || text:
		return 1
	case headerString(h, "From") == "":
		return 1
	}
	return 0
}

// headerEvidence reads the header's side of bounceEvidence: whether the
// sender is a mailer daemon, the null reverse path (RFC 5321 section
// 4.5.5) or an auto-generated message (RFC 3834), and whether the subject
// reads like a bounce.
func headerEvidence(h message.Header) (sender, subject bool) {
	sender = daemonFrom(h)
	auto := headerValue(h, "Auto-Submitted")
	if rp := headerValue(h, "Return-Path"); string(rp) == "<>" || hasPrefixFoldBytes(auto, "auto-generated") {
		sender = true
	}
	subject = headerContainsAny(h, "Subject", bounceSubjectSet)
	// Auto-Submitted: auto-replied marks vacation replies as much as
	// bounces (Gmail, Exim and Postfix mark theirs so): it makes an
	// automatic sender only with a bounce subject.
	if subject && hasPrefixFoldBytes(auto, "auto-replied") {
		sender = true
	}
	return sender, subject
}

// daemonFrom says whether the From of a message is a mailer daemon's
// (one of daemonSenders).
func daemonFrom(h message.Header) bool {
	return headerContainsAny(h, "From", daemonSenderSet)
}

// daemonSenders are lower-case parts of the From of automatic bounce senders.
var daemonSenders = []string{
	"mailer-daemon", "mailer_daemon", "mailerdaemon", "postmaster", "mail-daemon", "mail delivery",
	"maildelivery", "mail administrator", "system administrator", "mail_delivery",
	"mailadmin", "mail-system", "mail system", "mmdf", "mdaemon", "internet mail delivery",
	"returned mail", "post_master", "daemon@", "microsoftexchange",
}

// bounceSubjects are lower-case subject words of bounces and delay warnings.
var bounceSubjects = []string{
	"undeliver", "undelivered", "delivery fail", "delivery status notification", "failure notice",
	"returned mail", "mail delivery failed", "delivery problem", "could not be delivered",
	"not delivered", "non remis", "unzustellbar", "nicht zustellbar", "returned to sender",
	"delivery failure", "failed delivery", "mail failure", "delivery notification", "nondeliverable",
	"non-deliverable", "bounce", "warning: message", "delayed mail", "delivery delayed",
	"mail delivery", "mail system error", "message not delivered", "rejected", "error sending message",
	"permanent error", "delivery report", "no se puede entregar", "onbestelbaar", "não entregue",
	"配信", "エラー", "不達", "未送达", "退信", "недоставлен", "не доставлен", "не может быть доставлено",
	"could not send", "non-delivery", "nondelivery", "delivery error", "unable to deliver", "mail returned",
	"returned message", "delivery warning",
}

// bouncePhrases are lower-case phrases of bounce texts.
var bouncePhrases = []string{
	"could not be delivered", "couldn't be delivered", "was not delivered", "undeliverable",
	"unable to deliver", "delivery has failed", "delivery failed", "failed permanently",
	"permanent error", "permanent failure", "did not reach", "not be delivered", "user unknown",
	"no such user", "returned to sender", "the following address", "following recipient",
	"delivery to the following", "i'm afraid i wasn't able to deliver", "not able to deliver",
	"error delivering", "fatal error", "delivery error", "rejected", "mailbox unavailable",
	"message delivery failed", "smtp error", "remote host said", "does not exist", "deliver your message",
	"failed to deliver", "delivery attempt", "has not been delivered", "has been delayed",
	"temporary failure", "transcript of session", "not yet been delivered", "could not deliver",
	"unknown user", "invalid recipient", "recipient address rejected", "address rejected",
	"mailbox full", "quota", "host unknown", "message not delivered", "non-delivery", "nondelivery",
	"delivery status", "giving up", "following addresses", "failed recipient",
	"配信", "送信できません", "届きません", "не может быть доставлено", "не доставлено",
}
