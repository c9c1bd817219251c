package dsn

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// DMARC aggregate reports (RFC 7489 section 7.2) are not bounces: a
// receiver sends the owner of a domain a daily summary of the mail it saw
// in the domain's name. They reach a person when the domain's rua= address
// is a mailbox.

// FormatDMARCAggregate is the Format of a KindNone report that is a DMARC
// aggregate report: meant for the domain's admin, it needs nothing of the
// user who sees it.
const FormatDMARCAggregate = "dmarc-aggregate"

// The two labels of RFC 7489 section 7.2.1.2's subject, in lower case.
var (
	dmarcSubjectDomain    = [...]string{"report domain:"}
	dmarcSubjectSubmitter = [...]string{"submitter:"}
)

// dmarcAggregate says whether the message is a DMARC aggregate report: its
// subject is the one RFC 7489 section 7.2.1.2 gives ("Report Domain:
// example.com Submitter: mail.receiver.example Report-ID: ..."), or it
// carries the report file named as section 7.2.1.1 says
// (receiver!policy-domain!begin!end[!unique].xml, gzip- or zip-compressed).
func (p *parser) dmarcAggregate() bool {
	if headerHolds(p.hdr, "Subject", dmarcSubjectDomainSet) && headerHolds(p.hdr, "Subject", dmarcSubjectSubmitterSet) {
		return true
	}
	for i := range p.parts {
		switch p.parts[i].MediaType {
		case "application/zip", "application/gzip", "application/x-gzip", "application/x-zip-compressed",
			"application/x-zip", "application/octet-stream", "application/xml", "text/xml":
		default:
			continue
		}
		for _, f := range [...]string{"Content-Disposition", "Content-Type"} {
			if isDMARCReportName(fileName(headerString(p.parts[i].Header, f))) {
				return true
			}
		}
	}
	return false
}

// fileName returns the value of the name or filename parameter of a
// Content-Type or Content-Disposition value, its quotes taken off; "" when
// there is none.
func fileName(v string) string {
	k := strings.Index(ascii.LowerString(v), "name=")
	if k < 0 {
		return ""
	}
	v = strings.TrimSpace(v[k+len("name="):])
	if strings.HasPrefix(v, `"`) {
		if end := strings.IndexByte(v[1:], '"'); end >= 0 {
			return v[1 : 1+end]
		}
		return v[1:]
	}
	if end := strings.IndexAny(v, "; \t\r\n"); end >= 0 {
		v = v[:end]
	}
	return v
}

// isDMARCReportName says whether a file name has the form of RFC 7489
// section 7.2.1.1: receiver "!" policy-domain "!" begin-timestamp "!"
// end-timestamp ["!" unique-id] "." extension, the extension xml, xml.gz,
// gz or zip.
func isDMARCReportName(name string) bool {
	n := ascii.LowerString(name)
	var base string
	for _, ext := range [...]string{".xml.gz", ".xml", ".zip", ".gz"} {
		if strings.HasSuffix(n, ext) {
			base = n[:len(n)-len(ext)]
			break
		}
	}
	fields := strings.Split(base, "!")
	if len(fields) < 4 || len(fields) > 5 || fields[0] == "" || fields[1] == "" {
		return false
	}
	for _, ts := range fields[2:4] {
		if ts == "" || strings.Trim(ts, "0123456789") != "" {
			return false
		}
	}
	return true
}
