package decide

import (
	"errors"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// JudgesAutoReply reports whether rep is an automatic reply that gets a
// backscatter judgement: an auto-reply, out-of-office notice,
// challenge-response request or quarantine notice (dsn.KindAutoreply)
// that marked tells is one by more than its words (see Facts.AutoReply).
// A person's reply is never judged: its Subject may say "out of office",
// but a person may write that.
func JudgesAutoReply(rep *dsn.Report, marked bool) bool {
	return marked && rep != nil && rep.Kind == dsn.KindAutoreply
}

// ParseAutoReplyAction returns the Action for automatic replies judged
// backscatter s names: tag, quarantine or discard, in any case; "" is tag.
// Reject is refused: an automatic responder ignores a refusal (RFC 3834
// section 3.1.5 asks it not to reply to a reply), so refusing only costs a
// bounce of the refusal to the forged sender, that is to us.
func ParseAutoReplyAction(s string) (Action, error) {
	a, err := ParseAction(s)
	if err == nil && a == ActionReject {
		err = errAutoReplyReject
	}
	if err != nil {
		return "", err
	}
	return a, nil
}

var errAutoReplyReject = errors.New("autoreply backscatter action reject: expected tag, quarantine or discard (an automatic responder ignores a refusal)")

// autoReply is Inbound for an automatic reply (Facts.AutoReply): the
// X-NDR-Backscatter field and one X-NDR-Status with kind=autoreply, no
// explanation (there is no failure to explain), and, when it is judged
// backscatter, Policy.AutoReplyAction within these bounds: it is
// discarded only when it comes from outside and the evidence names what it
// answers (see discardable); anything else is tagged or quarantined.
func autoReply(p Policy, f Facts, out Outcome) Outcome {
	rep, j := f.Report, f.Judgement
	if j.Verdict == backscatter.Yes {
		switch p.AutoReplyAction {
		case ActionQuarantine:
			out.Action = ActionQuarantine
		case ActionDiscard:
			out.Action = ActionTag
			if !f.Inside && discardable(j) {
				out.Action = ActionDiscard
			}
		default:
			out.Action = ActionTag
		}
	}
	responder := ""
	if len(rep.Recipients) > 0 {
		responder = rep.Recipients[0].Address
	}
	out.Event = &Event{
		QueueID:         textclean.Line(f.QueueID, 64),
		Recipients:      f.Recipients,
		Kind:            rep.Kind,
		FailedRecipient: textclean.Line(responder, 320),
		Judgement:       j,
		Action:          out.Action,
		ParseErr:        f.ParseErr,
		Truncated:       f.Truncated,
	}
	switch out.Action {
	case ActionDiscard:
		return out
	case ActionQuarantine:
		out.Quarantine = "ndrmilter: backscatter auto-reply (" + j.String() + ")"
	}
	status := statusValue("kind", string(dsn.KindAutoreply))
	if responder != "" {
		status = statusValue("kind", string(dsn.KindAutoreply), "recipient", responder)
	}
	out.Add = append(out.Add,
		Header{Name: hdrBackscatter, Value: fold(hdrBackscatter, j.String())},
		Header{Name: hdrStatus, Value: fold(hdrStatus, status)})
	return out
}

// discardable reports whether an automatic reply judged backscatter may be
// discarded: the judgement rests on what it answers (every Message-ID it
// names is ours and was never sent), on a forged BATV tag, or on an address
// the site listed as one that never sends. A receive-only address learned
// from the ledger, or a missing BATV tag, is weaker (mail may leave another
// way): tagged.
func discardable(j backscatter.Judgement) bool {
	switch j.Evidence {
	case backscatter.EvidenceInReplyTo, backscatter.EvidenceBATV:
		return true
	case backscatter.EvidenceNeverSends:
		return !j.Learned
	}
	return false
}
