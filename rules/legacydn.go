package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Stale Exchange X.500 addresses. Outlook's auto-complete list (the
// nickname cache) and cached contacts keep a recipient inside an Exchange
// organisation by their X.500 address, the legacyExchangeDN; sent on, it
// is encapsulated as "IMCEAEX-_O=ORG_OU=..._CN=RECIPIENTS_CN=NAME@domain".
// When the mailbox is moved, re-created or migrated, its legacyExchangeDN
// changes and the cached one resolves to nobody: Exchange refuses it as not
// found (550 5.1.1 RESOLVER.ADR.ExRecipNotFound). Microsoft, "IMCEAEX
// non-delivery report when you send email messages to an internal user in
// Office 365": remove the auto-complete entry and pick the recipient from
// the address book again; the admin adds the old legacyExchangeDN as an
// X500 proxy address. The address was picked, not typed, so the words of
// an unknown address ("check the address for typos") mislead.

// imceaexPrefix starts an encapsulated Exchange X.500 address.
const imceaexPrefix = "imceaex-"

// legacyDNAddress says whether a is an encapsulated Exchange X.500 address.
func legacyDNAddress(a string) bool {
	return len(a) > len(imceaexPrefix) && strings.EqualFold(a[:len(imceaexPrefix)], imceaexPrefix)
}

// legacyDNReading rewrites the reading v of a record refused as an
// unknown address when the address is an encapsulated X.500 address: the
// sender's mail program used a stale cached entry. The owner stays the
// sender (the first step is theirs); the fix names the admin's step too.
func (e *Engine) legacyDNReading(v *Classification, rec *record, lang int) {
	if v.Reason != ReasonUserUnknown || rec.action == smtpcode.ActionDelayed || !legacyDNAddress(rec.in.Recipient) {
		return
	}
	t := e.textsFor(lang)
	v.Owner = OwnerSender
	v.Summary = t[textLegacyDNSummary].plain()
	v.Explanation = t[textLegacyDNExplanation].plain()
	v.Fix = t[textLegacyDNFix].plain()
}
