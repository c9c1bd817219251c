package dsn

import (
	"bytes"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// The reason section: notices that state one reason for all their
// recipients in a section above the list of addresses, and after the list
// only help text ("Please reply to Postmaster@... if you feel this message
// to be in error"). Post.Office (Software.com) and the Netscape/iPlanet
// Messaging Server write "This Message was undeliverable due to the
// following reason:", the reason paragraphs, then "The following
// recipients did not receive this message:" and the addresses; Mailman's
// SimpleMatch bounce detector reads the same two markers. The recipient's
// own text after its address is then no diagnostic; the section is.

// reasonSectionIntro opens the reason section (lower case).
var reasonSectionIntro = []byte("undeliverable due to the following reason:")

// reasonSectionEnds close it: the heading of the list of addresses.
var reasonSectionEnds = [...][]byte{
	[]byte("the following recipients did not receive this message"),
	[]byte("the following recipient did not receive this message"),
	[]byte("the following recipient(s) did not receive this message"),
}

// applyReasonSection gives the reason section of a free-text notice
// (section, lower its lower-case copy) to every recipient whose own text
// states no failure (no reply code, no failure phrase). Nothing changes
// when the notice has no such section, or no heading ends it.
func (p *parser) applyReasonSection(section, lower []byte) {
	i := bytes.Index(lower, reasonSectionIntro)
	if i < 0 {
		return
	}
	start := i + len(reasonSectionIntro)
	end := -1
	for _, e := range reasonSectionEnds {
		if j := bytes.Index(lower[start:], e); j >= 0 && (end < 0 || start+j < end) {
			end = start + j
		}
	}
	if end < 0 {
		return
	}
	reason := collapseSpace(nil, textclean.UTF8(string(section[start:end])))
	if reason == "" {
		return
	}
	if len(reason) > maxBlockText {
		reason = reason[:maxBlockText]
	}
	for k := range p.rep.Recipients {
		rc := &p.rep.Recipients[k]
		if hasCode(rc.Diagnostic) || failurePhrases.in(ascii.ToLower([]byte(rc.Diagnostic))) {
			continue
		}
		rc.Diagnostic = reason
	}
}
