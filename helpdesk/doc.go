// Package helpdesk is ndrmilter's helpdesk page: a person pastes a bounce or
// a code, or drops the .eml file, and reads what happened, who must fix it
// (the "fix-it owner" graphic of Microsoft 365's reports: sender, the
// sender's email admin, the recipient's side, the one who must act
// highlighted), how to fix it, whether the bounce is backscatter, and the
// details for admins; or looks up a Message-ID or queue id in the ledger of
// sent mail (a message trace).
//
// The page is rendered on the server (html/template, which escapes every
// byte of the bounce) and works without JavaScript; a small script only adds
// dropping a file on the form. Everything it loads is embedded in the binary
// and served from the page's own origin, so that a Content-Security-Policy
// can forbid every other source. Every word the page writes comes from
// package catalog, in the reader's language; what it shows of the bounce
// comes from package explanation, the records of the API and the command line.
//
// The page reads and looks up through a Backend (package httpapi's server
// is one), so that the page and the API give the same answers.
package helpdesk
