package rules

// The sender's own outgoing virus scanner. Many organisations scan the
// mail their users send (amavisd-new on the outgoing relay, its
// $notify_sender_templ: Subject "VIRUS (%V) IN MAIL FROM YOU", "Our
// content checker found ... in an email to ... from you"; an Exchange or
// gateway transport rule). When it finds malware it refuses the message
// itself and writes the report in its own name: RFC 3464 section 2.2.2,
// the Reporting-MTA is a host of the sender's own domain, and no other
// server is named (ownServerRefusal). Read as a receiving server's
// verdict, such a report says "the recipient's admin can release it" and
// invites the reader to delete it as backscatter if they do not know the
// message; in fact the sender's own organisation stopped mail that came
// from the sender's computer or account, which is probably infected, and
// its admin must act.
//
// It is read so only from what the report shows, with the test of
// relayside.go: the refusing server is the Reporting-MTA (no other named)
// and a host of the sender's domain (Input.SenderDomain).

// ownScannerReading rewrites the reading v of a record refused for malware
// (ReasonVirusDetected) by the sender's own outgoing server: the
// explanation says that the sender's own organisation stopped it before it
// left, the fix says to have the computer and account checked, the owner
// is the sender's admin, and FactOwnScanner names the server.
func (e *Engine) ownScannerReading(v *Classification, rec *record, lang int) {
	if v.Reason != ReasonVirusDetected || relayRefusalSide(&rec.in) != relaySenderSide {
		return
	}
	if v.Facts.Get(FactBlockedAttachment) != "" || v.Facts.Get(FactEncryptedAttachment) != "" {
		// A scanner's policy alert (a macro document, an encrypted
		// archive: clamav_heuristics), not malware found.
		return
	}
	host, _ := refusingServer(&rec.in)
	v.Facts.v[slotIndexOf(FactOwnScanner)] = sanitize(host)
	t := e.textsFor(lang)
	vals := reportSlots(rec, &v.Facts)
	v.Owner = OwnerSenderAdmin
	v.Summary = t[textOwnScannerSummary].plain()
	v.Explanation = t[textOwnScannerExplanation].render(&vals)
	v.Fix = t[textOwnScannerFix].render(&vals)
}

// OwnScannerStopped says whether every reading of a report is a message
// stopped for malware by the sender's own outgoing scanner (see
// ownScannerReading): such a report comes from the reader's own
// organisation, so it is no backscatter, and "if you do not recognise the
// message, delete this notice" would hide an infected computer or account.
func OwnScannerStopped(readings []Reading) bool {
	for _, rd := range readings {
		if rd.Facts.Get(FactOwnScanner) == "" {
			return false
		}
	}
	return len(readings) > 0
}

// ownScannerSlots are the values the words of ownScannerReading may use.
var ownScannerSlots = setOf(slotRecipient, slotReporting, slotFact0+slot(slotIndexOf(FactVirus)), slotFact0+slot(slotIndexOf(FactFile)))
