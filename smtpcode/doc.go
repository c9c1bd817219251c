// Package smtpcode parses and classifies SMTP reply codes (RFC 5321 section
// 4.2) and enhanced status codes (RFC 3463), and names the RFC 3464 Action of
// a recipient record.
//
// It is the one place where ndrmilter decides what a code is: the bounce
// reader (package dsn) and the knowledge base (package rules, and through it
// "ndrmilter code") both read codes with it, so a reply line means the same
// on every path.
//
// # What is accepted
//
// An enhanced status code is class "." subject "." detail (RFC 3463 section
// 2). ParseStatus, which reads a value that is meant to be a code (a Status
// field, a code typed by a user), accepts the grammar: class 2, 4 or 5,
// subject and detail of one to three digits (0-999).
//
// The scanners, which look for a code in free text (FindStatus,
// StatusAfterReply), accept less, because free text is full of dotted
// numbers: class 2, 4 or 5; a subject of one digit 0-7, the subjects RFC 3463
// section 3 defines and the IANA registry lists (nothing above 7 is
// registered as of its 2024 update); a detail of one to three digits
// (0-999). Subjects 8 and 9 are refused: no X.8.Y or X.9.Y code appears in
// the registry, in Sisimai's code tables or in ndrmilter's corpus of real
// bounces, where the one dotted number with subject 8 is a software version
// ("Haraka/2.8.21"); a misread version would be a wrong answer, a missed
// code only a less precise one. A code must stand alone: it is
// not read inside an IP address ("192.0.5.1.1"), a version ("v2.1.12",
// "Exim/4.0.3", "mta-5.5.0-3"), a list or range of numbers ("5.1.2,5.1.3")
// or a longer number ("5.1.1000", "45501-5.1.1").
//
// An SMTP reply code is three digits (RFC 5321 section 4.2): a class 2, 4 or
// 5 (ndrmilter reads outcomes; 3yz replies are intermediate and 1yz is not
// used by SMTP), a second digit 0-5 and a third digit 0-9. FindReply finds
// the one that starts a server's reply, and not a number followed by a unit
// ("550 bytes").
//
// The scanners return a slice of their input and never allocate.
package smtpcode
