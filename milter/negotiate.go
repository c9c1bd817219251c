package milter

import (
	"bufio"
	"encoding/binary"

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
// SMFIR_SKIP as an option) are out of reach: docs/go-milter-protocol-v6.patch
// is the change to go-milter that lifts it. Postfix 3.7 takes SMFIR_SKIP
// from a protocol 2 milter all the same (measured: scripts/bench-postfix,
// one body chunk of four sent): the milter skips the rest of a body it does
// not read when the MTA offered SMFIP_SKIP (skipBody).
const (
	// protocolOptions are the stages and replies the milter does without,
	// those of them the MTA offers (protocolFor):
	//   - HELO: nothing is read from it (protocol 2 has it: always asked);
	//   - the reply to each header field: the fields are only noted, and a
	//     decision (a header too large) waits for the end of the header,
	//     where the reply is the message's. Asked only when the MTA offers
	//     it (Postfix does, unless milter_protocol is set to 2, 3 or 4
	//     without "no_header_reply"): an MTA that did not would wait for
	//     each reply.
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

// protocolFor returns the protocol options to ask an MTA for that offered
// offer: protocolOptions, the reply to header fields left out only when
// offered.
func protocolFor(offer gomilter.OptProtocol) gomilter.OptProtocol {
	p := protocolOptions
	if offer&gomilter.OptNoHeaderReply == 0 {
		p &^= gomilter.OptNoHeaderReply
	}
	return p
}

// optNegSize is the size of the MTA's option negotiation packet: length,
// command 'O', then version, actions and protocol options, 32 bits each.
const optNegSize = 4 + 1 + 3*4

// readOffer returns the protocol options the MTA offers in its option
// negotiation, the first packet of a connection, without consuming it; 0
// when the first packet is not one. go-milter reads the packet afterwards
// and answers it without keeping what the MTA offered.
func readOffer(r *bufio.Reader) gomilter.OptProtocol {
	b, err := r.Peek(optNegSize)
	if err != nil || binary.BigEndian.Uint32(b) != optNegSize-4 || b[4] != byte(gomilter.CodeOptNeg) {
		return 0
	}
	return gomilter.OptProtocol(binary.BigEndian.Uint32(b[13:]))
}

// skipBody is the reply to a body chunk that asks the MTA for no more
// chunks of this message (SMFIR_SKIP), the end of message still to come.
// go-milter's own SimpleResponse for it would end the session (it only
// takes "continue" as going on), and the message's state with it.
type skipBody struct{}

func (skipBody) Response() *gomilter.Message { return &gomilter.Message{Code: byte(gomilter.ActSkip)} }
func (skipBody) Continue() bool              { return true }
