package dsn

import (
	"slices"
	"testing"
)

// recipientAddresses returns the addresses of a report's recipients.
func recipientAddresses(r *Report) []string {
	var out []string
	for _, rc := range r.Recipients {
		out = append(out, rc.Address)
	}
	return out
}

// checkRecipients checks that a text notice reports exactly the want
// addresses, in order.
func checkRecipients(t *testing.T, name string, raw []byte, want ...string) {
	t.Helper()
	r := mustParse(t, raw)
	if got := recipientAddresses(r); r.Kind != KindBounce || !slices.Equal(got, want) {
		t.Errorf("%s: kind %q recipients %q, want a bounce of %q", name, r.Kind, got, want)
	}
}

const noticeHeader = "From: Mail Delivery System <MAILER-DAEMON@gw.corp.example>\nTo: a.sender@example.org\nSubject: Undeliverable mail\n"

func TestAnAddressInTheClosingSignatureIsNoFailedRecipient(t *testing.T) {
	for name, body := range map[string]string{
		"rule then department and postmaster (Japanese gateway)": "以下の宛先に配信できませんでした。\n\n宛先: k.yamada@corp.example\n理由: 550 5.2.1 <k.yamada@corp.example>: このメールボックスは現在利用停止中です\n\n" +
			"----------------------------------------------------------------------\n関西精密工業株式会社 情報システム課\npostmaster@corp.example\n",
		"RFC 3676 signature separator":            "Your message could not be delivered to the following recipient:\n\n<k.yamada@corp.example>: 550 5.1.1 User unknown\n\n-- \nIT Service Desk\n<servicedesk@corp.example>\n",
		"signature separator without its space":   "Your message could not be delivered to the following recipient:\n\n<k.yamada@corp.example>: 550 5.1.1 User unknown\n\n--\nservicedesk@corp.example\n",
		"rule then a name and a labelled address": "Delivery failed:\n\nRecipient: k.yamada@corp.example\nReason: 552 5.2.2 Mailbox full\n\n==========\nMail team, Corp Ltd.\nE-mail address: mailteam@corp.example\nTel. +81 6 0000 0000\n",
	} {
		checkRecipients(t, name, rawMessage(noticeHeader, body), "k.yamada@corp.example")
	}
}

func TestAnAddressIntroducedByContactWordingIsNoFailedRecipient(t *testing.T) {
	for name, body := range map[string]string{
		"german line above":        "Ihre Nachricht konnte nicht zugestellt werden.\n\nEmpfänger: s.brunner@corp.example\nGrund: 550 5.2.2 Postfach voll\n\nBei Fragen wenden Sie sich bitte an:\n<informatik@corp.example>\n",
		"japanese label above":     "配信できませんでした。\n\n宛先: k.yamada@corp.example\n理由: 550 5.1.1 User unknown\n\nお問い合わせ先:\n<joho@corp.example>\n",
		"french line above":        "Votre message n'a pas pu être remis.\n\n<j.petit@corp.example>: 550 5.1.1 Utilisateur inconnu\n\nPour toute question, contactez :\n<support-messagerie@corp.example>\n",
		"english on the same line": "Your message could not be delivered.\n\n<k.yamada@corp.example>: 550 5.1.1 User unknown\n\nIf you have questions about the delivery to this recipient, contact helpdesk@corp.example.\n",
	} {
		checkRecipients(t, name, rawMessage(noticeHeader, body), recipientOf(name))
	}
}

// recipientOf returns the failed recipient of a case of
// TestAnAddressIntroducedByContactWordingIsNoFailedRecipient.
func recipientOf(name string) string {
	switch name {
	case "german line above":
		return "s.brunner@corp.example"
	case "french line above":
		return "j.petit@corp.example"
	}
	return "k.yamada@corp.example"
}

func TestARoleMailboxOfTheReportingDomainAloneIsNoFailedRecipient(t *testing.T) {
	checkRecipients(t, "postmaster alone at the end", rawMessage(noticeHeader,
		"Su mensaje no se pudo entregar:\n\n<a.ibanez@corp.example>: 550 5.1.1 El usuario no existe\n\nSi cree que es un error, escriba al administrador:\n\npostmaster@corp.example\n"),
		"a.ibanez@corp.example")
	// Of another domain, it is no contact of the reporter: it stays.
	checkRecipients(t, "postmaster of another domain", rawMessage(noticeHeader,
		"Your message could not be delivered:\n\n<a.ibanez@corp.example>: 550 5.1.1 User unknown\n\n<postmaster@elsewhere.example>: 550 5.1.1 User unknown\n"),
		"a.ibanez@corp.example", "postmaster@elsewhere.example")
}

func TestARoleMailboxNamedWithAFailureIsARecipient(t *testing.T) {
	checkRecipients(t, "qmail", rawMessage("From: MAILER-DAEMON@mail.corp.example\nTo: a.sender@example.org\nSubject: failure notice\n",
		"Hi. This is the qmail-send program at mail.corp.example.\nI'm afraid I wasn't able to deliver your message to the following addresses.\nThis is a permanent error; I've given up. Sorry it didn't work out.\n\n"+
			"<postmaster@corp.example>:\nSorry, no mailbox here by that name. (#5.1.1)\n\n<k.berg@corp.example>:\nSorry, no mailbox here by that name. (#5.1.1)\n"),
		"postmaster@corp.example", "k.berg@corp.example")
	checkRecipients(t, "listed alike with another (Exim groups them)", rawMessage(noticeHeader,
		"A message that you sent could not be delivered to one or more of its\nrecipients. The following address(es) failed:\n\n  k.berg@corp.example\n  postmaster@corp.example\n    550 5.1.1 User unknown\n"),
		"k.berg@corp.example", "postmaster@corp.example")
}

func TestAddressesListedUnderARuleAreNoSignature(t *testing.T) {
	checkRecipients(t, "list under a rule", rawMessage(noticeHeader,
		"550 5.1.1 The following recipients could not be reached\n------------------------------\n<k.berg@corp.example>\n<l.ohm@corp.example>\n"),
		"k.berg@corp.example", "l.ohm@corp.example")
}

func TestAHelpSentenceEndingAParagraphMakesNoContactOfTheNextRecipient(t *testing.T) {
	para := "The e-mail address you entered couldn't be found. Please check the recipient's e-mail address and try to resend the message. If the problem continues, please contact your helpdesk.\n"
	checkRecipients(t, "exchange 2007 list", rawMessage("From: postmaster@corp.example\nTo: a.sender@example.org\nSubject: Undeliverable: Plans\n",
		"Delivery has failed to these recipients or groups:\n\nk.berg@corp.example\n"+para+"\npostmaster@corp.example\n"+para+"\nl.ohm@corp.example\n"+para+
			"\n\n\nDiagnostic information for administrators:\n\nGenerating server: ex1.corp.example\n\nk.berg@corp.example\n#550 5.1.1 RESOLVER.ADR.RecipNotFound; not found ##\n"),
		"k.berg@corp.example", "postmaster@corp.example", "l.ohm@corp.example")
}
