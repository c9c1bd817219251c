package dsn

import (
	"github.com/ndrmilter/ndrmilter/smtpcode"
	"strings"

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
//     subject and text: Gmail and Exim mark their bounces auto-replied) or
//     its text states a failure (failureNotice: MDaemon's and Sympa's
//     notices are marked so too);
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
		// failure ("user not found", "blocked using", a quoted "554
		// 5.7.1" under Auto-Submitted: auto-replied): the text decides,
		// not one header (statedfailure.go).
		p.loadText()
		words := p.noticeWords()
		return challengeText(words) || !failureNotice(words)
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
	return ev < 2 && vacationText(words) && !failureNotice(words)
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
	r.Disposition = dispositionType(headerString(h, "Disposition"))
	a := headerString(h, "Final-Recipient")
	if a == "" {
		a = headerString(h, "Original-Recipient")
	}
	if r.Disposition == DispositionDeleted && p.readSieveReject(recipientAddress(a)) {
		return
	}
	if a != "" {
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: recipientAddress(a)})
	}
}

// FormatSieveReject is the Format of a KindBounce report that is a
// refusal sent as a message disposition notification: the Sieve reject
// action (RFC 5429 section 2.2.1: an MDN of disposition type "deleted",
// its human-readable part giving the reason), which Dovecot's delivery
// agent also sends when it refuses a message itself (its rejection_reason
// setting, by default "Your message to <%t> was automatically
// rejected:%n%r", with "Auto-Submitted: auto-replied (rejected)"), most
// often for a full mailbox.
const FormatSieveReject = "sieve-reject"

// rejectMDNPhrase is the lower-case sentence of Dovecot's and Pigeonhole's
// refusal after which the reason follows.
const rejectMDNPhrase = "was automatically rejected"

// maxRejectReason bounds the reason of a refusal sent as an MDN.
const maxRejectReason = 512

// readSieveReject reads a receipt of disposition deleted that is a refusal
// (see FormatSieveReject): its Auto-Submitted field says "rejected", or its
// text says the message "was automatically rejected". The recipient
// (addr, the Final-Recipient) failed, for the reason the text gives. It
// says whether the receipt is one; a receipt of a message deleted unread
// by its reader stays a receipt.
func (p *parser) readSieveReject(addr string) bool {
	p.loadText()
	words := p.noticeWords()
	at := strings.Index(view(words), rejectMDNPhrase)
	if at < 0 && indexFold(headerString(p.hdr, "Auto-Submitted"), "rejected") < 0 {
		return false
	}
	reason := ""
	if at >= 0 {
		// The reason is on the lines after "...rejected:", up to the
		// next blank line.
		rest := string(p.text[at+len(rejectMDNPhrase) : len(words)])
		rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(rest, " \t"), ":"), " \t\r\n")
		reason = strings.Join(strings.Fields(paragraphAt(rest, 0, maxRejectReason)), " ")
	}
	r := p.rep
	r.Kind = KindBounce
	r.Format = FormatSieveReject
	r.Disposition = ""
	r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: addr, Diagnostic: reason, Action: smtpcode.ActionFailed})
	p.finish(func() smtpcode.Action { return smtpcode.ActionFailed })
	return true
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
	a := ""
	if r.Format == FormatChallengeResponse {
		a = p.challengedAddress()
	} else {
		a = firstAddress(decodeWords(p.sc, headerString(p.hdr, "From")))
	}
	if a != "" {
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: a})
	}
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(decodeWords(p.sc, headerString(p.hdr, "To")))
	}
}

// sentToPhrases are lower-case phrases after which a challenge names the
// address the held message was sent to ("You recently sent an email to
// ron@example.com", "your message to <ron@example.com> is being held").
var sentToPhrases = newPhraseList([]string{
	"sent an email to", "sent an e-mail to", "sent a message to", "sent mail to",
	"your message to", "your email to", "your e-mail to", "your mail to",
})

// challengedAddress returns the address whose filter sent a challenge.
// The challenge may come from the person's own address (Spam Arrest,
// TMDA) or from the filter service's ("Ron via SafeSender"
// <verify@service.example>, Boxbe's notification address), which is not
// the recipient of the held message: the address the text says the
// message was sent to wins; else From, unless its display name says it
// comes "via" a service; else none (issue 8: an empty recipient rather
// than a wrong one).
func (p *parser) challengedAddress() string {
	words := p.noticeWords()
	if at := sentToPhrases.find(words); at >= 0 {
		// Skip the phrase's words (three or four; each phrase has
		// the same count as its spaces plus one).
		end := at
		for n, k := 0, sentToWords(words, at); n < k; n++ {
			for end < len(words) && isSpace(words[end]) {
				end++
			}
			for end < len(words) && !isSpace(words[end]) {
				end++
			}
		}
		text := view(p.text[end:len(words)])
		if a, aEnd := findAddress(text, 0); a != "" && aEnd >= len(a) &&
			strings.Trim(text[:aEnd-len(a)], " \t\r\n<\"'") == "" {
			return a
		}
	}
	from := decodeWords(p.sc, headerString(p.hdr, "From"))
	if lt := strings.IndexByte(from, '<'); lt >= 0 && indexFold(from[:lt], " via ") >= 0 {
		return ""
	}
	return firstAddress(from)
}

// sentToWords returns the number of words of the sentToPhrases phrase
// that starts at words[at].
func sentToWords(words []byte, at int) int {
	s := view(words)
	for _, ph := range sentToPhrases.phrases {
		if matchSpaced(s, at, ph) {
			return strings.Count(ph, " ") + 1
		}
	}
	return 0
}

// Disposition is the disposition type of a message disposition
// notification (RFC 8098 section 3.2.6.2).
type Disposition string

// The disposition types of RFC 8098 section 3.2.6.2.
const (
	DispositionDisplayed  Disposition = "displayed"  // shown to the recipient (not necessarily read)
	DispositionDeleted    Disposition = "deleted"    // deleted without being displayed
	DispositionDispatched Disposition = "dispatched" // sent somewhere else without being displayed
	DispositionProcessed  Disposition = "processed"  // processed without being displayed
)

// dispositionType reads the disposition type of a Disposition field value
// ("automatic-action/MDN-sent-automatically; deleted", RFC 8098 section
// 3.2.6: the action and sending modes, ";", the type and its modifiers
// after "/"); "" when it is none of the four.
func dispositionType(v string) Disposition {
	_, t, ok := strings.Cut(v, ";")
	if !ok {
		return ""
	}
	t = strings.TrimSpace(t)
	if i := strings.IndexAny(t, "/ \t"); i >= 0 {
		t = t[:i]
	}
	for _, d := range [...]Disposition{DispositionDisplayed, DispositionDeleted, DispositionDispatched, DispositionProcessed} {
		if strings.EqualFold(t, string(d)) {
			return d
		}
	}
	return ""
}
