package rules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/textclean"
)

// A Fact is a specific thing the server named in its reply: the block list
// it checked, the size limit it enforces, the virus it found, the host that
// could not be reached. Facts are captured from the diagnostic text by the
// named groups of a rule's regexps, (?P<list>...), and by the extractors of
// a rules file, and the explanation and fix use them as placeholders
// ({list}, {limit}...), so that what the server said is not dropped.
//
// A value fact is shown as written ({list} is "zen.spamhaus.org"); a
// condition fact records that the server said something ("a mail loop"),
// and is usually tested with {?loop}, which shows nothing and chooses the
// sentence that needs it.
type Fact string

// The facts. Their names are the placeholders and the regexp group names of
// rules files.
const (
	FactList    Fact = "list"    // a block list: "zen.spamhaus.org", "Spamhaus", "SORBS"
	FactURL     Fact = "url"     // a page the reply points to (look-up, removal, help)
	FactLimit   Fact = "limit"   // a limit the server states: "10 MB (10485760 bytes)", "100"
	FactHost    Fact = "host"    // the host a failure concerns: the unreachable server, the domain without a mail server
	FactIP      Fact = "ip"      // the sending IP address the server names
	FactFile    Fact = "file"    // an attachment's file name
	FactVirus   Fact = "virus"   // the name of the malware found
	FactAddress Fact = "address" // a contact address the reply gives
	// FactRetriedFor is how long the sending server kept trying before it
	// gave up (or, in a warning, so far), the number and the unit as the
	// notice states them: "5 days", "48 hours".
	FactRetriedFor Fact = "retried_for"
	// FactLastError is the error of the last attempt, as an expiry notice
	// states it next to its "gave up" sentence: Exim's "retry timeout
	// exceeded" followed by "host X [ip]: Connection timed out", Postfix's
	// "delivery temporarily suspended: connect to X: Connection refused".
	FactLastError Fact = "last_error"

	FactLoop              Fact = "loop"                // condition: the server names a mail loop
	FactNoMX              Fact = "no_mx"               // condition: the domain has no MX record
	FactNoDomain          Fact = "no_domain"           // condition: the DNS does not know the domain (NXDOMAIN)
	FactConnRefused       Fact = "conn_refused"        // condition: the connection was refused
	FactConnTimeout       Fact = "conn_timeout"        // condition: the connection timed out or got no answer
	FactTooManyRecipients Fact = "too_many_recipients" // condition: too many recipients in one message
	// FactDNSTempFail is the condition that a DNS lookup failed for now
	// (h_errno TRY_AGAIN, RCODE SERVFAIL, a timeout): the domain's name
	// servers did not answer, which says nothing of whether the domain or
	// its MX records exist (Postfix "Host not found, try again", Exim "host
	// lookup did not complete", Sendmail "host name lookup failure").
	FactDNSTempFail Fact = "dns_tempfail"

	// The TLS conditions: what a TLS failure was, in the words of the MTA
	// that met it, since each has its own owner and fix.
	FactTLSRequired   Fact = "tls_required"    // condition: the receiving server requires TLS and the sending server did not start it (RFC 3207 "530 Must issue a STARTTLS command first", RFC 4954 538)
	FactTLSNotOffered Fact = "tls_not_offered" // condition: the sending server requires TLS and the receiving server does not offer STARTTLS (Postfix "TLS is required, but was not offered by host")
	FactTLSRefused    Fact = "tls_refused"     // condition: the receiving server offered STARTTLS and then refused or failed to start it (Postfix "refused to start TLS")
	FactTLSCert       Fact = "tls_cert"        // condition: the receiving server's certificate did not pass verification (Postfix "Server certificate not verified", DANE, MTA-STS)

	// FactBlockedAttachment is the condition that the refusal is about an
	// attachment's type (a program, a script, a document with macros, an
	// archive), not about malware found in it nor about the sender.
	FactBlockedAttachment Fact = "blocked_attachment"

	// FactEncryptedAttachment is the condition that an attachment was
	// refused because it is encrypted or password-protected, so the
	// receiving filter could not scan it (Cisco Secure Email
	// "Inbound_Block_Encrypted_Archives", "unscannable"): the sender's to
	// send another way, no malware found. It comes with
	// FactBlockedAttachment and is tried before it.
	FactEncryptedAttachment Fact = "encrypted_attachment"

	// FactRecipientFilter is the condition that the recipient
	// organisation's filter refused the message for one recipient and gave
	// no reason: Barracuda Email Security Gateway's per-recipient outcome
	// "550 permanent failure for one or more recipients (addr:blocked)",
	// which stands for any verdict of its filter (policy, content, intent,
	// reputation, a per-user block). Only the recipient's admin can read
	// the verdict, in their Barracuda message log.
	FactRecipientFilter Fact = "recipient_filter"

	// FactAttachmentBudget is about three quarters of a size limit the
	// server stated ("14 MB" for "19.5 MB"): what attachments may take
	// before base64 encoding (RFC 2045 section 6.8) makes them the size of
	// the limit. It is derived from FactLimit (attachmentBudget), never
	// captured.
	FactAttachmentBudget Fact = "attachment_budget"

	// FactOrgText is the text an organisation's transport rule gave for
	// refusing the message (Exchange's "Reject the message with the
	// explanation"), as the NDR or the reply carries it: derived by
	// organisationText, never captured.
	FactOrgText Fact = "org_text"

	// FactInternalHop is the internal host of the recipient's
	// organisation that its own gateway could not reach (a private
	// address, a name under a private top-level domain, or a host of the
	// recipient's domain reached from a gateway of that domain): derived
	// by internalHop from the report's Reporting-MTA and Remote-MTA (RFC
	// 3464 sections 2.2.2 and 2.3.5), never captured.
	FactInternalHop Fact = "internal_hop"
)

// facts is the fact vocabulary, in the order JSON and --why list them.
var facts = [...]Fact{FactList, FactURL, FactLimit, FactHost, FactIP, FactFile, FactVirus, FactAddress, FactRetriedFor,
	FactLastError, FactLoop, FactDNSTempFail, FactNoMX, FactNoDomain, FactConnRefused, FactConnTimeout, FactTooManyRecipients,
	FactTLSRequired, FactTLSNotOffered, FactTLSRefused, FactTLSCert, FactEncryptedAttachment, FactBlockedAttachment, FactAttachmentBudget, FactOrgText, FactRecipientFilter, FactInternalHop}

const numFacts = len(facts)

// factSet is a set of facts: bit i stands for facts[i].
type factSet uint32

// Every fact has its bit in a factSet.
var _ [32 - numFacts]struct{}

// set returns the facts fs has a value for.
func (fs *Facts) set() factSet {
	var s factSet
	for i, v := range fs.v {
		if v != "" {
			s |= 1 << i
		}
	}
	return s
}

// factIndex returns the position of the fact called name in facts.
func factIndex(name string) (int, bool) {
	for i, f := range facts {
		if string(f) == name {
			return i, true
		}
	}
	return 0, false
}

// Valid says whether f is in the fact vocabulary.
func (f Fact) Valid() bool {
	_, ok := factIndex(string(f))
	return ok
}

// Facts are the facts captured from one record, at most one value per fact.
// The zero Facts holds none. Facts is comparable, as Classification is.
type Facts struct {
	v [numFacts]string
}

// Get returns the value of f, "" when it was not captured.
func (fs Facts) Get(f Fact) string {
	if i, ok := factIndex(string(f)); ok {
		return fs.v[i]
	}
	return ""
}

// Len returns how many facts were captured.
func (fs Facts) Len() int {
	n := 0
	for _, v := range fs.v {
		if v != "" {
			n++
		}
	}
	return n
}

// Each calls fn for each captured fact, in the order of the vocabulary.
func (fs Facts) Each(fn func(f Fact, value string)) {
	for i, v := range fs.v {
		if v != "" {
			fn(facts[i], v)
		}
	}
}

// MarshalJSON writes the captured facts as an object, {"list": "..."}.
func (fs Facts) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	var err error
	fs.Each(func(f Fact, v string) {
		if err != nil {
			return
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(string(f))
		var val []byte
		val, err = json.Marshal(v)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	})
	b.WriteByte('}')
	return []byte(b.String()), err
}

// noticeFacts are the facts read from Input.Notice when the diagnostic
// does not give them: values that a notice states in its prose (how long
// the server tried, the infected file and the malware, the size limit, the
// last error before an expiry).
// The conditions (a loop, no MX record...) are not among them: they choose
// the words of a reason, and a notice's general help text names them
// without their being the cause.
var noticeFacts = [...]Fact{FactRetriedFor, FactFile, FactVirus, FactLimit, FactLastError}

// isNoticeFact says whether f is one of noticeFacts.
func isNoticeFact(f Fact) bool {
	for _, n := range noticeFacts {
		if n == f {
			return true
		}
	}
	return false
}

// maxFactLen caps a fact's value: it comes from the bounce and goes into an
// explanation, and so into a header.
const maxFactLen = 160

// extractor is a compiled extractor of a rules file: regexps whose named
// groups capture facts from the diagnostic text of any record.
type extractor struct {
	id   string
	file string
	line int
	text phraseMask // any of these phrases must occur (a cheap test before the regexps); empty: always
	// unless: none of these phrases may occur (a wording that says the
	// opposite of the facts captured: "Host not found, try again" is no
	// answer that the domain does not exist); empty: no such test.
	unless  phraseMask
	regexps []*pattern
	bytes   bool // a bare number captured as limit is a number of bytes
}

// compileFactRegexp compiles a regexp of a rules file (case-insensitive) and
// checks that its named groups are facts.
func compileFactRegexp(s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?i)" + s)
	if err != nil {
		return nil, fmt.Errorf("regexp %q: %v", s, err)
	}
	for _, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		if _, ok := factIndex(name); !ok {
			return nil, fmt.Errorf("regexp %q: group (?P<%s>...) is not a fact (known: %s)", s, name, joined(facts[:]))
		}
	}
	return re, nil
}

// hasCaptures reports whether re has named groups.
func hasCaptures(re *regexp.Regexp) bool {
	for _, name := range re.SubexpNames() {
		if name != "" {
			return true
		}
	}
	return false
}

// factSource says where a fact was captured, for --why.
type factSource struct {
	from string // the rule or extractor id
	file string
	line int
}

// capture fills the facts that the named groups (names, by number, as
// SubexpNames gives them) capture in a match m (its submatch indexes), for
// the facts not set yet. The regexps match the text as normalize made it;
// orig is the same bytes with their case kept (foldSpace of base), and the
// values are cut from it: from base itself, without a copy, where base
// holds the same bytes at the same place (no white space folded before
// them), as it mostly does.
func capture(names []string, m []int, orig []byte, base string, fs *Facts, src *[numFacts]factSource, from factSource, bytes bool) {
	for g, name := range names {
		if name == "" || m[2*g] < 0 || m[2*g+1] <= m[2*g] {
			continue
		}
		i, _ := factIndex(name)
		if fs.v[i] != "" {
			continue
		}
		a, b := m[2*g], m[2*g+1]
		var v string
		if b <= len(base) && string(orig[a:b]) == base[a:b] {
			v = base[a:b]
		} else {
			v = string(orig[a:b])
		}
		v = cleanFact(facts[i], v)
		if facts[i] == FactLimit && bytes {
			v = withMegabytes(v)
		}
		if v == "" {
			continue
		}
		fs.v[i] = v
		if src != nil {
			src[i] = from
		}
	}
}

// cleanFact makes a captured value printable ASCII on one line and drops the
// punctuation around it that a sentence or a bracket left.
func cleanFact(f Fact, v string) string {
	v = textclean.ASCII(strings.TrimSpace(v), maxFactLen)
	if f == FactRetriedFor {
		v = plainUnits(v)
	}
	v = strings.TrimRight(strings.TrimLeft(v, `(<['"`), `.,;:)]>'"`)
	if strings.Count(v, "(") > strings.Count(v, ")") {
		// A closing bracket of the value itself ("x.exe (in y.zip)").
		v += ")"
	}
	if f == FactURL && !guidanceURL(v) {
		return "" // not a page a mail provider points to: see guidanceHosts
	}
	return v
}

// plainUnits writes the units of a duration that a template wrote for any
// number ("4 hour(s)", Postfix's bounce templates) as the number needs
// them: "4 hours", "1 day".
func plainUnits(v string) string {
	if !strings.Contains(v, "(s)") {
		return v
	}
	var b strings.Builder
	for i, w := range strings.Fields(v) {
		if i > 0 {
			b.WriteByte(' ')
		}
		if u, ok := strings.CutSuffix(w, "(s)"); ok {
			w = u + "s"
			if i > 0 && strings.Fields(v)[i-1] == "1" {
				w = u
			}
		}
		b.WriteString(w)
	}
	return b.String()
}

// withMegabytes writes a size given as a bare number of bytes ("10485760",
// "10485760 bytes") as "10 MB (10485760 bytes)"; any other value is kept.
func withMegabytes(v string) string {
	digits := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(v), "bytes"), "byte"))
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || n < 1<<16 {
		return v
	}
	mb := float64(n) / (1 << 20)
	s := strconv.FormatFloat(mb, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " MB (" + digits + " bytes)"
}

// foldSpace is normalize without the lower-casing: the same bytes at the
// same offsets, their case kept, so that a capture found in the normalized
// text can be cut from this one.
func foldSpace(dst []byte, text string) []byte {
	space := true
	for i := 0; i < len(text); i++ {
		b := text[i]
		if b <= ' ' || b == 0x7f {
			if !space {
				dst = append(dst, ' ')
				space = true
			}
			continue
		}
		dst = append(dst, b)
		space = false
	}
	if n := len(dst); n > 0 && dst[n-1] == ' ' {
		dst = dst[:n-1]
	}
	return dst
}
