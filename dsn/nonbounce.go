package dsn

// Reports that are not bounces: RFC 5965 feedback reports, RFC 8098 read
// receipts and RFC 3834 auto-replies.

// readFeedback reads an RFC 5965 feedback report: one recipient record per
// Original-Rcpt-To, else per address of the original's To.
func (p *parser) readFeedback(i int) {
	r := p.rep
	r.Kind = KindFeedback
	r.Format = "arf"
	body, _ := decodePart(&p.parts[i], MaxDecodedPart)
	h, _, _ := parseHeader(body)
	r.FeedbackType = lowerString(h.getString("Feedback-Type"))
	if v := h.getString("Reporting-MTA"); v != "" {
		_, r.ReportingMTA = stripType(v)
	}
	if v := h.getString("Original-Mail-From"); v != "" && r.Original.Sender == "" {
		r.Original.Sender = cleanAddress(v)
	}
	var addrs []string
	for k := range h {
		if equalFoldString(h[k].name, "Original-Rcpt-To") || equalFoldString(h[k].name, "Removal-Recipient") {
			if a := cleanAddress(string(h[k].value())); a != "" {
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
	body, _ := decodePart(&p.parts[i], MaxDecodedPart)
	h, _, _ := parseHeader(body)
	if v := h.getString("Reporting-UA"); v != "" {
		// "host; product" (RFC 8098 section 3.2.1).
		r.ReportingMTA = cleanHost(v)
	}
	a := h.getString("Final-Recipient")
	if a == "" {
		a = h.getString("Original-Recipient")
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
	if a := firstAddress(decodeWords(p.hdr.getString("From"))); a != "" {
		r.Recipients = append(r.Recipients, Recipient{Address: a})
	}
	if r.Original.Sender == "" {
		r.Original.Sender = firstAddress(decodeWords(p.hdr.getString("To")))
	}
}
