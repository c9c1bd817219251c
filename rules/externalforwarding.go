package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/dsn"
)

// Exchange Online's "550 5.7.520 Access denied, Your organization does
// not allow external forwarding. Please contact your administrator for
// further assistance. AS(7555)": the outbound spam policy of the tenant
// whose mailbox forwards the message blocks automatic forwarding to
// outside addresses (Microsoft Learn, "Control automatic external email
// forwarding in Microsoft 365" and "Fix email delivery issues for error
// code 5.7.520"). Whose tenant that is, the report shows only by whom it
// reaches:
//   - the mailbox owner who set the forwarding: an inbox rule's forward is
//     a new message of theirs, or a redirect of someone else's message to
//     them; the rule's reading (ms-5.7.520) stands: their organisation, their
//     admin;
//   - the original sender of a message that the recipient's mailbox
//     redirected or forwarded by SMTP forwarding: the returned message is
//     the sender's own (its From is the report's addressee) and the failed
//     address, the forward target, is not one it was sent to (not in its
//     To). Then the recipient's organisation blocks its own user's
//     forwarding: the sender has nothing to do, the original recipient's
//     mailbox most likely still received the message, and only the
//     recipient, if they rely on the forwarding, has their admin act.
//
// Without the returned message's author or the report's addressee the side
// is not known, and the owner is unknown (say less).

// externalForwardingRule is the id of the rule that reads 5.7.520.
const externalForwardingRule = "ms-5.7.520"

// forwardingSide is whose organisation a 5.7.520 report shows to block the
// forwarding.
type forwardingSide int

const (
	forwardingUnknown   forwardingSide = iota // the report does not show it
	forwardingSender                          // the report's addressee set the forwarding
	forwardingRecipient                       // the recipient's mailbox forwarded the sender's message
)

// externalForwardingSide reads whose forwarding a 5.7.520 record of r
// reports (see the top of this file); failed is the record's address.
func externalForwardingSide(r *dsn.Report, failed string) forwardingSide {
	author, addressee := strings.TrimSpace(r.Original.From), strings.TrimSpace(r.Addressee)
	if author == "" || addressee == "" {
		return forwardingUnknown
	}
	if !strings.EqualFold(author, addressee) {
		return forwardingSender // the report reaches the mailbox owner, about someone else's message
	}
	to := addressesOf(r.Original.To)
	if len(to) == 0 || failed == "" {
		return forwardingUnknown
	}
	for _, a := range to {
		if strings.EqualFold(a, failed) {
			return forwardingSender // the owner's own forward, a message of theirs to the target
		}
	}
	return forwardingRecipient
}

// addressesOf returns the addresses of a To value as the report gives it
// ("A <a@example.com>, b@example.org"): each angle-bracketed address, or
// each comma-separated word with an "@".
func addressesOf(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if lt := strings.LastIndexByte(part, '<'); lt >= 0 {
			if gt := strings.IndexByte(part[lt:], '>'); gt > 0 {
				part = part[lt+1 : lt+gt]
			}
		}
		if strings.Contains(part, "@") && !strings.ContainsAny(part, " \t") {
			out = append(out, part)
		}
		if len(out) == maxForwardingTo {
			break
		}
	}
	return out
}

// maxForwardingTo caps the addresses read from the original's To.
const maxForwardingTo = 64

// externalForwarding rewrites the reading v of a 5.7.520 record rc of r
// by the side externalForwardingSide finds: the recipient's side gets its
// own words and owner, an unknown side words that say both and the owner
// unknown; the sender's side keeps the rule's reading.
func (e *Engine) externalForwarding(v *Classification, r *dsn.Report, rc *dsn.Recipient, lang int) {
	t := e.textsFor(lang)
	vals := slotValues{slotRecipient: sanitize(rc.Address)}
	switch externalForwardingSide(r, rc.Address) {
	case forwardingRecipient:
		if to := addressesOf(r.Original.To); len(to) == 1 {
			vals[slotOriginal] = sanitize(to[0])
		}
		v.Owner = OwnerRecipientAdmin
		v.Summary = t[textForwardingBlockedSummary].plain()
		v.Explanation = t[textForwardingBlockedExplanation].render(&vals)
		v.Fix = t[textForwardingBlockedFix].render(&vals)
	case forwardingUnknown:
		v.Owner = OwnerUnknown
		v.Explanation = t[textForwardingUnknownExplanation].render(&vals)
		v.Fix = t[textForwardingUnknownFix].render(&vals)
	}
}
