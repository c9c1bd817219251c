package rules

import (
	"strings"

	"github.com/ndrmilter/ndrmilter/internal/ascii"
)

// An automatic reply set on the mailbox of someone who has left the
// organization, or on an address nobody reads any more, differs from an
// out-of-office notice: the message was delivered, but it will likely not
// be read, and the sender should write to the contact the reply names.
// Organizations set such replies on a former employee's mailbox (Microsoft
// 365 admin documentation, "Access and back up the data for a former
// user"); the wordings below are the ones such replies use, in the
// languages the notices come in (dsn/foreignlabels.go), each naming the
// departure or the unread address, never a temporary absence ("has left
// the office" is not among them).

// departedPhrases are lower-case phrases of such replies.
var departedPhrases = [...]string{
	// English.
	"no longer with the company", "no longer with our company", "no longer with the firm",
	"no longer with the organization", "no longer with the organisation", "no longer employed",
	"no longer works for", "no longer working for", "no longer works at", "no longer working at",
	"has left the company", "has left the organization", "has left the organisation", "has left the firm",
	"has left our company", "left the company", "this mailbox is no longer monitored",
	"this address is no longer monitored", "this email address is no longer monitored",
	"this e-mail address is no longer monitored", "this mailbox is not monitored",
	"this address is no longer in use", "this email address is no longer in use",
	// German.
	"nicht mehr im unternehmen", "nicht mehr in unserem unternehmen", "nicht mehr für uns tätig",
	"nicht mehr bei uns tätig", "nicht mehr bei uns beschäftigt", "hat das unternehmen verlassen",
	"hat unser unternehmen verlassen", "dieses postfach wird nicht mehr", "diese adresse wird nicht mehr",
	// French.
	"ne fait plus partie de", "ne travaille plus", "a quitté la société", "a quitté l'entreprise",
	"a quitté notre société", "cette adresse n'est plus", "cette boîte n'est plus",
	// Spanish.
	"ya no trabaja", "ya no forma parte", "ha dejado la empresa", "ya no pertenece a",
	"esta dirección ya no", "este buzón ya no",
	// Dutch.
	"niet meer werkzaam", "is niet langer werkzaam", "heeft het bedrijf verlaten", "uit dienst",
	"dit adres wordt niet meer", "deze mailbox wordt niet meer",
	// Italian and Portuguese.
	"non lavora più", "non fa più parte", "ha lasciato l'azienda", "não trabalha mais",
	"não faz mais parte", "deixou a empresa",
	// Japanese.
	"退職いたしました", "退職しました", "退社いたしました", "退社しました", "在籍しておりません",
}

// maxDepartedScan is how much of a notice departed reads: the reply's
// first paragraphs say it, a quoted original after them does not count.
const maxDepartedScan = 2048

// departed says whether the text of an automatic reply says that the
// person has left or that the address is no longer read.
func departed(notice string) bool {
	if len(notice) > maxDepartedScan {
		notice = notice[:maxDepartedScan]
	}
	low := ascii.LowerString(strings.Join(strings.Fields(notice), " "))
	for _, p := range departedPhrases {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}
