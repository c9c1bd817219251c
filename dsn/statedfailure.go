package dsn

import (
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Whether a notice under "Auto-Submitted: auto-replied" states a delivery
// failure. RFC 3834 asks every automatic response to carry
// "Auto-Submitted: auto-replied" (section 3.1.7), and keeps that value for
// a user agent's responses to a message (section 5), which an MTA's
// delivery status notification is not; yet many MTAs and list managers
// mark their failure notices auto-replied: Gmail and Exim their bounces, MDaemon its
// "Permanent Delivery Failure" notices (X-MDDSN-Message), Sympa the
// notices its robot sends, its rejections (default/mail_tt2/reject.tt2,
// message_report.tt2) included.
// The header says only that software wrote the message: the text decides.

// refusalPhrases are lower-case phrases by which a notice states that a
// message was refused or not delivered, beyond failurePhrases: the
// refusal wording of block lists and policy ("blocked using" of Postfix's
// and Sendmail's DNSBL replies, "rejected", "refused", "not allowed to
// send" of list managers' and servers' refusals), MDaemon's "The attached
// message had PERMANENT fatal delivery errors!" and the "user not found"
// of hosted services' notices. A vacation reply writes none of them: it
// says the message was received.
var refusalPhrases = newPhraseList([]string{
	"blocked using", "blocked by", "was blocked", "been blocked", "message blocked",
	"rejected", "was refused", "been refused", "refused by", "refused to accept", "connection refused",
	"not allowed to send", "not permitted to send", "not authorized to send", "not allowed to post",
	"delivery failure", "fatal delivery error", "permanent delivery", "message delivery failed",
	"user not found", "recipient not found", "address not found", "mailbox not found",
	"could not be sent", "can't be delivered", "cannot deliver", "can not deliver",
})

// transcriptReplyMarks are the marks by which a session transcript quotes
// the remote server's reply: MDaemon's "<--", Sendmail's "<<<".
var transcriptReplyMarks = [...]string{"<-- ", "<<< "}

// maxReplyScan bounds the reply codes permanentReplyQuoted passes over.
const maxReplyScan = 64

// permanentReplyQuoted says whether a notice (see noticeWords) quotes a
// server's permanent refusal: an SMTP reply code of class 5 (RFC 5321
// section 4.2.1) followed by an enhanced status code of class 5 (RFC 3463:
// "554 5.7.1 ..."), or after a transcript's reply mark ("<-- 554 ...").
// A bare number of three digits is no reply: a street number or a phone
// extension in a signature is not one.
func permanentReplyQuoted(words []byte) bool {
	s := view(words)
	off := 0
	for n := 0; n < maxReplyScan && off < len(s); n++ {
		i := smtpcode.IndexReply(s[off:])
		if i < 0 {
			return false
		}
		i += off
		off = i + 3
		if s[i] != '5' {
			continue
		}
		if i+4 < len(s) {
			rest := s[i+4 : min(len(s), i+12)]
			if rest[0] == '5' && smtpcode.StatusPrefix(rest) != "" {
				return true
			}
		}
		for _, m := range transcriptReplyMarks {
			if i >= len(m) && s[i-len(m):i] == m {
				return true
			}
		}
	}
	return false
}

// failureNotice says whether a notice (see noticeWords) states a delivery
// failure: failureStated's phrases, refusalPhrases, or a quoted permanent
// reply (permanentReplyQuoted).
func failureNotice(words []byte) bool {
	return failureStated(words) || refusalPhrases.in(words) || permanentReplyQuoted(words)
}
