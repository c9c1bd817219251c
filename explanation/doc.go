// Package explanation builds the records in which ndrmilter tells what it
// read of a bounce or a status code: the objects of "ndrmilter explain
// --json" and "ndrmilter code --json", of the HTTP API (package httpapi) and
// of the helpdesk page. One builder for all of them, so that the command line
// and the API cannot drift: a field added here appears everywhere, with the
// same key and the same meaning.
//
// It reads nothing and judges nothing itself: a Record is made from what
// package dsn read (dsn.Report) and what package rules made of it
// (rules.Reading); a CodeRecord from what rules.Engine.Lookup made of a code.
// ParseCodeQuery says what is a code at all, so that "code hello" is refused
// the same way on the command line (exit status 2) and over HTTP (400).
package explanation
