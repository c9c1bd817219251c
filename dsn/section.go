package dsn

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// The report section of a free-text bounce: where the copy of the original
// message starts, and what counts as a separator.

// fieldLineIndex returns the index in lowerText of the first line that starts
// with name (a lower-case "field:"), or -1.
func fieldLineIndex(lowerText []byte, name string) int {
	n := []byte(name)
	for i := 0; i < len(lowerText); {
		k := bytes.Index(lowerText[i:], n)
		if k < 0 {
			return -1
		}
		k += i
		if k == 0 || lowerText[k-1] == '\n' {
			return k
		}
		i = k + len(n)
	}
	return -1
}

// cutOriginal returns where the copy of the original message starts in the
// text: at the first known separator line, or at the first block of two or
// more header fields. len(text) when there is none.
func cutOriginal(text []byte, seps []int) int {
	cut := len(text)
	if len(seps) > 0 {
		cut = seps[0]
	}
	if k := headerBlockStart(text[:cut]); k >= 0 && k < cut {
		cut = k
	}
	return cut
}

// copiedFields are the fields that start a copied header block.
var copiedFields = []string{
	"return-path", "received", "message-id", "date", "from", "to", "subject", "mime-version",
	"content-type", "dkim-signature", "delivered-to", "reply-to", "x-mailer", "authentication-results",
	"x-originating-ip", "x-received", "arc-seal", "envelope-to", "sender",
}

// headerBlockStart finds a line that starts a copied header: a field from
// copiedFields followed by at least two more fields or continuation lines
// (a summary of two lines, "Subject: x" and "Date: y", is not a copy).
// -1 when there is none.
func headerBlockStart(text []byte) int {
	for i := 0; i < len(text); {
		line, next := ascii.NextLine(text, i)
		if isCopiedField(line) && next < len(text) {
			// Read the block: at least three lines, and one field that a
			// summary of the message ("To:", "Subject:", "Date:") would
			// not have.
			n, strong, j := 1, !isSummaryField(line), next
			for n < maxBlockProbe && j < len(text) {
				nl, nn := ascii.NextLine(text, j)
				if len(nl) == 0 || !(nl[0] == ' ' || nl[0] == '\t' || isHeaderLine(nl)) {
					break
				}
				if isNoticeLabelLine(nl) {
					// "Policy:", "Reason:", "Remote server response:":
					// a labelled notice quotes the message's Subject
					// among its own lines, and is no copy (noticelabels.go).
					strong, n = false, 0
					break
				}
				if nl[0] != ' ' && nl[0] != '\t' && !isSummaryField(nl) {
					strong = true
				}
				n++
				j = nn
			}
			if n >= 3 && strong {
				return i
			}
		}
		i = next
	}
	return -1
}

// maxBlockProbe is how many lines of a candidate header block are read.
const maxBlockProbe = 12

// isSummaryField says whether a header line is one that reports quote to
// describe the message (To, Cc, From, Date, Subject, Sent), as opposed to
// a field only a copy of the header has (Received, Message-ID...).
func isSummaryField(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false
	}
	name := bytes.TrimSpace(line[:colon])
	for _, f := range [...]string{"to", "cc", "from", "date", "subject", "sent"} {
		if ascii.EqualFold(name, f) {
			return true
		}
	}
	return false
}

// isCopiedField says whether line is a field of copiedFields.
func isCopiedField(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 || colon > 30 {
		return false
	}
	name := line[:colon]
	for _, f := range copiedFields {
		if ascii.EqualFold(name, f) {
			return true
		}
	}
	return false
}

// isHeaderLine says whether line looks like a header field: a field name
// without spaces, a colon and a value.
func isHeaderLine(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	return colon > 0 && colon < 60 && message.IsFieldName(line[:colon]) && colon+1 < len(line) && line[colon+1] == ' '
}

// sectionSummary is the text of a report section made one line, cut to
// maxBlockText: the diagnostic when the recipient has no block of its own.
//
// Lines that are fields of a copied header ("X-Mailman-Version: 2.1.12",
// "Received: ...") are left out: their numbers are no status, and the
// copy of the original is no explanation.
func sectionSummary(sc *scratch, section []byte) string {
	// Gathered in the scratch: the lines up to maxBlockText, and the
	// last one whole (an append beyond the room moves b out).
	b := sc.start(min(len(section), 2*maxBlockText))
	for i := 0; i < len(section) && len(b) < maxBlockText; {
		line, next := ascii.NextLine(section, i)
		i = next
		if copiedHeaderLine(line) {
			continue
		}
		b = appendLine(b, line)
	}
	return capDiagnostic(collapseSpace(sc, sc.finish(b)))
}

// copiedHeaderLine says whether a line of a notice is a field of a copied
// header: a field of copiedFields, or an extension field ("X-...",
// "List-...").
func copiedHeaderLine(line []byte) bool {
	if !isHeaderLine(line) {
		return false
	}
	if isCopiedField(line) {
		return true
	}
	return len(line) > 2 && (line[0] == 'X' || line[0] == 'x') && line[1] == '-' || ascii.HasPrefixFold(string(line[:min(len(line), 5)]), "list-")
}

// sentenceWords are lower-case words after which a bounce's sentence names
// its recipient on the same line, surest first.
var sentenceWords = [...]string{"delivering your mail to", "delivered to", "deliver to", "delivery to", "recipient", "message to", "mail to", "address"}

// maxSentenceGap is how far after one of sentenceWords the recipient's
// address may come.
const maxSentenceGap = 60

// maxSentenceTries is how many places of each of sentenceWords
// sentenceRecipient tries.
const maxSentenceTries = 16

// maxAddressLen is the longest address read in a sentence (RFC 5321
// section 4.5.3.1: 64 octets of local part, 255 of domain).
const maxAddressLen = 320

// sentenceRecipient finds a recipient named in a sentence: an address soon
// after one of sentenceWords, on the same line. An address that the words
// before it make a sender ("not accepting mail from x"), a contact or an
// example ("for help write to x", "for example x"), or that is the
// sender's (senderAddresses), is none. "" when there is none.
func (p *parser) sentenceRecipient(section, lowerSection []byte) string {
	for _, w := range sentenceWords {
		for from, n := 0, 0; from < len(lowerSection) && n < maxSentenceTries; n++ {
			k := indexString(lowerSection[from:], w)
			if k < 0 {
				break
			}
			k += from
			from = k + len(w)
			line, _ := ascii.NextLine(section, from)
			// The address comes soon after the word: the line is read
			// that far, not to its end (hostile text has long lines).
			line = line[:min(len(line), maxSentenceGap+maxAddressLen)]
			a, _ := findAddress(view(line), 0)
			if a == "" {
				continue
			}
			at := bytes.Index(line, []byte(a))
			if at < 0 || at > maxSentenceGap {
				continue
			}
			before := ascii.LowerString(string(lowerSection[max(k-maxSentenceGap, 0):from]) + string(line[:at]))
			if senderContext(before) || helpContext(before) || p.isSender(a) {
				continue
			}
			return a
		}
	}
	return ""
}

// helpWords are lower-case words of a notice's help text: an address after
// them is a contact or an example, not the failed recipient.
var helpWords = [...]string{"example", "contact", "help", "postmaster", "write to", "questions", "support", "administrator", "e.g."}

// helpContext says whether the lower-case text before an address makes it
// a contact or an example.
func helpContext(before string) bool {
	return helpSet.inString(before)
}

// helpSet finds helpWords in one pass.
var helpSet = newPhraseSet(helpWords[:]...)

// failurePhrases are lower-case phrases by which a notice states that a
// message was not delivered: enough, with a bounce's sender and subject,
// to report a failure whose recipient the notice does not name.
var failurePhrases = newPhraseList([]string{
	"could not be delivered", "couldn't be delivered", "cannot be delivered", "can not be delivered",
	"was not delivered", "wasn't delivered",
	"has not been delivered", "undeliverable", "unable to deliver", "could not deliver", "not able to deliver",
	"delivery has failed", "delivery failed", "delivery to the following", "failed permanently",
	"permanent error", "permanent failure", "fatal error", "was rejected", "has been rejected",
	"mailbox is full", "mailbox full", "user unknown", "no such user", "does not exist",
	"not be delivered", "has not yet been delivered", "delivery is delayed", "has been delayed",
	"unknown user", "unknown recipient", "invalid recipient", "invalid address", "recipient rejected",
	"address rejected", "not delivered", "delivery problem", "non-delivery", "nondelivery",
	"failed to deliver", "delivery failure", "mailbox unavailable", "quota exceeded", "over quota",
	"nicht zugestellt", "unzustellbar", "pas pu être remis", "non remis", "no se pudo entregar",
	"no pudo ser entregado", "non è stato possibile consegnare", "não foi possível entregar",
	"não pôde ser entregue", "niet worden afgeleverd", "onbestelbaar",
})

// failureStated says whether a notice (see noticeWords) states a delivery
// failure (or delay) in one of failurePhrases.
func failureStated(words []byte) bool {
	return failurePhrases.in(words) || failureStatedJa(words)
}

// noticeWords returns the notice (the text before the copy of the
// original message) in lower case: the phrase lists of failureStated,
// retryState, challengeText and vacationText are searched in it.
func (p *parser) noticeWords() []byte {
	return p.lowerText[:p.cut()]
}

// isSeparatorLine says whether a trimmed line is a separator: it starts
// with a run of three or more dashes, equal signs, stars or underscores.
func isSeparatorLine(t []byte) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '=' && c != '*' && c != '_' {
		return false
	}
	return t[1] == c && t[2] == c
}

// isLabelledSeparator says whether a separator line carries a heading that
// is not the start of the original message.
func isLabelledSeparator(lline []byte) bool {
	words := false
	for _, c := range lline {
		if ascii.IsAlpha(c) || c >= 0x80 {
			words = true
			break
		}
	}
	if !words {
		return false
	}
	return !copyHeadingSet.in(lline)
}

// copyHeadingSet holds the words of a separator that heads the copy of
// the original message, not a heading inside the report.
var copyHeadingSet = newPhraseSet("original", "returned message", "copy", "header", "unsent", "message follows", "below this line", "attached",
	"begin message", "message text", "returned mail", "end of message", "mail follows", "message reads")
