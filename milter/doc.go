// Package milter is ndrmilter's Postfix session: it records the mail that
// leaves the domain in a ledger, reads every inbound bounce in flight, adds
// X-NDR-* headers that explain it, and judges whether the bounce is
// backscatter (a bounce for a message that never left here), tagging,
// quarantining, rejecting or discarding it as configured.
//
// It speaks the milter protocol through github.com/emersion/go-milter and
// fails open: an internal error or panic lets the message through unchanged,
// logged and counted.
//
// # Outbound and inbound
//
// A message is outbound when the client authenticated (macro {auth_authen}),
// connected from a trusted network, or over a local socket. Outbound mail is
// recorded in the ledger (acknowledged once its record is durable, see
// frontend.Recorder) and never changed, but for the X-NDR-* fields of one to
// our own users, which are deleted (decide.Outbound). One exception: a bounce (null or
// MAILER-DAEMON/postmaster sender) from a trusted or local client whose
// recipients are all in our domains, such as Postfix's own bounces to local
// users, is read and explained like an inbound one. Everything else is
// inbound.
//
// # What it does to inbound mail
//
// The callbacks gather the facts of a message (envelope, the X-NDR-* fields
// that came with it, and, for a possible bounce, up to Config.ParseCap bytes
// of it), and at end of message the session reads a possible bounce
// (dsn.Parse), explains each recipient (rules), judges it against the ledger
// (backscatter.Judge), and applies what decide.Inbound decides: every
// incoming X-NDR-* header deleted, X-NDR-Backscatter, X-NDR-Owner,
// X-NDR-Status and X-NDR-Explanation added on a bounce or delay report, and
// backscatter tagged, quarantined, rejected or discarded. Package decide
// documents the header formats, package backscatter the evidence.
//
// # Limits
//
// Connections are admitted by a frontend.Gate (Config.ListenAllow,
// Config.MaxConnections; accept errors retried) and closed when idle. What
// the sessions hold in memory is bounded by a frontend.Budget
// (Config.BufferBudget): past it a message passes unread. A message whose
// header is over frontend.MaxHeaderBytes, or with more X-NDR-* fields than
// the milter deletes (1000), gets a temporary failure: a forged field is
// never delivered. A new body (Config.BodySummary) goes to the MTA in
// packets of at most 64 KiB.
package milter
