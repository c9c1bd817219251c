package milter

import (
	gomilter "github.com/emersion/go-milter"
)

// What the milter asks Postfix for in the option negotiation (milter
// protocol, SMFIC_OPTNEG), and why: every stage and reply left out is a
// packet, and a round trip, less per message for Postfix.
//
// go-milter v0.5.0 answers the negotiation with protocol version 2. Postfix
// (milter8.c) then keeps, of the protocol options a milter asks for, only
// those protocol 2 has: SMFIP_NOCONNECT, NOHELO, NOMAIL, NORCPT, NOBODY and
// NOHDRS (and SMFIP_NOHREPL, "no_header_reply", which Postfix offers to
// every version). The options of versions 4 and 6 (no end-of-header event,
// no replies to connect, MAIL, RCPT, end of header or body chunks, and
// SMFIR_SKIP) are out of reach: docs/go-milter-protocol-v6.patch is the
// change to go-milter that lifts it.
const (
	// protocolOptions are the stages and replies the milter does without:
	//   - HELO: nothing is read from it;
	//   - the reply to each header field: the fields are only noted, and a
	//     decision (a header too large) waits for the end of the header,
	//     where the reply is the message's.
	// Connect stays (a local socket makes mail outbound), and so do MAIL,
	// RCPT, the header and the body: X-NDR-* fields are removed from every
	// message, and bounces and outbound mail are read whole. A message that
	// needs nothing more at the end of its header is accepted there
	// (session.Headers), so that Postfix sends it no body.
	protocolOptions = gomilter.OptNoHelo | gomilter.OptNoHeaderReply

	// baseActions are the changes the milter makes: add X-NDR-* fields,
	// change or delete forged ones, replace a bounce's body (body
	// summary), quarantine backscatter; and it asks for its macros itself.
	baseActions = gomilter.OptAddHeader | gomilter.OptChangeHeader | gomilter.OptChangeBody |
		gomilter.OptQuarantine | gomilter.OptSetSymList
)

// actions are the changes the milter asks Postfix to allow on a new
// connection: baseActions and those Config.Actions adds (BATV's change of
// the envelope sender and of recipients, when enabled).
func (c *Config) actions() gomilter.OptAction {
	return baseActions | c.Actions
}
