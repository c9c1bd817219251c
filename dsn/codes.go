package dsn

import "github.com/ndrmilter/ndrmilter/smtpcode"

// The status of a recipient record, from its Status field and its
// diagnostic text. What a code is, and which code a text gives, is package
// smtpcode's.

// recordStatus returns the enhanced status code of a record whose Status
// field is field ("" when none) and whose diagnostic is diag. The server's
// own reply is more precise than the reporting MTA's summary in the Status
// field: Sendmail writes 4.4.7 over a "450 4.7.1" refusal, and "554 4.4.7
// Message expired <421 4.4.2 Connection timed out>" has the cause under the
// expiry. So a precise field gives way to the code right after the reply
// code when that code differs and is not generic; a missing or generic
// (X.0.0) field gives way to any code of the text that says more.
//
// A failure's field never gives way to a success code of the text (a
// version number, "X-Mailman-Version: 2.1.12", or a transcript's "250
// 2.1.0 Ok").
func recordStatus(diag, field string) string {
	switch {
	case field == "":
		return smtpcode.FindStatus(diag)
	case genericStatus(field):
		if c := smtpcode.FindStatus(diag); c != "" && !genericStatus(c) && sameOutcome(c, field) {
			return c
		}
	default:
		if c := smtpcode.StatusAfterReply(diag); c != "" && !genericStatus(c) && sameOutcome(c, field) && !vaguerDetail(c, field) {
			return c
		}
	}
	return field
}

// vaguerDetail says whether code c is the "other or undefined" detail
// (X.S.0, RFC 3463 section 3) of the subject of field, a precise code of
// that subject: "451 4.4.0 Primary target IP address responded with ..."
// under Exchange's "Status: 4.4.7" says no more than the field.
func vaguerDetail(c, field string) bool {
	return len(c) == 5 && len(field) >= 5 && c[1:] == field[1:4]+"0" && field[4:] != "0"
}

// sameOutcome says whether two codes both say success or both failure:
// a code of class 2 and one of class 4 or 5 do not.
func sameOutcome(a, b string) bool {
	return (a[0] == '2') == (b[0] == '2')
}

// genericStatus says whether code is an enhanced status code X.0.0.
func genericStatus(code string) bool {
	if !smtpcode.IsStatus(code) {
		return false // checked first: the error of ParseStatus allocates
	}
	st, _ := smtpcode.ParseStatus(code)
	return st.Generic()
}
