package dsn

import (
	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

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
	r.FeedbackType = ascii.LowerString(h.GetString("Feedback-Type"))
	if v := h.GetString("Reporting-MTA"); v != "" {
		_, r.ReportingMTA = stripType(v)
	}
	if v := h.GetString("Original-Mail-From"); v != "" && r.Original.Sender == "" {
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
		r.Recipients = append(r.Recipients, Recipient{Address: a})
	}
}

// readReceipt reads an RFC 8098 message disposition notification.
func (p *parser) readReceipt(i int) {
	r := p.rep
	r.Kind = KindReceipt
	r.Format = "mdn"
	body, _ := p.parts[i].Decode(MaxDecodedPart)
	h, _, _ := message.ReadHeader(body)
	if v := h.GetString("Reporting-UA"); v != "" {
		// "host; product" (RFC 8098 section 3.2.1).
		r.ReportingMTA = cleanHost(v)
	}
	a := h.GetString("Final-Recipient")
	if a == "" {
		a = h.GetString("Original-Recipient")
	}
	if a != "" {
		r.Recipients = append(r.Recipients, Recipient{Address: recipientAddress(a)})
	}
}

// readAutoReply reads an RFC 3834 auto-reply: the recipient is the one who
// replied (From), the original sender the one the reply goes to (To).
func (p *parser) readAutoReply() {
	r := p.rep
	r.Kind = KindAutoreply
	r.Format = "rfc3834"
	if a := firstAddress(message.DecodeWords(p.hdr.GetString("From"))); a != "" {
		r.Recipients = append(r.Recipients, Recipient{Address: a})
	}
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(message.DecodeWords(p.hdr.GetString("To")))
	}
}
