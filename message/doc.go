// Package message reads Internet messages leniently: header fields, the
// MIME tree, transfer and charset decoding, encoded words and HTML as text,
// within fixed caps.
//
// It is the reading half of package dsn, which holds the bounce heuristics
// and reads every message through it; milter's body rewrite reads through it
// too. Read splits a message (RFC 5322, LF or CRLF) into its header and the
// leaves of its MIME tree (RFC 2045, RFC 2046) without copying anything: the
// fields and bodies are slices of the input, and Part.Decode decodes a body
// (base64, quoted-printable, any charset golang.org/x/text knows) only when
// it is read, and only as far as the caller's limit. An Arena lends the
// fields and parts from arrays kept from one message to the next.
//
// Mail in the wild is broken, and a bounce most of all: the reader takes
// what a strict parser refuses and still says what it read. An mbox "From "
// line, a line that is no field (the header ends there), a line of blanks
// for the empty line, a parameter on an unindented line after "type;", a
// Content-Type without its semicolon, a multipart without its close
// delimiter (Message.Truncated), a delimiter with padding, base64 with junk
// or several padded runs, a malformed quoted-printable escape, an unknown
// charset, an encoded word that does not decode: each is read as well as it
// can be, never an error. Hostile input is bounded by MaxDepth, MaxParts and
// MaxHeaderFields and by the callers' limits on decoding.
//
// # Why it is hand-written
//
// github.com/emersion/go-message v0.18.2 (already in the module graph) was
// tried for this half: textproto.ReadHeader, textproto.MultipartReader,
// message.New with go-message/charset for decoding, mime.WordDecoder for
// encoded words, behind the same API (commit 7275475, reverted). It was
// neither as lenient nor as cheap:
//
//   - it stops at a header line it cannot read: an mbox "From " line (28 of
//     the 411 messages of the shared corpus start with one; the adapter had
//     to strip it), or a Content-Type parameter on an unindented line in a
//     part header, which ends the multipart there (4 corpus messages read
//     differently even with the From line stripped; corpus score recipient
//     98.4% against 98.6%, status 95.4% against 95.6%, reason 95.6% against
//     95.9%);
//   - mime.ParseMediaType refuses a Content-Type without its semicolon, so
//     the charset of such a part is lost; base64 decoding stops at the first
//     character outside the alphabet or after the first padded run;
//     mime.WordDecoder gives up a whole header value for one word it cannot
//     decode;
//   - it streams: a body must be copied out of the multipart reader to be
//     read more than once, and nothing caps the header fields, the parts or
//     the depth; the adapter had to skip the parts a report reader does not
//     need and read at most a few MB of the others to pass dsn's 50 MB
//     attachment test.
//
// With the whole of dsn.Parse on each reader ("go test -run '^$' -bench .
// -benchmem ./dsn", both test binaries run in turn in the same session, 10
// runs each, benchstat medians, every difference p <= 0.002), go-message
// against this package, as a ratio; in parentheses, a second session of 15
// runs each with GOMAXPROCS=1. The machine was shared and busy: the times
// vary by 20% to 100% from run to run, the allocations do not.
//
//	            time/op       bytes/op   allocs/op
//	fixtures    x3.5 (x3.2)   x9.3       x3.7
//	ordinary    x5.3 (x3.4)   x11.0      x3.8
//	corpus      x2.9 (x2.5)   x7.3       x4.7
package message
