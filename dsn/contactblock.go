package dsn

import "bytes"

// Contact blocks: a heading of contact wording ("本件に関するお問い合わせ:",
// "【お問い合わせ先】", "■連絡先", "Bei Fragen wenden Sie sich an:",
// "Pour toute question :") and the lines under it up to the next empty
// line: a department, a name, a telephone number and the address to write
// to. Japanese gateways (HENNGE One, m-FILTER, GUARDIANWALL, Active! gate)
// close their notices so, with the department on the line between the
// heading and the address, where contactLine, which reads only the line
// right above an address, does not see it. An address in such a block is
// given to write to, never as failed (issue 8 point 1).

// maxContactHeading is the longest line read as a contact heading: a
// heading is short; a paragraph that mentions a contact is help text.
const maxContactHeading = 120

// contactHeading says whether a line that names no address (t, lt in
// lower case) is the heading of a contact block: contact wording
// (contactWords) on a short line that ends in a colon (ASCII or
// full-width) or is set in lenticular brackets or behind a bullet, with no
// reply or status code and no failure words.
func contactHeading(t, lt []byte) bool {
	if len(t) > maxContactHeading {
		return false
	}
	// The shape of a heading first: the block scanner asks of every line
	// without an address, and few have it (issue 14).
	u := trimLabelBullet(t)
	heading := len(u) != len(t) || bytes.HasPrefix(u, []byte("【")) ||
		bytes.HasSuffix(t, []byte(":")) || bytes.HasSuffix(t, []byte("\uff1a")) || bytes.HasSuffix(t, []byte("】"))
	return heading && contactWording(lt) && !hasCodeBytes(t) && !failurePhrases.in(lt)
}

// endsSentenceJa says whether a line ends a Japanese sentence (the
// ideographic full stop, U+3002): the value of a labelled cause does not
// run on after it.
func endsSentenceJa(b []byte) bool {
	return bytes.HasSuffix(bytes.TrimRight(b, " \t"), []byte("\u3002"))
}

// inContactBlock says whether lower-case line lt may go on a contact block
// that started above: it is not a labelled line of the notice (a new
// label ends the block).
func inContactBlock(lt []byte) bool {
	k, _ := noticeLabel(bytes.TrimSpace(lt))
	return k == labelNone
}
