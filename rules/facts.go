package rules

import (
	"encoding/json"
	"fmt"
	"math"
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
	// The deadline of a delay: when the sending server will give up, as
	// the report states it. FactRetryUntil is a date, the DSN's
	// Will-Retry-Until field (RFC 3464 section 2.3.9), written
	// "2024-06-24 06:44 UTC" (retryUntil); FactRetryLeft is how much
	// longer it keeps trying from the notice on ("46 hours": Gmail's
	// "will retry for 46 more hours", Exchange's "will keep trying to
	// deliver this message for the next 1 day, 19 hours and 57 minutes");
	// FactRetryAge is the age of the message at which it gives up ("5
	// days": Postfix's delay_template "It will be retried until it is 5
	// day(s) old", Sendmail's "Will keep trying until message is 5 days
	// old", "will retry for up to 2 days"). A reading keeps one of them,
	// the first in that order (oneDeadline).
	FactRetryUntil Fact = "retry_until"
	FactRetryLeft  Fact = "retry_left"
	FactRetryAge   Fact = "retry_age"
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

	// The evidence a content filter states for a spam verdict. FactScore
	// is the message's spam score and FactThreshold the score from which
	// the filter refuses, as written ("12.3", "5.0"): SpamAssassin's
	// report and status header ("score=12.3 required=5.0", its _SCORE_
	// and _REQD_ tags, Mail::SpamAssassin::Conf), rspamd's result
	// ("default: True [12.30 / 15.00]"), Exim's content-scanning example
	// ACL ("This message scored $spam_score spam points", Exim
	// specification, "Content scanning at ACL time"). FactSpamTests is
	// the names of the filter's rules that matched, as SpamAssassin lists
	// them ("tests=BAYES_99,URIBL_BLACK", its _TESTS_ tag).
	FactScore     Fact = "score"
	FactThreshold Fact = "threshold"
	FactSpamTests Fact = "spam_tests"
	// FactListedDomain is a domain of the message's content (a link's)
	// that a URI block list names: Spamhaus DBL, SURBL and URIBL list
	// domains found in message bodies, not sending servers (their
	// documentation), so the refusal is about a link in the message.
	FactListedDomain Fact = "listed_domain"
	// FactProgram is the program a recipient's mail was piped to on the
	// recipient's server, from a .forward file or an alias ("|/usr/bin/procmail"):
	// Sendmail's "|program" recipient, its smrsh(8) refusal ("smrsh: "prog"
	// not available for sendmail programs") and the shell's "sh: prog: not
	// found" (Sendmail Installation and Operation Guide, op.me, and smrsh(8)).
	FactProgram Fact = "program"
	// FactSenderDomain is the sending domain a receiver names when it
	// refuses it for its authentication (Microsoft's "Access denied, sending
	// domain [contoso.com] does not meet the required authentication level").
	FactSenderDomain Fact = "sender_domain"
	// FactCount is how many of what a limit counts the message itself had,
	// as the report states it next to the limit (FactLimit): the mail
	// servers it had passed through (Sendmail's "Too many hops 26 (25
	// max)"), its recipients.
	FactCount Fact = "count"
	// FactNewAddress is the address a recipient has moved to, as the
	// refusal gives it: RFC 5321 section 3.4's "551 User not local; please
	// try <forward-path>", Postfix's relocated(5) "User has moved to
	// LOCATION", Sendmail's FEATURE(`redirect') "User has moved; please try
	// <ADDRESS>" (cf/README).
	FactNewAddress Fact = "new_address"
	// FactPercent is how full a mailbox is, as a quota warning
	// (dsn.FormatQuotaWarning) states it: "90%"; its quota is FactLimit.
	FactPercent Fact = "percent"
	// FactUsed is the size a mailbox has reached, as a quota warning
	// states it: "4634MB".
	FactUsed Fact = "used"
	// FactOwnScanner is the server of the sender's own organisation whose
	// virus scanner stopped the message on its way out (ownscanner.go):
	// the report's Reporting-MTA, of the sender's domain, with no other
	// server named; derived, never captured.
	FactOwnScanner Fact = "own_scanner"
)

// facts is the fact vocabulary, in the order JSON and --why list them.
var facts = [...]Fact{FactList, FactURL, FactLimit, FactHost, FactIP, FactFile, FactVirus, FactAddress, FactRetriedFor,
	FactRetryUntil, FactRetryLeft, FactRetryAge, FactLastError, FactLoop, FactDNSTempFail, FactNoMX, FactNoDomain, FactConnRefused, FactConnTimeout, FactTooManyRecipients,
	FactTLSRequired, FactTLSNotOffered, FactTLSRefused, FactTLSCert, FactEncryptedAttachment, FactBlockedAttachment, FactAttachmentBudget, FactOrgText, FactRecipientFilter, FactInternalHop,
	FactScore, FactThreshold, FactSpamTests, FactListedDomain, FactProgram, FactSenderDomain, FactCount, FactPercent, FactUsed, FactOwnScanner, FactNewAddress}

const numFacts = len(facts)

// factSet is a set of facts: bit i stands for facts[i].
type factSet uint64

// Every fact has its bit in a factSet.
var _ [64 - numFacts]struct{}

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
//
// A switch rather than a search of facts: Get and slotIndexOf ask for
// constant facts many times per record, and comparing the name with each
// fact in turn was 3% of Explain's instructions (issue 14); the compiler
// turns the switch into a search by length and bytes.
// TestFactIndexIsThePositionInFacts keeps it in step with facts.
func factIndex(name string) (int, bool) {
	switch Fact(name) {
	case FactList:
		return 0, true
	case FactURL:
		return 1, true
	case FactLimit:
		return 2, true
	case FactHost:
		return 3, true
	case FactIP:
		return 4, true
	case FactFile:
		return 5, true
	case FactVirus:
		return 6, true
	case FactAddress:
		return 7, true
	case FactRetriedFor:
		return 8, true
	case FactRetryUntil:
		return 9, true
	case FactRetryLeft:
		return 10, true
	case FactRetryAge:
		return 11, true
	case FactLastError:
		return 12, true
	case FactLoop:
		return 13, true
	case FactDNSTempFail:
		return 14, true
	case FactNoMX:
		return 15, true
	case FactNoDomain:
		return 16, true
	case FactConnRefused:
		return 17, true
	case FactConnTimeout:
		return 18, true
	case FactTooManyRecipients:
		return 19, true
	case FactTLSRequired:
		return 20, true
	case FactTLSNotOffered:
		return 21, true
	case FactTLSRefused:
		return 22, true
	case FactTLSCert:
		return 23, true
	case FactEncryptedAttachment:
		return 24, true
	case FactBlockedAttachment:
		return 25, true
	case FactAttachmentBudget:
		return 26, true
	case FactOrgText:
		return 27, true
	case FactRecipientFilter:
		return 28, true
	case FactInternalHop:
		return 29, true
	case FactScore:
		return 30, true
	case FactThreshold:
		return 31, true
	case FactSpamTests:
		return 32, true
	case FactListedDomain:
		return 33, true
	case FactProgram:
		return 34, true
	case FactSenderDomain:
		return 35, true
	case FactCount:
		return 36, true
	case FactPercent:
		return 37, true
	case FactUsed:
		return 38, true
	case FactOwnScanner:
		return 39, true
	case FactNewAddress:
		return 40, true
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
var noticeFacts = [...]Fact{FactRetriedFor, FactRetryLeft, FactRetryAge, FactFile, FactVirus, FactLimit, FactLastError, FactProgram}

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
	switch f {
	case FactRetryLeft:
		// Gmail's "for 46 more hours": the texts say "more" themselves.
		v = plainUnits(strings.Replace(v, " more ", " ", 1))
	case FactRetriedFor, FactRetryAge:
		v = plainUnits(v)
	case FactLimit:
		v = sizeUnits(v)
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
// number ("4 hour(s)", Postfix's bounce templates; "1 days, 19 hours",
// Exchange's delay notices) as the number needs them: "4 hours", "1 day".
func plainUnits(v string) string {
	if !strings.Contains(v, "(s)") && !strings.Contains(v, "1 ") {
		return v
	}
	fields := strings.Fields(v)
	var b strings.Builder
	for i, w := range fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		word, comma := strings.CutSuffix(w, ",")
		one := i > 0 && fields[i-1] == "1"
		if u, ok := strings.CutSuffix(word, "(s)"); ok {
			word = u + "s"
		}
		if one && len(word) > 3 && strings.HasSuffix(word, "s") {
			switch word[:len(word)-1] {
			case "day", "hour", "minute", "second", "week", "min", "hr":
				word = word[:len(word)-1]
			}
		}
		b.WriteString(word)
		if comma {
			b.WriteByte(',')
		}
	}
	return b.String()
}

// sizeUnits writes the unit of a size limit the way the explanations
// write sizes, whatever the language of the notice: French "10 Mo" (mégaoctet),
// "500 Ko", "1 Go" and "octets" are "10 MB", "500 KB", "1 GB" and "bytes";
// "megabytes", Japanese "バイト" and "20MB" are "MB", "bytes" and "20 MB".
// A value without a size unit (a number of recipients) is kept.
func sizeUnits(v string) string {
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == '.' || v[end] == ',') {
		end++
	}
	if end == 0 || end == len(v) {
		return v
	}
	num, unit := v[:end], strings.ToLower(strings.TrimSpace(v[end:]))
	switch unit {
	case "mo", "mb", "megabyte", "megabytes", "mbyte", "mbytes":
		unit = "MB"
	case "ko", "kb", "kilobyte", "kilobytes", "kbyte", "kbytes":
		unit = "KB"
	case "go", "gb", "gigabyte", "gigabytes":
		unit = "GB"
	case "mib":
		unit = "MiB"
	case "kib":
		unit = "KiB"
	case "gib":
		unit = "GiB"
	case "octet", "octets", "byte", "bytes", "バイト":
		unit = "bytes"
	default:
		return v
	}
	return num + " " + unit
}

// withMegabytes writes a size given as a bare number of bytes ("10485760",
// "10485760 bytes", "10.485.760 Bytes", "10,485,760 octets") as "10 MB
// (10485760 bytes)"; any other value is kept.
func withMegabytes(v string) string {
	digits := strings.ToLower(v)
	for _, u := range [...]string{"bytes", "byte", "octets", "octet"} {
		if d, ok := strings.CutSuffix(digits, u); ok {
			digits = d
			break
		}
	}
	digits = strings.TrimSpace(digits)
	digits = thousandsUngrouped(digits)
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || n < 1<<16 {
		return v
	}
	// Limits are set in binary megabytes (10485760, 26214400) or decimal
	// ones (10000000, 50000000): a round figure reads as the one it is.
	// Otherwise the binary megabytes, rounded down, so that a message under
	// the figure fits.
	mb := float64(n) / (1 << 20)
	if n%(1<<20) != 0 && n%1000000 == 0 {
		mb = float64(n) / 1000000
	}
	s := strconv.FormatFloat(math.Floor(mb*10)/10, 'f', 1, 64)
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

// thousandsUngrouped removes the separators of a number written in groups
// of three digits ("10,485,760", "10.485.760"); any other string is kept.
func thousandsUngrouped(s string) string {
	if len(s) < 5 {
		return s
	}
	sep := s[len(s)-4]
	if sep != ',' && sep != '.' {
		return s
	}
	parts := strings.Split(s, string(sep))
	for i, p := range parts {
		if p == "" || len(p) > 3 || (i > 0 && len(p) != 3) {
			return s
		}
		for j := 0; j < len(p); j++ {
			if p[j] < '0' || p[j] > '9' {
				return s
			}
		}
	}
	return strings.Join(parts, "")
}
