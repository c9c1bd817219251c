package rules

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// Whose server refused to relay. A relay refusal ("554 5.7.1 <x>: Relay
// access denied", Postfix reject_unauth_destination and
// smtpd_relay_restrictions in postconf(5); Exim "550 relay not
// permitted", its ACL documentation; Sendmail "550 5.7.1 ... Relaying
// denied", its cf/README; Microsoft "5.7.1 Unable to relay", "5.4.1 Relay
// Access Denied", "5.7.54 Unable to relay recipient in non-accepted
// domain") says that the server will neither deliver the message itself
// nor pass it on (RFC 5321 sections 3.6.2 and 7.1). Seed 001 lists both
// readings under "Unable to relay": "An MX record for a domain points to a
// receiving email system where that domain is not accepted" (the domain's
// admin), and "A sending email system or client that should use the
// receiving email system to relay messages does not have the correct
// permissions to do this" (the sender's side: authenticate, or use the
// right outgoing server). Which one it is depends on whose server refused:
//   - the sender's own relay (the refusing server, or the server that
//     wrote the report when no other is named, is in the sender's
//     domain): the sender's admin;
//   - the recipient's server (in the recipient's domain): the
//     recipient's admin, the reading of the reason norelaying;
//   - neither can be told (a provider's host, an internal name): the
//     owner is unknown and the words name both.
// Exchange Online's 5.7.64 TenantAttribution has its own words and an
// unknown owner already (ms-5.7.64-tenantattribution); it is left alone.

// relaySide is whose server refused to relay.
type relaySide int

const (
	relayRecipientSide relaySide = iota // the recipient's server: the reading stays
	relaySenderSide                     // the sender's own relay
	relayEitherSide                     // cannot be told
)

// saidHost matches the host a diagnostic says replied: Postfix's "host
// mx.example.net[192.0.2.1] said:", Exim's "host mx.example.net
// [192.0.2.1]:".
var saidHost = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bhost ([a-z0-9][a-z0-9_.-]*\.[a-z0-9-]{2,})\s?\[`)
})

// refusingServer returns the name of the server that refused a record,
// lower case, and whether another server than the one that wrote the
// report is named (ownServerRefusal): the Remote-MTA, else the host the
// diagnostic names; with none named, the Reporting-MTA.
func refusingServer(in *Input) (host string, remote bool) {
	if !ownServerRefusal(in) {
		if h := hostName(namedRemote(in.RemoteMTA)); h != "" {
			return h, true
		}
		if m := saidHost().FindStringSubmatch(in.Diagnostic); m != nil {
			return hostName(m[1]), true
		}
		return "", true
	}
	return hostName(in.ReportingMTA), false
}

// relayRefusalSide says whose server refused to relay the record in: a
// host of the sender's domain (and not also of the recipient's), a host of
// the recipient's domain, or neither that can be told.
func relayRefusalSide(in *Input) relaySide {
	host, _ := refusingServer(in)
	_, rcptDomain, _ := strings.Cut(strings.ToLower(strings.TrimSpace(in.Recipient)), "@")
	sender := in.SenderDomain
	switch {
	case host == "":
		return relayEitherSide
	case sender != "" && organisationHost(host, sender) && (rcptDomain == "" || !organisationHost(host, rcptDomain) || sender == rcptDomain):
		return relaySenderSide
	case rcptDomain != "" && organisationHost(host, rcptDomain):
		return relayRecipientSide
	}
	return relayEitherSide
}

// relayReading gives a relay refusal its owner by the side whose server
// refused (relayRefusalSide): a refusal by the sender's own relay is the
// sender's admin's, one that cannot be placed is unknown, with the words
// for it. A pasted reply (Lookup) and a reading whose rule names another
// owner than the recipient's admin keep theirs.
func (e *Engine) relayReading(v *Classification, rec *record, lang int) {
	in := &rec.in
	if v.Reason != ReasonNoRelaying || v.Owner != OwnerRecipientAdmin || in.lookup {
		return
	}
	side := relayRefusalSide(in)
	if side == relayRecipientSide {
		return
	}
	t := e.textsFor(lang)
	vals := slotValues{slotRecipient: sanitize(in.Recipient), slotRemote: sanitize(namedRemote(in.RemoteMTA))}
	if host, _ := refusingServer(in); host != "" {
		vals[slotRemote] = host
	}
	if _, d, ok := strings.Cut(vals[slotRecipient], "@"); ok {
		vals[slotDomain] = d
	}
	expl, fix := textRelayEitherExplanation, textRelayEitherFix
	v.Owner = OwnerUnknown
	if side == relaySenderSide {
		expl, fix = textRelayOwnExplanation, textRelayOwnFix
		v.Owner = OwnerSenderAdmin
	}
	v.Fix = t[fix].render(&vals)
	if rec.action == smtpcode.ActionDelayed {
		// A delay says so first, naming the recipient once.
		intro := t[textDelayedIntro].render(&slotValues{slotRecipient: vals[slotRecipient]})
		vals[slotRecipient] = ""
		v.Explanation = intro + " " + t[expl].render(&vals)
		return
	}
	v.Explanation = t[expl].render(&vals)
}
