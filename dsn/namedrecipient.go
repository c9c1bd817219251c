package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/message"
)

// Which address a free-text report names as its failed recipient, and
// which addresses it never does. A wrong address is worse than none: the
// sender is told the wrong mailbox failed, and backscatter matching pairs
// the report with the wrong message. So the free-text reading takes an
// address from what the notice says failed, and nowhere else: not from the
// bounce's own To or From, not from the original's sender, not from the
// original's To when that is a list or several people.

// originalHeader returns the header of the original message as the report
// returns it (a part of its own, or a copy inline in the text), nil when
// it returns none.
func (p *parser) originalHeader() message.Header {
	if !p.origDone {
		p.origDone = true
		if p.origHdr == nil {
			p.loadText()
			p.origHdr = inlineOriginal(p.arena, p.text, p.separators())
		}
	}
	return p.origHdr
}

// originalRecipients returns the addresses the original message was sent
// to, as its returned header shows them: To, Cc, the envelope's
// Delivered-To, X-Original-To and Envelope-To, and the "for" clauses of
// its Received fields. Only to complete a local part, never as a recipient
// of its own.
func originalRecipients(h message.Header) []string {
	var out []string
	for i := range h {
		f := &h[i]
		switch {
		case ascii.EqualFold(f.Name, "To"), ascii.EqualFold(f.Name, "Cc"), ascii.EqualFold(f.Name, "Delivered-To"),
			ascii.EqualFold(f.Name, "X-Original-To"), ascii.EqualFold(f.Name, "Envelope-To"):
			out = appendAddressList(out, view(f.Value()))
		case ascii.EqualFold(f.Name, "Received"):
			if a := receivedFor(string(f.Value())); a != "" {
				out = append(out, a)
			}
		}
		if len(out) >= MaxRecipients {
			break
		}
	}
	return out
}

// receivedFor returns the address of a Received field's "for" clause (RFC
// 5321 section 4.4), "" when it has none.
func receivedFor(v string) string {
	l := ascii.LowerString(v)
	k := strings.Index(l, " for ")
	if k < 0 {
		return ""
	}
	a, _ := findAddress(v[k+5:min(len(v), k+5+maxForClause)], 0)
	return a
}

// maxForClause is how far after "for" a Received field's address may come.
const maxForClause = 330

// completeLocal makes an address of a local part alone that a report names
// ("550 5.1.1 jsmith... User unknown", AOL's screen names), "" when its
// domain is not certain: the one address with that local part the returned
// message was sent to; without a returned message, the domain whose own
// mail system wrote the report (see reportingDomain). When the returned
// message was sent to two addresses with that local part, or to none, no
// address is named.
func (p *parser) completeLocal(local string) string {
	if !isLocalPart(local) {
		return ""
	}
	if h := p.originalHeader(); len(h) > 0 {
		if p.origRcpts == nil {
			p.origRcpts = append(originalRecipients(h), "") // never nil again: computed once
		}
		found := ""
		for _, a := range p.origRcpts {
			at := strings.LastIndexByte(a, '@')
			if at <= 0 || !equalFoldASCII(a[:at], local) {
				continue
			}
			if found != "" && !equalFoldASCII(found, a) {
				return "" // two domains: either may be the one
			}
			found = a
		}
		return found
	}
	if d := reportingDomain(p.hdr); d != "" {
		return local + "@" + d
	}
	return ""
}

// reportingDomain returns the domain whose own mail system wrote the
// report, "" when that is not certain: the domain of a mailer-daemon From
// that is a registered domain itself (aol.com, not mail.example.com, where
// the local part may belong to example.com or to the host), with the
// report's Message-ID written under it.
func reportingDomain(h message.Header) string {
	if sender, _ := headerEvidence(h); !sender {
		return ""
	}
	from := firstAddress(message.DecodeWords(headerString(h, "From")))
	at := strings.LastIndexByte(from, '@')
	if at <= 0 {
		return ""
	}
	d := ascii.LowerString(from[at+1:])
	if !registeredDomain(d) {
		return ""
	}
	id := ascii.LowerString(messageID(headerString(h, "Message-ID")))
	k := strings.LastIndexByte(id, '@')
	if k < 0 || !inDomain(id[k+1:], d) {
		return ""
	}
	return d
}

// inDomain says whether host is domain d or a name under it.
func inDomain(host, d string) bool {
	return host == d || strings.HasSuffix(host, "."+d)
}

// secondLevels are the labels under which country-code domains register
// names (example.co.uk, example.ne.jp, example.com.br).
var secondLevels = [...]string{"co", "com", "net", "org", "ac", "gov", "edu", "ne", "or", "go", "gr", "ad", "ed", "lg", "gob", "mil", "nom"}

// registeredDomain says whether d is a domain as registered (example.com,
// example.co.uk), not a host name under one: two labels, or three with a
// known second level under a two-letter top level. Without the Public
// Suffix List this says no to some registered domains, never yes to a
// host name with two labels above its domain.
func registeredDomain(d string) bool {
	labels := strings.Split(d, ".")
	for _, l := range labels {
		if l == "" {
			return false
		}
	}
	switch len(labels) {
	case 2:
		return true
	case 3:
		if len(labels[2]) != 2 {
			return false
		}
		for _, s := range secondLevels {
			if labels[1] == s {
				return true
			}
		}
	}
	return false
}

// senderAddresses returns the addresses that are the sender's side of a
// report, never its failed recipient when only a sentence of the text
// names them: the bounce's own To, From, Reply-To, Sender and Return-Path
// (a bounce goes to the original sender), and the original message's From,
// Sender and Return-Path.
func (p *parser) senderAddresses() []string {
	if p.senders != nil {
		return p.senders
	}
	p.senders = p.sc.strings(8) // non-nil: computed; views, valid during the Parse
	add := func(h message.Header, names ...string) {
		for _, n := range names {
			if len(p.senders) < maxSenders {
				p.senders = appendAddressList(p.senders, decodeWords(p.sc, headerString(h, n)))
			}
		}
		p.senders = p.senders[:min(len(p.senders), maxSenders)]
	}
	add(p.hdr, "To", "From", "Reply-To", "Sender", "Return-Path")
	add(p.originalHeader(), "From", "Sender", "Return-Path")
	if o := p.rep.Original.Sender; o != "" {
		p.senders = append(p.senders, o)
	}
	return p.senders
}

// maxSenders caps senderAddresses: a sender is one address, a hostile
// header may list thousands.
const maxSenders = 32

// isSender says whether a is one of senderAddresses.
func (p *parser) isSender(a string) bool {
	for _, s := range p.senderAddresses() {
		if equalFoldASCII(s, a) {
			return true
		}
	}
	return false
}

// listAddressFields are the header fields in which list managers name the
// list's own address (RFC 2369 List-Post, Mailman's X-BeenThere, ezmlm's
// Mailing-List and Delivered-To "mailing list x", LISTSERV's Sender).
var listAddressFields = [...]string{"List-Post", "X-BeenThere", "Mailing-List", "X-Mailing-List", "Delivered-To", "Sender", "X-ML-Name"}

// isListAddress says whether a is the address of the mailing list that
// sent a message with header h: one of listAddressFields names it, or the
// message is marked Precedence: list. A newsletter, sent to each reader
// with the reader in To (and List-Unsubscribe, Precedence: bulk), is no
// list mail here.
func isListAddress(h message.Header, a string) bool {
	if ascii.LowerString(headerString(h, "Precedence")) == "list" {
		return true
	}
	for i := range h {
		for _, n := range listAddressFields {
			if !ascii.EqualFold(h[i].Name, n) {
				continue
			}
			for _, l := range addressList(view(h[i].Value())) {
				if equalFoldASCII(l, a) {
					return true
				}
			}
		}
	}
	return false
}

// soleOriginalRecipient returns the one address the returned message was
// sent to, when the notice names none: its To and Cc hold exactly one
// address, which is not a mailing list's own (the To of list mail is the
// list) nor the sender's. "" otherwise.
func (p *parser) soleOriginalRecipient() string {
	h := p.originalHeader()
	if len(h) == 0 {
		return ""
	}
	var room [4]string
	all := room[:0]
	for _, n := range [...]string{"To", "Cc"} {
		all = appendAddressList(all, decodeWords(p.sc, headerString(h, n)))
	}
	if len(all) != 1 || !plausibleAddress(all[0]) || p.isSender(all[0]) || isListAddress(h, all[0]) {
		return ""
	}
	return all[0]
}
