package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// Addresses a free-text notice gives to write to, not as failed: the
// closing signature or contact block of a gateway's notice ("-- " or a
// rule, then the department and "postmaster@example.jp"), a line of
// contact wording ("For questions contact helpdesk@example.com",
// "お問い合わせ先: ..."), and the role mailboxes of RFC 2142 of the
// reporting domain standing alone. Issue 8 point 1: report only what the
// notice names as failed. Such an address is set aside only when it has no
// failure text of its own and another address is named as failed: a notice
// that says "<postmaster@example.net>: user unknown" names a recipient,
// whatever its local part.

// maxClosingLines is how many non-empty lines a closing block may have:
// a signature is short (Usenet's four lines, RFC 3676 section 4.3 sets no
// limit; gateways add a department, an address, a telephone number).
const maxClosingLines = 8

// closingStart returns where the closing signature or contact block of a
// notice section (text, lowerText in lower case) starts, len(text) when it
// has none. It is the text after the first signature separator "-- " of
// RFC 3676 section 4.3 (or "--", as clients that strip trailing space
// send it), or after the last bare rule line ("-----", "=====", no words)
// when what follows is a few lines (maxClosingLines), without a reply or
// status code, without failure words, and with some text other than
// addresses (a name, a department): a signature, not a list of recipients
// under a rule.
func closingStart(text, lowerText []byte) int {
	sig, rule := -1, -1
	for i := 0; i < len(text); {
		line, next := ascii.NextLine(text, i)
		t := bytes.TrimRight(line, "\r\n")
		switch {
		case sig < 0 && (string(t) == "-- " || string(t) == "--"):
			sig = next
		case isSeparatorLine(bytes.TrimSpace(t)) && !hasLetter(t):
			rule = next
		}
		i = next
	}
	if sig >= 0 && closingTail(text[sig:], lowerText[sig:], false) {
		return sig
	}
	if rule >= 0 && closingTail(text[rule:], lowerText[rule:], true) {
		return rule
	}
	return len(text)
}

// closingTail says whether the text after a separator is a closing block:
// at most maxClosingLines non-empty lines, no code and no failure words.
// After a bare rule it must also hold a line that is not an address alone.
func closingTail(tail, lowerTail []byte, needWords bool) bool {
	lines, words := 0, false
	var room [256]byte
	lower := room[:0] // each line in lower case, in one array
	for i := 0; i < len(tail); {
		line, next := ascii.NextLine(tail, i)
		i = next
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if lines++; lines > maxClosingLines {
			return false
		}
		lower = ascii.LowerInto(lower, t)
		if a, rest, kind := recipientLine(t, lower); hasLetter(t) && (kind == lineNone || a == "" || len(rest) > 0) {
			words = true // a name, a department, a telephone line: not an address alone
		}
	}
	// Counted first: a long tail is no closing block, and is not searched.
	return lines > 0 && (words || !needWords) && !hasCodeBytes(tail) && !failurePhrases.in(lowerTail)
}

// contactWords are lower-case words that introduce an address to write to
// in the help and signature text of notices: English ("contact", "for
// questions", "postmaster", "helpdesk", "support"), German ("Kontakt", "bei
// Fragen", "Ansprechpartner"), French ("contactez", "contacter", "pour
// toute question"), Spanish and Portuguese ("contacto", "contacte",
// "póngase en contacto", "dúvidas"), Italian ("contattare", "contatto"),
// Dutch ("neem contact op", "vragen"), Japanese ("お問い合わせ",
// "問い合わせ先", "問合せ先", "連絡先", "窓口"), Chinese ("联系", "聯絡") and
// Korean ("문의"): the wordings of Exchange's, Domino's, Postfix's
// bounce_template and Japanese gateways' (HDE, Active! gate, m-FILTER)
// help and contact lines.
var contactWords = [...]string{
	"contact", "question", "postmaster", "helpdesk", "help desk", "support", "write to", "reach us",
	"kontakt", "bei fragen", "ansprechpartner", "wenden sie sich",
	"contactez", "contacter", "pour toute question", "adressez-vous",
	"contacto", "contacte", "póngase en contacto", "consultas", "dúvidas", "contate",
	"contattare", "contatto", "per informazioni", "neem contact op", "vragen",
	"お問い合わせ", "お問合せ", "問い合わせ先", "問合せ先", "連絡先", "窓口", "管理者", "联系", "聯絡", "문의",
}

// contactWordSet finds contactWords in one pass over a text.
var contactWordSet = newPhraseSet(contactWords[:]...)

// contactWording says whether lower-case text (the words before an
// address, or the line above it) holds one of contactWords. The block
// scanner asks it of every line without an address (contactHeading): a
// search per word was a sixth of Parse's instructions (issue 14).
func contactWording(lt []byte) bool {
	return contactWordSet.in(lt)
}

// contactLine says whether a recipient line (lt in lower case, naming
// addr) or the line above it (prev, lower case; adjacent when no empty line
// comes between) introduces addr as an address to write to: contact
// wording before the address on its line, or a label of contact wording
// right above an address that stands alone ("お問い合わせ先:" then
// "<postmaster@example.jp>"). A help sentence that ends a paragraph ("If
// the problem continues, contact your helpdesk.") does not make the next
// paragraph's address a contact: Exchange lists its next failed recipient
// there.
func contactLine(lt, prev []byte, adjacent bool, addr string, rest []byte) bool {
	if k := indexString(lt, ascii.LowerString(addr)); k > 0 && contactWording(lt[:k]) {
		return true
	}
	p := bytes.TrimSpace(prev)
	label := bytes.HasSuffix(p, []byte(":")) || bytes.HasSuffix(p, []byte("\uff1a"))
	return adjacent && label && len(bytes.TrimSpace(rest)) == 0 && contactWording(p) && !hasCodeBytes(p) && !failurePhrases.in(p)
}

// roleMailboxes are the local parts of RFC 2142's mailboxes for network
// operations and services (sections 4 and 5: ABUSE, NOC, SECURITY,
// POSTMASTER, HOSTMASTER, USENET, NEWS, WEBMASTER, WWW, UUCP, FTP) and
// MAILER-DAEMON, the sender of bounces: a notice names them as the
// domain's contacts. The business mailboxes of its section 3 (INFO,
// SALES, SUPPORT...) are left out: they are often real recipients.
var roleMailboxes = [...]string{
	"postmaster", "abuse", "hostmaster", "mailer-daemon", "noc", "security", "webmaster", "www",
	"usenet", "news", "uucp", "ftp",
}

// isRoleMailbox says whether a's local part is one of roleMailboxes.
func isRoleMailbox(a string) bool {
	at := strings.LastIndexByte(a, '@')
	if at <= 0 {
		return false
	}
	for _, r := range roleMailboxes {
		if equalFoldASCII(a[:at], r) {
			return true
		}
	}
	return false
}

// relatedDomain says whether domains a and b are the same or one is under
// the other (mail.example.jp and example.jp).
func relatedDomain(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	a, b = ascii.LowerString(a), ascii.LowerString(b)
	if len(a) < len(b) {
		a, b = b, a
	}
	return a == b || strings.HasSuffix(a, "."+b)
}

// domainOf returns the domain of address a, "" when it has none.
func domainOf(a string) string {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		return a[at+1:]
	}
	return ""
}

// asideBlock says whether a recipient block names an address the notice
// gives to write to rather than as failed (see the top of this file);
// reporting are the domains of the reporter (its From) and of the
// recipients named as failed.
func asideBlock(b *textBlock, reporting []string) bool {
	if b.ownFailure || b.listed || b.address == "" {
		return false
	}
	switch b.kind {
	case lineAddress, lineLabelled, lineSentence:
	default:
		return false // a transcript or a summary line names a failure
	}
	if b.closing || b.contact {
		return true
	}
	if b.ownText || !isRoleMailbox(b.address) {
		return false // a role address with text of its own is named as failed, whatever the text says
	}
	d := domainOf(b.address)
	for _, r := range reporting {
		if relatedDomain(d, r) {
			return true
		}
	}
	return false
}

// setAside drops from blocks those that name an address to write to (see
// asideBlock), when another block names a failed recipient; else it
// returns blocks as they are: when unsure, nothing is dropped. An address
// that contact wording introduces (b.contact: "お問い合わせ先:", a contact
// block under such a heading, contactblock.go) goes even when no other
// block names a failed recipient: the notice gives it to write to, and no
// recipient beats a wrong one (issue 8 point 1).
func (p *parser) setAside(blocks []textBlock) []textBlock {
	if len(blocks) == 0 {
		return blocks
	}
	var room [8]string // the list on the stack
	reporting := append(room[:0], domainOf(firstAddress(decodeWords(p.sc, headerString(p.hdr, "From")))))
	for i := range blocks {
		if b := &blocks[i]; b.address != "" && (b.ownFailure || b.listed) && !isRoleMailbox(b.address) && len(reporting) < len(room) {
			reporting = append(reporting, domainOf(b.address))
		}
	}
	aside, contact, failed := 0, 0, 0
	for i := range blocks {
		switch {
		case asideBlock(&blocks[i], reporting):
			aside++
			if blocks[i].contact {
				contact++
			}
		case blocks[i].address != "":
			failed++
		}
	}
	if aside == 0 || failed == 0 && contact == 0 {
		return blocks
	}
	out := blocks[:0]
	for i := range blocks {
		if b := &blocks[i]; !asideBlock(b, reporting) || failed == 0 && !b.contact {
			out = append(out, *b)
		}
	}
	return out
}
