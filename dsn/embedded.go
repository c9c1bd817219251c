package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// maxEmbedDepth caps how deep readEmbedded looks for a report inside a
// report (a forwarded bounce, a bounce about a bounce).
const maxEmbedDepth = 2

// readEmbedded looks for a bounce inside the message: a forwarded bounce
// ("Begin forwarded message:", quoted with "> "), a bounce copied as the
// "original message" of another, or one attached as message/rfc822. It
// says whether one was found; the report then takes its recipients.
func (p *parser) readEmbedded() bool {
	if p.embedDepth >= maxEmbedDepth {
		return false
	}
	var candidates [][]byte
	// Forwarded text, unquoted; only when the header reads like a bounce
	// ("Fwd: Returned mail") or a forward ("FW: can't reach Brennan's"),
	// so that ordinary mail costs no text search.
	sender, subject := p.headerEvidence()
	if sender || subject || forwardSubject(headerString(p.hdr, "Subject")) {
		p.loadText()
	}
	for _, m := range [...]string{"begin forwarded message", "forwarded message", "original message", "\nfrom mailer-daemon", "message/rfc822"} {
		if !p.textDone {
			break
		}
		k := indexString(p.lowerText, m)
		if k < 0 {
			continue
		}
		_, next := ascii.NextLine(p.text, k+1)
		candidates = append(candidates, unquote(p.text[next:]))
	}
	inline := len(candidates)
	if p.textDone {
		// Outlook's and Thunderbird's inline forwards, which head the
		// forwarded notice with its header fields alone (see
		// forwardedHeaderBlocks).
		candidates = append(candidates, forwardedHeaderBlocks(p.text, p.lowerText)...)
	}
	blocks := len(candidates)
	for i := range p.parts {
		if p.parts[i].MediaType == "message/rfc822" {
			candidates = append(candidates, p.parts[i].Body)
		}
	}
	for k, c := range candidates {
		c = trimLeadingBlank(c)
		if bytes.HasPrefix(c, []byte("From ")) {
			_, n := ascii.NextLine(c, 0)
			c = c[n:]
		}
		sub := &parser{rep: &Report{Kind: KindNone}, embedDepth: p.embedDepth + 1, textCut: -1, ev: -1, sc: p.sc}
		m := message.Read(c)
		if len(m.Header) < 2 {
			continue
		}
		if k >= inline && k < blocks && !daemonFrom(m.Header) && !headerContainsAny(m.Header, "Subject", bounceSubjectSet) {
			// A quoted header block of a person's message (a reply
			// thread, the bounced message's own header): only a
			// block that is clearly a notice's is read.
			continue
		}
		sub.hdr, sub.parts = m.Header, m.Parts
		sub.read()
		if sub.rep.Kind != KindBounce && sub.rep.Kind != KindDelay || len(sub.rep.Recipients) == 0 {
			continue
		}
		orig := p.rep.Original
		*p.rep = *sub.rep
		if p.rep.Original.MessageID == "" {
			p.rep.Original = orig
		}
		p.rep.Format = "embedded-" + sub.rep.Format
		return true
	}
	return false
}

// unquote removes the "> " marks of a quoted text.
func unquote(b []byte) []byte {
	if !bytes.Contains(b, []byte("\n>")) && !bytes.HasPrefix(b, []byte(">")) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		line, next := ascii.NextLine(b, i)
		i = next
		if len(line) > 0 && line[0] == '>' {
			line = line[1:]
			if len(line) > 0 && line[0] == ' ' {
				line = line[1:]
			}
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

// forwardSubjectPrefixes are the lower-case subject prefixes of a
// forwarded message: "Fwd:" (Gmail, Thunderbird, Apple Mail), "FW:"
// (Outlook), and Outlook's in other languages ("WG:" de, "TR:" fr, "RV:"
// es, "VS:" da/nb/sv/fi, "Doorst:" nl, "I:" it, "ENC:" pt).
var forwardSubjectPrefixes = [...]string{"fwd:", "fw:", "wg:", "tr:", "rv:", "vs:", "doorst:", "i:", "enc:"}

// forwardSubject says whether a Subject starts with a forward's prefix.
func forwardSubject(subject string) bool {
	subject = strings.TrimSpace(subject)
	for _, p := range forwardSubjectPrefixes {
		if len(subject) >= len(p) && strings.EqualFold(subject[:len(p)], p) {
			return true
		}
	}
	return false
}

// forwardLabels are the lower-case labels of the header block that heads
// an inline forward: Outlook's "From: / Sent: / To: / Cc: / Subject:"
// (under a line of underscores or "-----Original Message-----"),
// Thunderbird's "Subject: / Date: / From: / To:", Gmail's "From: / Date: /
// Subject: / To:".
var forwardLabels = [...]string{"from:", "sent:", "date:", "to:", "cc:", "subject:", "reply-to:", "importance:"}

// maxForwardBlocks bounds how many header blocks forwardedHeaderBlocks
// returns; maxForwardLabels how many lines a block has at most.
const (
	maxForwardBlocks = 4
	maxForwardLabels = 8
)

// forwardedHeaderBlocks returns the text from each header block of an
// inline forward on (text, and lower, its lower-case copy): a run of two
// to maxForwardLabels lines at the start of a line, each one of
// forwardLabels, holding both a From and a Subject. Whether the block is a
// notice's is for the caller to judge from its fields.
func forwardedHeaderBlocks(text, lower []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(lower) && len(out) < maxForwardBlocks; {
		start := i
		from, subject, n := false, false, 0
		j := i
		for j < len(lower) && n < maxForwardLabels {
			line, next := ascii.NextLine(lower, j)
			label := forwardLabel(line)
			if label == "" {
				break
			}
			from = from || label == "from:"
			subject = subject || label == "subject:"
			n++
			j = next
		}
		if n >= 2 && from && subject {
			out = append(out, text[start:])
			i = j
			continue
		}
		_, next := ascii.NextLine(lower, i)
		if next <= i {
			break
		}
		i = next
	}
	return out
}

// forwardLabel returns which of forwardLabels a lower-case line starts
// with, "" when none.
func forwardLabel(line []byte) string {
	for _, l := range forwardLabels {
		if bytes.HasPrefix(line, []byte(l)) {
			return l
		}
	}
	return ""
}
