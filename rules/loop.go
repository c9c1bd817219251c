package rules

// loopNote returns the note that follows the explanation of a mail loop
// (the fact loop) when its report says more of it: how many mail servers
// the message had passed through, and the limit (Sendmail's "554 5.4.6
// Too many hops 26 (25 max)", sendmail/collect.c with its MaxHopCount
// option); else the domain whose mail servers point back to the server
// that was passing it on (Postfix smtp(8) "mail for example.net loops back
// to myself": the domain's MX records name that server, which does not
// accept mail for the domain itself, see Postfix's mydestination and
// relay_domains in postconf(5)). ok is false when the report says neither.
func loopNote(fs *Facts, vals *slotValues) (k textKey, ok bool) {
	if fs.Get(FactLoop) == "" {
		return 0, false
	}
	switch {
	case fs.Get(FactCount) != "":
		return textLoopHopsNote, true
	case fs.Get(FactHost) != "" && vals[slotFact0+slot(slotIndexOf(FactHost))] != "":
		return textLoopMyselfNote, true
	}
	return 0, false
}

// loopsBackToMyself is the words of Postfix smtp(8)'s loop detection, "mail
// for DOMAIN loops back to myself" (smtp_connect.c): the server that
// writes them is the one the domain's MX records point to, and it does not
// accept mail for the domain itself (postconf(5): mydestination,
// virtual_mailbox_domains, relay_domains).
const loopsBackToMyself = "loops back to myself"

// ownLoopReading gives a loop that the sender's own server detected in
// itself to the sender's admin: when the report is Postfix's "loops back to
// myself" written by a host of the sender's domain (no other server is
// named), the fix is that server's configuration or the domain's MX
// records, which the sender's admin (the same organisation) manages; the
// recipient's admin of the general loop words has nothing to do.
func (e *Engine) ownLoopReading(v *Classification, rec *record, lang int) {
	host := v.Facts.Get(FactHost)
	if v.Facts.Get(FactLoop) == "" || host == "" || !containsFold(rec.in.Diagnostic, loopsBackToMyself) {
		return
	}
	server, remote := refusingServer(&rec.in)
	if remote || server == "" || rec.in.SenderDomain == "" || !organisationHost(server, rec.in.SenderDomain) {
		return
	}
	vals := reportSlots(rec, &v.Facts)
	v.Owner = OwnerSenderAdmin
	v.Fix = e.textsFor(lang)[textLoopOwnServerFix].render(&vals)
}
