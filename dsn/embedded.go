package dsn

import (
	"bytes"

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
	// ("Fwd: Returned mail"), so that ordinary mail costs no text search.
	sender, subject := p.headerEvidence()
	if sender || subject {
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
	for i := range p.parts {
		if p.parts[i].MediaType == "message/rfc822" {
			candidates = append(candidates, p.parts[i].Body)
		}
	}
	for _, c := range candidates {
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
