package decide

import (
	"strconv"
	"strings"

	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// Policy is what a site chose for the reports ndrmilter reads. The zero
// Policy tags backscatter, shows up to 10 recipients, and changes neither
// the Subject nor the body.
type Policy struct {
	// BackscatterAction is what happens to a report judged backscatter
	// ("": ActionTag).
	BackscatterAction Action
	// MaxRecipientHeaders caps the X-NDR-Status and X-NDR-Explanation
	// fields of one message (0: 10).
	MaxRecipientHeaders int
	// SubjectTag prefixes the Subject with "[Bounce: summary]". It breaks a
	// DKIM signature that covers Subject.
	SubjectTag bool
	// BodySummary puts a short plain-text summary at the top of the
	// report's human-readable part. It breaks the report's DKIM body hash.
	BodySummary bool
	// AutoReplyAction is what happens to an automatic reply judged
	// backscatter ("": ActionTag; ActionReject is taken as ActionTag, see
	// ParseAutoReplyAction).
	AutoReplyAction Action

	// Language is the language of what is written into a report; the
	// front end writes the readings in Language.For (see Facts.Language).
	Language Language
}

// defaultMaxRecipientHeaders is MaxRecipientHeaders when the Policy gives none.
const defaultMaxRecipientHeaders = 10

// Facts are what a front end knows of an inbound message at the end of its
// data: what it gathered from the envelope and header, and, for a message
// that may be a report, what dsn, rules and backscatter made of it.
type Facts struct {
	// QueueID is the MTA's queue id, for the log.
	QueueID string
	// Recipients are the envelope recipients.
	Recipients []string
	// Inside is set for a report written inside (by our MTA, or an internal
	// server) to our own users: it is never rejected or discarded, since
	// refusing it inside the MTA would leave the original deferred and its
	// sender never told.
	Inside bool
	// NullSender is set when the envelope sender is null (RFC 5321 section
	// 4.5.5), as it is for every delivery report: only such a message is
	// ever rejected, discarded or quarantined (see Route.NullSender).
	NullSender bool
	// Subject is the value of the first Subject field, as received;
	// HasSubject says whether there is one.
	Subject    string
	HasSubject bool
	// Incoming are the X-NDR-* fields that came with the message (see
	// IsNDRHeader), in order: Name as sent and Index among the fields of
	// that name, counted case-insensitively from 1.
	Incoming []Header
	// Raw is the header and body as kept for parsing; Truncated says that
	// a size cap cut it short.
	Raw       []byte
	Truncated bool

	// Report is what dsn.Parse read of Raw, nil when the message was not
	// read; ParseErr is its error, for the log.
	Report   *dsn.Report
	ParseErr error
	// Readings are what the rules engine made of Report, their words in
	// Language.
	Readings []rules.Reading
	// Language is the language of the words of Readings, and of what
	// Inbound writes itself (language.Und: English).
	Language language.Tag
	// Judgement is what backscatter made of Report.
	Judgement backscatter.Judgement
	// AutoReply: Report is an automatic reply that is judged (see
	// JudgesAutoReply): it gets the X-NDR-Backscatter field and an
	// X-NDR-Status with kind=autoreply, and Policy.AutoReplyAction.
	AutoReply bool
}

// Header is a header field to add, to change (Index: which field of that
// name, from 1) or to delete (Name and Index). Value is folded with "\n\t"
// between lines, as the milter protocol wants; a front end that writes the
// message itself puts "\r\n\t" there.
type Header struct {
	Name  string
	Value string
	Index int
}

// Outcome is what a front end does to an inbound message, in this order:
// delete, change, add, replace the body, then act.
type Outcome struct {
	// Action is what happens to the message. ActionNone and ActionTag
	// deliver it with the header changes; ActionQuarantine too, held.
	Action Action
	// Reply is the refusal for ActionReject.
	Reply Reply
	// Quarantine is the reason given to the MTA for ActionQuarantine.
	Quarantine string
	// Delete are the incoming X-NDR-* fields, last first, so that the
	// indexes of those still to delete do not move.
	Delete []Header
	// Change are fields whose value is replaced.
	Change []Header
	// Add are fields appended to the header, in order.
	Add []Header
	// Body is the new body, nil when it stays as it is.
	Body []byte
	// Event is what the log line and the metrics say of an explained
	// report; nil for any other message.
	Event *Event
}

// Annotates reports whether rep is a report that gets the X-NDR headers
// and a backscatter judgement: a bounce or a delay report.
func Annotates(rep *dsn.Report) bool {
	return rep != nil && (rep.Kind == dsn.KindBounce || rep.Kind == dsn.KindDelay)
}

// BounceSender reports whether from, an envelope sender, is one delivery
// reports come from: the null sender (RFC 5321 section 4.5.5), or a
// MAILER-DAEMON or postmaster address, which some servers use instead.
// Only such messages are read as possible reports.
func BounceSender(from string) bool {
	from = ledger.NormalizeAddress(from)
	if from == "" {
		return true
	}
	local, _, _ := strings.Cut(from, "@")
	switch local {
	case "mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon":
		return true
	}
	return false
}

// IsNDRHeader reports whether a field of that name is one ndrmilter writes
// (X-NDR-*, any case). Every such field that comes with an inbound message
// is deleted, report or not: it is trustworthy only when ndrmilter wrote it.
func IsNDRHeader(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), hdrPrefix)
}

// Inbound decides what happens to an inbound message: its X-NDR-* fields
// are deleted, and a report that Annotates is explained in X-NDR-* fields
// and, when judged backscatter, tagged, quarantined, rejected or discarded
// as the Policy says. It does no I/O.
func Inbound(p Policy, f Facts) Outcome {
	out := Outcome{Action: ActionNone}
	for i := len(f.Incoming) - 1; i >= 0; i-- {
		out.Delete = append(out.Delete, Header{Name: f.Incoming[i].Name, Index: f.Incoming[i].Index})
	}
	if f.AutoReply && JudgesAutoReply(f.Report, true) {
		return autoReply(p, f, out)
	}
	if !Annotates(f.Report) {
		return out
	}
	rep, j := f.Report, f.Judgement
	maxShown := p.MaxRecipientHeaders
	if maxShown <= 0 {
		maxShown = defaultMaxRecipientHeaders
	}
	shown := pickReadings(f.Readings, maxShown)
	win := shown[0]
	owner := validOwner(win.Owner)

	if j.Verdict == backscatter.Yes {
		out.Action = backscatterAction(p.BackscatterAction, f, j)
	}
	out.Event = &Event{
		QueueID:         textclean.Line(f.QueueID, 64),
		Recipients:      f.Recipients,
		Kind:            rep.Kind,
		Status:          win.Status,
		Reason:          win.Reason,
		Owner:           owner,
		Rule:            win.Rule,
		FailedRecipient: textclean.Line(win.Recipient.Address, 320),
		Judgement:       j,
		Action:          out.Action,
		ParseErr:        f.ParseErr,
		Truncated:       f.Truncated,
	}
	switch out.Action {
	case ActionReject:
		out.Reply = backscatterReply
		return out
	case ActionDiscard:
		return out
	case ActionQuarantine:
		out.Quarantine = "ndrmilter: backscatter (" + j.String() + ")"
	}

	out.Add = append(out.Add,
		Header{Name: hdrBackscatter, Value: fold(hdrBackscatter, j.String())},
		Header{Name: hdrOwner, Value: string(owner)})
	for _, r := range shown {
		out.Add = append(out.Add, Header{Name: hdrStatus, Value: fold(hdrStatus, statusOf(r))})
	}
	lang := f.Language
	if lang == language.Und {
		lang = language.English
	}
	for _, r := range shown {
		out.Add = append(out.Add, Header{Name: hdrExplanation, Value: encodeValue(hdrExplanation, explanation(r, lang), "")})
	}
	if more := len(f.Readings) - len(shown); more > 0 && len(shown) == maxShown {
		id := "header.more.other"
		if more == 1 {
			id = "header.more.one"
		}
		t := catalog.Default().Text(lang, id, "count", strconv.Itoa(more))
		out.Add = append(out.Add, Header{Name: hdrExplanation, Value: encodeValue(hdrExplanation, t, "")})
	}
	if p.SubjectTag {
		tag := textclean.Line(subjectTag(rep.Kind, win, lang), maxText)
		if f.HasSubject {
			out.Change = append(out.Change, Header{Name: "Subject", Index: 1,
				Value: encodeValue("Subject", tag, unfold(f.Subject))})
		} else {
			out.Add = append(out.Add, Header{Name: "Subject", Value: encodeValue("Subject", tag, "")})
		}
	}
	if p.BodySummary && !f.Truncated {
		out.Body = withSummary(f.Raw, func(utf8 bool) string { return summaryText(shown, j, lang, utf8) })
	}
	return out
}

// backscatterAction is the action the policy takes on a report judged
// backscatter. Only a message that is a report by its envelope as well as
// its content (NullSender: a person writes from postmaster@ with an
// ordinary sender, and may quote a bounce) is ever held, and it is refused
// (rejected or discarded) only when it comes from outside (see
// Facts.Inside) and the evidence positively says that the original never
// left here (refusable). Anything else is tagged: a wrong tag costs a
// reader a look, a wrong refusal loses real mail.
func backscatterAction(a Action, f Facts, j backscatter.Judgement) Action {
	if !f.NullSender {
		return ActionTag
	}
	switch a {
	case ActionQuarantine:
		return a
	case ActionReject, ActionDiscard:
		if !f.Inside && refusable(j) {
			return a
		}
	}
	return ActionTag
}

// refusable reports whether a backscatter judgement rests on evidence that
// positively names the original and found it missing: its Message-ID, or a
// queue id of ours in its Received lines, looked up and not found. A
// judgement on (sender, recipient) pairs alone is not enough to refuse: the
// report may name a recipient the original was never addressed to (a
// forwarding address, an alias, a list member).
//
// A forged BATV tag (EvidenceBATV with Yes) is refusable too: the report
// comes to a prvs= address of ours whose tag our key did not make, so the
// original did not leave here with that sender.
func refusable(j backscatter.Judgement) bool {
	return j.Verdict == backscatter.Yes &&
		(j.Evidence == backscatter.EvidenceMessageID || j.Evidence == backscatter.EvidenceQueueID ||
			j.Evidence == backscatter.EvidenceBATV)
}
