package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// Notices about delivery that report no failure of a message of their
// reader: a mailing list's bounce probe and its notices about a member's
// bounces, a spam filter's quarantine digest
// and a ticket system's notice of a ticket about a bounce. All name
// addresses and talk of bounces, blocks or messages "not delivered", the
// probe carries a sample bounce, and the ticket notice is auto-generated
// under the bounce's subject, so the free-text and embedded readers would
// take them for bounces of their own.

// FormatListProbe is the Format of a KindNone report that is a mailing
// list's bounce probe: Mailman sends it to a member whose address bounced,
// with a sample of the bounce attached, to see whether the address still
// fails (Mailman 2.1 Bouncer.sendProbe and templates/probe.txt, Mailman 3
// list:user:notice:probe: subject "LIST mailing list probe message", text
// "This is a probe message. You can ignore this message."). The probe
// itself reports nothing; a bounce of it is read as any bounce.
const FormatListProbe = "list-probe"

// FormatListBounceNotice is the Format of a report that is a mailing
// list's notice about a member whose address bounces: to the list's owners
// when the list counted a bounce, disabled the member's delivery or removed
// the member, or to the member when their delivery was disabled. It
// carries the bounce it is about, of the list's mail and not of a message
// its reader sent: the report holds that bounce's records (KindBounce or
// KindDelay, the member as recipient) and no original message, or is
// KindNone when no bounce is attached (Mailman 3's removal notice).
// Mailman 2.1 sends the
// owners' notice as "Bounce action notification" (Bouncer.py,
// templates/en/bounce.txt: "This is a Mailman mailing list bounce action
// notice"); Mailman 3 as "MEMBER's subscription disabled on LIST",
// "MEMBER's bounce score incremented on LIST" and "MEMBER unsubscribed from
// LIST mailing list due to bounces" (app/notifications.py, templates
// list:admin:notice:disable, :increment, :removal), and the member's as
// "Your subscription for LIST mailing list has been disabled"
// (list:user:notice:warning).
const FormatListBounceNotice = "list-bounce-notice"

// FormatListUncaughtBounce is the Format of a report that is a mailing
// list's notice to its owners that it received a bounce it could not read:
// Mailman 2.1 (Bouncer.py, "Uncaught bounce notification": "The attached
// message was received as a bounce, but either the bounce format was not
// recognized, or no member addresses could be extracted from it. This
// mailing list has been configured to send all unrecognized bounce
// messages to the list administrator(s).") and Mailman 3 (app/bounces.py
// maybe_forward, the same subject and template list:admin:notice:unrecognized).
// As FormatListBounceNotice, the bounce it carries is of the list's mail:
// its records, when this reader can read them, stay, the list's owners act,
// and the list's post is not the reader's original message; with none read
// it is KindNone.
const FormatListUncaughtBounce = "list-uncaught-bounce"

// FormatQuarantineDigest is the Format of a KindNone report that is a spam
// filter's quarantine digest: a list, sent to a recipient, of the messages
// held for them, with links to release them. It reports no failure of a
// message its reader sent.
const FormatQuarantineDigest = "quarantine-digest"

// FormatTicketNotice is the Format of a KindNone report that is a ticket
// system's notice (a ticket created or updated): its subject and text are a
// person's, who may be asking about a bounce, and it fails nothing.
const FormatTicketNotice = "ticket-notice"

// ticketHeaders are header fields that ticket systems put on the notices
// they send: Request Tracker (RT-Ticket, X-RT-Loop-Prevention, RT's
// documented outgoing headers), OTRS and Znuny (X-OTRS-Loop), Jira
// (X-JIRA-FingerPrint). A bounce of such a notice carries them only in the
// returned message, not in its own header.
var ticketHeaders = [...]string{"RT-Ticket", "X-RT-Loop-Prevention", "X-OTRS-Loop", "X-JIRA-FingerPrint"}

// listProbeSubjects are the lower-case subject words of Mailman's probe
// (both versions write the same English subject).
var listProbeSubjects = []string{"mailing list probe message"}

// listBounceNoticeSubjects are the lower-case subject words of the
// notices of FormatListBounceNotice, in the English both Mailman versions
// write them in.
var listBounceNoticeSubjects = []string{
	"bounce action notification",
	"'s subscription disabled on ", "'s bounce score incremented on ",
	"mailing list due to bounces", "mailing list has been disabled",
}

// A ListAction is what a mailing list did about a member whose address
// bounces, as its notice says (Report.ListAction).
type ListAction string

// The actions of Mailman's bounce processing: Mailman 2.1's bounce.txt
// ("Action: Subscription %(did)s.", Bouncer.py: disabled, or the bounce
// score incremented when the owner asks to hear of each bounce) and
// Mailman 3's notices (app/notifications.py: "MEMBER's subscription
// disabled on LIST", "MEMBER's bounce score incremented on LIST", "MEMBER
// unsubscribed from LIST mailing list due to bounces", the member's "Your
// subscription for LIST mailing list has been disabled").
const (
	ListActionCounted  ListAction = "counted"  // the bounce was counted against the member
	ListActionDisabled ListAction = "disabled" // delivery to the member was stopped
	ListActionRemoved  ListAction = "removed"  // the member was unsubscribed
)

// listActionWords are lower-case words of a list's notice and the action
// they state, the more final first.
var listActionWords = [...]struct {
	words  string
	action ListAction
}{
	{"due to bounces", ListActionRemoved}, {"subscription removed", ListActionRemoved},
	{"unsubscribed", ListActionRemoved}, {"disabled", ListActionDisabled},
	{"score incremented", ListActionCounted},
}

// listAction returns the action a list's notice states: in its subject
// (Mailman 3), else on the "Action:" line of its text (Mailman 2.1); ""
// when it states none.
func (p *parser) listAction() ListAction {
	var buf [maxShortField]byte
	low := message.AppendDecodedWords(buf[:0], view(headerValue(p.hdr, "Subject")))
	low = ascii.LowerInto(low, low)
	if a := listActionIn(low); a != "" {
		return a
	}
	p.loadText()
	text := p.lowerText
	for i := 0; i < len(text); {
		line, next := ascii.NextLine(text, i)
		i = next
		if t := bytes.TrimSpace(line); bytes.HasPrefix(t, []byte("action:")) {
			if a := listActionIn(t); a != "" {
				return a
			}
		}
	}
	return ""
}

// listActionIn returns the action that words (lower case) state, "" for none.
func listActionIn(words []byte) ListAction {
	for _, w := range listActionWords {
		if bytes.Contains(words, []byte(w.words)) {
			return w.action
		}
	}
	return ""
}

// listAddress returns the posting address of the list a notice comes
// from: Mailman's X-BeenThere, else RFC 2369's List-Post ("<mailto:...>");
// "" when neither names a plausible address.
func (p *parser) listAddress() string {
	if a := cleanAddress(headerString(p.hdr, "X-BeenThere")); plausibleAddress(a) {
		return a
	}
	v := headerString(p.hdr, "List-Post")
	if i := strings.Index(strings.ToLower(v), "mailto:"); i >= 0 {
		v = v[i+len("mailto:"):]
		if j := strings.IndexAny(v, ">?"); j >= 0 {
			v = v[:j]
		}
		if a := cleanAddress(v); plausibleAddress(a) {
			return a
		}
	}
	return ""
}

// listUncaughtBounceSubjects are the lower-case subject words of the
// notices of FormatListUncaughtBounce (both Mailman versions).
var listUncaughtBounceSubjects = []string{"uncaught bounce notification"}

// quarantineDigestSubjects are lower-case subject words of the quarantine
// digests and notifications that spam filters send to recipients, as the
// vendors document them: Cisco Secure Email "Spam Quarantine Notification"
// and "Spam Quarantine Summary", Proofpoint "End User Digest", Barracuda
// and Sophos "Quarantine Summary", SpamTitan "Quarantine Report", Microsoft
// 365 quarantine notifications ("You have messages in quarantine"),
// "Quarantine Digest" of several gateways.
var quarantineDigestSubjects = []string{
	"spam quarantine", "quarantine summary", "quarantine digest", "quarantine report", "end user digest",
	"messages in quarantine", "spam digest",
}

// readAdminNotice says whether the message is a list's bounce probe or
// notice about a member's bounces, a quarantine digest or a ticket
// system's notice, and then marks the report
// (KindNone, with its Format). A ticket system's header field decides the
// last; for the others only the subject decides, and only when it reads
// like no bounce: a bounce of a probe or of a digest repeats the subject
// after "Undeliverable:" and stays a bounce.
func (p *parser) readAdminNotice() bool {
	for _, name := range ticketHeaders {
		if p.hdr.Has(name) {
			p.rep.Format = FormatTicketNotice
			return true
		}
	}
	format := ""
	switch {
	case headerContainsAny(p.hdr, "Subject", listProbeSubjectSet):
		format = FormatListProbe
	case headerContainsAny(p.hdr, "Subject", quarantineDigestSubjectSet):
		format = FormatQuarantineDigest
	default:
		return false
	}
	if _, bounceSubject := p.headerEvidence(); bounceSubject {
		return false
	}
	p.rep.Format = format
	return true
}

// listBounceNoticeSubject returns the Format of a list's notice about a
// bounce (FormatListBounceNotice, FormatListUncaughtBounce) when the
// Subject is one of its subjects, "" otherwise. Those subjects speak of
// bounces themselves, so only bounce words before them (a bounce of the
// notice: "Undelivered Mail Returned to Sender: Bounce action
// notification") make the message a bounce.
func listBounceNoticeSubject(h message.Header) string {
	var buf [maxShortField]byte
	low := message.AppendDecodedWords(buf[:0], view(headerValue(h, "Subject")))
	low = ascii.LowerInto(low, low)
	for _, s := range [...]struct {
		words  []string
		format string
	}{{listBounceNoticeSubjects, FormatListBounceNotice}, {listUncaughtBounceSubjects, FormatListUncaughtBounce}} {
		for _, w := range s.words {
			if i := bytes.Index(low, []byte(w)); i >= 0 {
				if bounceSubjectSet.in(low[:i]) {
					return ""
				}
				return s.format
			}
		}
	}
	return ""
}

// markListBounceNotice marks a report read from a list's notice about a
// bounce (format: FormatListBounceNotice or FormatListUncaughtBounce): the records of the bounce
// it carries stay, the list's post is not the reader's original message,
// and anything else the notice's words were read as is dropped.
func (p *parser) markListBounceNotice(format string) {
	r := p.rep
	r.Format = format
	r.Original = Original{}
	if format == FormatListBounceNotice {
		r.List, r.ListAction = p.listAddress(), p.listAction()
	}
	if r.Kind != KindBounce && r.Kind != KindDelay {
		r.Kind = KindNone
		r.Recipients = nil
	}
}
