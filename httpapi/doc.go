// Package httpapi is ndrmilter's HTTP listener: the JSON API that explains a
// bounce or a code and reads and fills the ledger of sent mail, the helpdesk
// page (package helpdesk) at /, and /metrics and /healthz. Both front ends
// (serve and filter) mount it on their loopback HTTP listener.
//
// The API, described in docs/openapi.yaml:
//
//	POST /api/v1/explain          a raw message in the body (at most the parse cap; above: 413):
//	                              the records of "explain --json", each with the backscatter verdict
//	GET  /api/v1/code?q=5.7.509   the object of "code --json"; q may be a reply line
//	GET  /api/v1/ledger/{id}      the ledger's record of a Message-ID or queue id, or 404
//	GET  /api/v1/ledger/stats     the ledger's statistics, as "ledger stats --json"
//	POST /api/v1/ledger/import    a Postfix log in the body, imported as "ledger import" imports a file
//	                              (package postfixlog), within Settings.ImportMaxBytes and ImportTimeout
//
// The records are built by package explanation, as the command line builds
// them, so that the two cannot drift. A "lang" query parameter or the
// Accept-Language header chooses the language (package catalog); the answer
// says which in Content-Language. Errors are JSON, {"error": "..."}, with a
// status that says what went wrong: 400 (a bad request), 401 (credentials
// needed), 404, 405 (with Allow), 408 (an import past its time limit), 413 (a
// body over the cap), 415 (a body of the wrong kind), 503 (the ledger cannot
// be read, or there is none).
//
// The listener is on loopback by default. Put elsewhere, it takes basic
// authentication (users with bcrypt hashes, as htpasswd -B writes them) and
// TLS (a certificate and key file). Every answer carries a
// Content-Security-Policy that forbids loading anything from elsewhere, and
// unsafe requests from other origins are refused (http.CrossOriginProtection),
// so that a web page the admin visits cannot post to the API.
//
// A service that holds the embedded (bbolt) ledger leaves the address of its
// API, and a token that stands for a user, in an address file next to the
// ledger (AddrFile), readable by its own user only: "ndrmilter ledger lookup,
// stats and import" use it (Client) when the ledger file is locked by the
// running service.
package httpapi
