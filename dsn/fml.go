package dsn

import (
	"bytes"
	"strings"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// fml, a mailing list manager, answers a post it refuses with a notice of
// its own, not a delivery report: "You are not a member of this mailing
// list <LIST>." under the subject "You ADDRESS are not member (LIST ML)",
// "Duplicated Message-ID in <LIST>." under "Loop Alert: ...". The post
// failed at the list, which the notice names in angle brackets on the line
// of its error. The subjects and the error lines are Sisimai's lhost.fml
// tables (errortitle, errortable; ../shared/reference/sisimai-phrases.json,
// BSD-2-Clause, Copyright (c) 2020-2025 azumakuniyuki and sisimai
// development team). fml marks the mail it sends with an X-MLServer field;
// its own notices, unlike the posts it passes on, also carry a Message-ID
// of its making ("<200504292334.FML01234.LIST@DOMAIN>").

// fmlSubjects are the lower-case subject words of fml's notices (Sisimai's
// errortitle).
var fmlSubjects = [...]string{
	" are not member", "not member article from ", "reject mail ", "spam mail from a spammer is rejected",
	"fml system error message", "loop alert: ", "loop back warning: ", "warning: unix from loop", "security alert",
}

// fmlErrors are the lower-case words of the error line of fml's notices
// (Sisimai's errortable).
var fmlErrors = [...]string{
	"you are not a member of this mailing list", "not member article from ", "reject mail from ",
	"reject spammers:", " header may cause mail loop", " has detected a loop condition so that",
	"duplicated message-id", "loop back warning:", "security alert:",
}

// readFML reads an fml notice (see fmlSubjects). It says whether the message
// is one that names its list: a failed record for the list, with the error
// line as its diagnostic.
func (p *parser) readFML() bool {
	if !headerHolds(p.hdr, "X-MLServer", fmlServerSet) || !headerHolds(p.hdr, "Message-ID", fmlMessageIDSet) ||
		!headerHolds(p.hdr, "Subject", fmlSubjectSet) {
		return false // not an fml notice: no text search
	}
	cut := p.cut()
	text, lower := p.text[:cut], p.lowerText[:cut]
	for _, w := range fmlErrors {
		i := bytes.Index(lower, []byte(w))
		if i < 0 {
			continue
		}
		start := bytes.LastIndexByte(lower[:i], '\n') + 1
		end := len(lower)
		if n := bytes.IndexByte(lower[i:], '\n'); n >= 0 {
			end = i + n
		}
		line := strings.TrimSpace(string(text[start:end]))
		lt := strings.IndexByte(line, '<')
		if lt < 0 {
			continue
		}
		addr := cleanAddress(line[lt:])
		if !plausibleAddress(addr) {
			continue
		}
		r := p.rep
		r.Recipients = p.sc.addRecipient(r.Recipients, Recipient{Address: addr, Diagnostic: withOwnerContact(string(text), line, maxListDiagnostic)})
		r.Format = "fml"
		p.finish(func() smtpcode.Action { return smtpcode.ActionFailed })
		return true
	}
	return false
}
