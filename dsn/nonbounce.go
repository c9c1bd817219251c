package dsn

import (
	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// autoReplied says whether a message without a report part is an
// automatic reply rather than a bounce. The text decides, not one header:
//   - a challenge of a challenge-response filter (Boxbe's "Request to join
//     my Guest List", "please verify your message") is an auto-reply,
//     though it says the message was not delivered yet;
//   - a message the header marks as an auto-reply (RFC 3834
//     Auto-Submitted: auto-replied, an "Automatic reply" subject...) is one
//     unless the bounce evidence is strong (a mailer daemon's bounce
//     subject and text: Gmail and Exim mark their bounces auto-replied);
//   - a message that some evidence makes a bounce candidate (a null
//     reverse path, say) but whose text is a vacation notice ("Thank you
//     for your e-mail. I am out of the office") and states no failure is
//     one too.
//
// Ordinary mail (no header evidence at all) is not read here: it costs no
// text search.
func (p *parser) autoReplied() bool {
	header := p.autoReplyHeader()
	ev := p.evidence()
	switch {
	case !header && ev == 0:
		return false
	case header && ev < 2:
		// A vacation notice or a challenge, unless the text states a
		// failure ("user not found" under Auto-Submitted: auto-replied):
		// the text decides, not one header.
		p.loadText()
		words := p.noticeWords()
		return challengeText(words) || !failureStated(words)
	case ev >= 2 && (!header || daemonFrom(p.hdr)):
		return false // a mailer daemon's bounce: no text search
	}
	p.loadText()
	words := p.noticeWords()
	if ev >= 2 || !daemonFrom(p.hdr) {
		// Marked an auto-reply, or sent by no daemon: a challenge?
		if challengeText(words) {
			return true
		}
	}
	return ev < 2 && vacationText(words) && !failureStated(words)
}

// challengePhrases are lower-case phrases of the challenges that
// challenge-response filters (Boxbe, SpamArrest, TMDA, Mailblocks...) send
// to an unknown sender: the message waits until the sender proves to be a
// person. Not a bounce: the message was not refused.
var challengePhrases = newPhraseList([]string{
	"guest list", "waitlisted", "wait list", "verify your message", "verify your email address",
	"verify your e-mail address", "verify your address", "please verify your", "verify that you are",
	"confirm that you are a", "confirm you are a", "are a real person", "confirm you are human",
	"challenge-response", "challenge response", "sender verification", "approved senders list",
	"click here to deliver your message", "to have it delivered", "whitelist request",
	"requires senders to verify", "until you confirm",
})

// FormatChallengeResponse is the Format of a KindAutoreply report that is
// the challenge of a challenge-response filter: unlike an out-of-office
// notice, it says that the message is held until its sender proves to be a
// person, and is dropped otherwise, so the sender has something to do.
const FormatChallengeResponse = "challenge-response"

// challenge says whether an auto-reply's text is a challenge. Only
// auto-replies are searched, so ordinary mail pays nothing for it.
func (p *parser) challenge() bool {
	p.loadText()
	return challengeText(p.noticeWords())
}

// challengeText says whether a notice (see noticeWords) is a challenge.
func challengeText(words []byte) bool {
	return challengePhrases.in(words)
}

// vacationPhrases are lower-case phrases of vacation and out-of-office
// replies, in the languages the subjects of autoReplySubjects cover.
var vacationPhrases = newPhraseList([]string{
	"out of the office", "out of office", "on vacation", "on holiday", "on leave", "away from the office",
	"away from my desk", "i am away", "i'm away", "i am currently away", "i am currently out",
	"limited access to e-mail", "limited access to email", "will be back", "i will return",
	"thank you for your e-mail", "thank you for your email", "thank you for your message",
	"thanks for your email", "thanks for your e-mail", "thanks for your message",
	"i no longer work", "no longer with", "is no longer monitored", "not monitored",
	"will get back to you", "will reply to your", "will respond to your", "will answer your",
	"abwesend", "im urlaub", "vielen dank für ihre", "en vacances", "absent du bureau",
	"fuera de la oficina", "de vacaciones", "fuori ufficio", "in ferie",
	// The same notices' usual first sentences in German, French, Spanish,
	// Italian, Dutch and Portuguese.
	"nicht im büro", "außer haus", "ausser haus", "je suis absent", "je serai absent", "estaré fuera",
	"estoy fuera", "sono assente", "sarò assente", "niet op kantoor", "afwezig", "fora do escritório",
	"de férias",
})

// vacationText says whether a notice (see noticeWords) reads as a
// vacation or out-of-office reply.
func vacationText(words []byte) bool {
	return vacationPhrases.in(words)
}

// Reports that are not bounces: RFC 5965 feedback reports, RFC 8098 read
// receipts and RFC 3834 auto-replies.

// readFeedback reads an RFC 5965 feedback report: one recipient record per
// Original-Rcpt-To, else per address of the original's To.
func (p *parser) readFeedback(i int) {
	r := p.rep
	r.Kind = KindFeedback
	r.Format = "arf"
	body, _ := p.parts[i].Decode(MaxDecodedPart)
	h, _, _ := message.ReadHeader(body)
	r.FeedbackType = ascii.LowerString(headerString(h, "Feedback-Type"))
	if v := headerString(h, "Reporting-MTA"); v != "" {
		_, r.ReportingMTA = stripType(v)
	}
	if v := headerString(h, "Original-Mail-From"); v != "" && r.Original.Sender == "" {
		r.Original.Sender = cleanAddress(v)
	}
	var addrs []string
	for k := range h {
		if ascii.EqualFold(h[k].Name, "Original-Rcpt-To") || ascii.EqualFold(h[k].Name, "Removal-Recipient") {
			if a := cleanAddress(string(h[k].Value())); a != "" {
				addrs = append(addrs, a)
			}
		}
	}
	if len(addrs) == 0 {
		addrs = addressList(r.Original.To)
	}
	for _, a := range addrs {
		if len(r.Recipients) >= MaxRecipients {
			r.Truncated = true
			break
		}
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: a})
	}
}

// readReceipt reads an RFC 8098 message disposition notification.
func (p *parser) readReceipt(i int) {
	r := p.rep
	r.Kind = KindReceipt
	r.Format = "mdn"
	body, _ := p.parts[i].Decode(MaxDecodedPart)
	h, _, _ := message.ReadHeader(body)
	if v := headerString(h, "Reporting-UA"); v != "" {
		// "host; product" (RFC 8098 section 3.2.1).
		r.ReportingMTA = cleanHost(v)
	}
	a := headerString(h, "Final-Recipient")
	if a == "" {
		a = headerString(h, "Original-Recipient")
	}
	if a != "" {
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: recipientAddress(a)})
	}
}

// readAutoReply reads an RFC 3834 auto-reply: the recipient is the one who
// replied (From), the original sender the one the reply goes to (To).
func (p *parser) readAutoReply() {
	r := p.rep
	r.Kind = KindAutoreply
	r.Format = "rfc3834"
	if p.challenge() {
		r.Format = FormatChallengeResponse
	}
	if a := firstAddress(decodeWords(p.sc, headerString(p.hdr, "From"))); a != "" {
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: a})
	}
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(decodeWords(p.sc, headerString(p.hdr, "To")))
	}
}
