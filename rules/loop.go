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
