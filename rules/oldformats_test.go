package rules

import "testing"

// An X.400 gateway's non-delivery report states the X.411 diagnostic in
// words and no SMTP code; RFC 2156 maps each to a DSN status, so each names
// its reason however it is written (spaces, hyphens, the ASN.1 name).
func TestX400DiagnosticsNameTheirReason(t *testing.T) {
	checkFamilies(t, []family{
		{diag: "Reason: Unable to transfer Diagnostic: Unrecognised O/R name", reason: "userunknown"},
		{diag: "x400; 1 unable-to-transfer (unrecognized-OR-name)", reason: "userunknown"},
		{diag: "Reason: Unable to transfer Diagnostic: Maximum time expired", reason: "expired"},
		{diag: "non-delivery: unable-to-transfer, loop-detected", reason: "networkerror"},
		{diag: "Diagnostic: content-too-long", reason: "mesgtoobig"},
		{diag: "Reason: Conversion not performed Diagnostic: encoded-information-types-unsupported", reason: "contenterror"},
	})
}

// Exchange 2000/2003 word their 5.4.6 loop as "A configuration error ...
// caused the message to bounce between two servers": a loop, with or
// without the code, though "configuration error" alone is a system error.
func TestExchange2003LoopTextIsANetworkErrorNotASystemError(t *testing.T) {
	const text = "A configuration error in the e-mail system caused the message to bounce between two servers or to be split into too many parts. Check the recipient addresses, or contact your system administrator."
	checkFamilies(t, []family{
		{diag: text + " <mail.example.net #5.4.6>", status: "5.4.6", reason: "networkerror"},
		{diag: text, reason: "networkerror"},
		{diag: "550 configuration error on the mail server", reason: "systemerror"},
	})
}

// Post.Office and the Netscape Messaging Server say an unknown domain as "the
// destination computer was not found"; a permanent failure, so hostunknown.
func TestDestinationComputerNotFoundIsAnUnknownHost(t *testing.T) {
	checkFamilies(t, []family{
		{diag: "Your message was not delivered because the destination computer was not found. Carefully check that it was spelled correctly. Host example-gone.org not found", reason: "hostunknown"},
		{diag: "Your message was not delivered because the destination computer was not reachable within the allowed queue period.", reason: "expired"},
	})
}

// CompuServe's notices name an unknown member ID with their own labels, at
// no SMTP stage: an unknown user.
func TestCompuServeReceiverNotFoundIsAnUnknownUser(t *testing.T) {
	checkFamilies(t, []family{
		{diag: "Receiver not found: 71234.567 Your message could not be delivered as addressed.", reason: "userunknown"},
		{diag: "Invalid receiver address: 76543.210", reason: "userunknown"},
	})
}

// IronPort's default answer to a recipient its LDAP Accept query does not
// find is an unknown address, worded as such, not Microsoft's 5.1.0 reading
// (an address that could not be resolved in a reply to a saved message).
func TestIronPortAddressRejectedIsAnUnknownAddressNotMicrosofts510(t *testing.T) {
	e := builtin(t)
	v := e.Classify(Input{Action: "failed", Status: "5.1.0", Diagnostic: "550 #5.1.0 Address rejected.", Command: "RCPT"})
	if v.Reason != "userunknown" || v.Rule != "ironport-ldap-accept-rejected" {
		t.Errorf("reason %s (rule %s), want userunknown from ironport-ldap-accept-rejected", v.Reason, v.Rule)
	}
	ms := e.Classify(Input{Action: "failed", Status: "5.1.0", Diagnostic: "550 5.1.0 Sender denied", Command: "RCPT"})
	if ms.Rule == "ironport-ldap-accept-rejected" {
		t.Errorf("a plain 5.1.0 without IronPort's words was read by the IronPort rule")
	}
}

// The Domino router's errors about the recipient's own Directory entry (no
// usable mail file, several entries for one name) are the receiving
// organisation's to fix, not an unknown address or an undetermined failure.
func TestDominoDirectoryEntryErrorsAreTheRecipientAdmins(t *testing.T) {
	e := builtin(t)
	for _, diag := range []string{
		"550 5.0.0 Recipient's Domino Directory entry does not specify a valid Notes mail file",
		"Recipient's Domino Directory entry does not specify a valid Notes mail file",
		"Several matches found in Domino Directory",
	} {
		v := e.Classify(Input{Action: "failed", Diagnostic: diag})
		if v.Reason != "systemerror" || v.Owner != OwnerRecipientAdmin {
			t.Errorf("%q: reason %q owner %q (rule %s), want systemerror, recipient-admin", diag, v.Reason, v.Owner, v.Rule)
		}
	}
}
