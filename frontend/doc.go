// Package frontend is the half of a front end that does not depend on the
// protocol that brought the message: ndrmilter's milter (package milter) and
// its SMTP filter (package filter) gather the facts of a message each in
// their own protocol, and both hand them here.
//
// A Reader turns the facts of an inbound message into what to do with it:
// it reads a possible report (package dsn), explains each recipient (package
// rules), judges it against the ledger of sent mail (package backscatter),
// calls decide.Inbound, and counts and logs the outcome. A Recorder writes
// the records of outbound mail to the ledger in the background, bounded and
// retried. Metrics are the Prometheus metrics both front ends export, under
// the same names, so that dashboards do not depend on the front end.
package frontend
