// Package filter is ndrmilter's SMTP filter: an SMTP proxy, on
// github.com/emersion/go-smtp on both sides, that an MTA without milters
// (Exim, OpenSMTPD) or a Postfix content filter (content_filter after the
// queue, smtpd_proxy_filter before it) puts between itself and a
// reinjection listener. It does what the milter does, with the same code
// (packages decide and frontend): X-NDR-* fields from outside removed,
// bounces read, explained and judged, outbound mail recorded in the ledger.
//
// # Relaying
//
// Each transaction is relayed to the next hop as it happens: MAIL (with
// SIZE, SMTPUTF8 and DSN parameters, and the client's XFORWARD attributes
// when the next hop offers XFORWARD), each RCPT answered with the next
// hop's own reply, and at the end of DATA the annotated message goes on and
// the client gets the next hop's reply to it, "250 ... queued as" included.
// The filter keeps no queue and never accepts a message the next hop has
// not taken (except one it discards as backscatter, as configured): when
// the next hop is down, slow or goes away, the client gets a 4xx and keeps
// the message. Its reply to EHLO carries the next hop's SIZE limit.
//
// The replies to a group of commands the client pipelined (RFC 2920:
// Postfix sends XFORWARD, MAIL, RCPT and DATA in one write) leave in one
// write, and the message data goes to the next hop in writes of up to 64
// kB: per message, no more system calls than a plain go-smtp proxy makes
// (BenchmarkRelay measures both).
//
// # Streaming
//
// Only the header section is held (at most 1 MiB), and for a possible
// bounce the body up to the parse cap (2 MiB by default); the rest of a
// message streams from the client to the next hop. The decision is made on
// what is held, applied to it (fields deleted and changed in place, added
// at the end of the header), and then the rest follows.
//
// # Direction
//
// A message is outbound when the original client is in a trusted network
// (XFORWARD ADDR from a trusted client, else the connecting address), was
// local to the upstream MTA (XFORWARD SOURCE=LOCAL without an address), or
// when the filter is told so (DirectionOutbound); a bounce from such a
// client to our own users only is read like an inbound one (decide.Route).
//
// # XFORWARD
//
// go-smtp v0.25's server has no XFORWARD (nor a way to add a command), so
// the filter's connection wrapper answers it at command boundaries and
// announces it in the reply to EHLO, to trusted clients only; to the next
// hop it is sent between two commands of go-smtp's client. See conn.go.
package filter
