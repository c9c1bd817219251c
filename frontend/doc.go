// Package frontend is the half of a front end that does not depend on the
// protocol that brought the message: ndrmilter's milter (package milter) and
// its SMTP filter (package filter) gather the facts of a message each in
// their own protocol, and both hand them here.
//
// A Reader turns the facts of an inbound message into what to do with it:
// it reads a possible report (package dsn), explains each recipient (package
// rules), judges it against the ledger of sent mail (package backscatter),
// calls decide.Inbound, and counts and logs the outcome. A Recorder writes
// the records of outbound mail to the ledger, and makes each durable before
// the message is acknowledged: in the ledger, or in a local spool that is
// written to the ledger once it answers again. Metrics are the Prometheus
// metrics both front ends export, under the same names, so that dashboards
// do not depend on the front end.
//
// What keeps a front end up under load and hostile input is here too, so
// that both behave the same: a Gate admits connections (an allow-list of
// client networks, a cap on connections open at once, accept errors retried
// with backoff), a Budget bounds the message bytes all sessions hold and the
// reports read at once, and Privacy says how log lines show addresses.
package frontend
