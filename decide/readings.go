package decide

import (
	"golang.org/x/text/language"

	"github.com/ndrmilter/ndrmilter/catalog"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/internal/textclean"
	"github.com/ndrmilter/ndrmilter/rules"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// pickReadings returns the readings to show, failed first then delayed
// then the rest, each group in report order, at most max. With none, it
// returns one reading that says nothing is known: a report is never shown
// without an owner.
func pickReadings(rs []rules.Reading, max int) []rules.Reading {
	out := make([]rules.Reading, 0, min(len(rs), max))
	for _, group := range []int{0, 1, 2} {
		for _, r := range rs {
			g := 2
			switch r.Recipient.Action {
			case smtpcode.ActionFailed:
				g = 0
			case smtpcode.ActionDelayed:
				g = 1
			}
			if g == group && len(out) < max {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		var unknown rules.Reading
		unknown.Owner, unknown.Reason = rules.OwnerUnknown, rules.ReasonUndefined
		out = append(out, unknown)
	}
	return out
}

// validOwner is o when it is one of the owner vocabulary, else unknown: an
// owner goes into a header and a metric label as it is.
func validOwner(o rules.Owner) rules.Owner {
	if o.Valid() {
		return o
	}
	return rules.OwnerUnknown
}

// statusOf is the X-NDR-Status value of one reading (see the package
// documentation for its parameters).
func statusOf(r rules.Reading) string {
	st, src := r.Status, string(r.StatusSource)
	if st == "" {
		st, src = "none", ""
	}
	kv := []string{"status", st, "reason", string(r.Reason), "recipient", r.Recipient.Address,
		"permanent", yesNo(r.Permanent), "owner", string(validOwner(r.Owner)), "action", string(r.Recipient.Action)}
	if src != "" {
		// A code the server did not give (a pseudo-code for the reason, or
		// one completed from a bare reply code) says so, so that a filter
		// on status= can tell what the receiving server really said.
		kv = append(kv, "status-source", src)
	}
	return statusValue(kv...)
}

// explanation is the X-NDR-Explanation text of one reading, one line of
// printable UTF-8 in language lang (the reading's words are in it already):
// the recipient, what happened and what to do.
func explanation(r rules.Reading, lang language.Tag) string {
	text := textclean.Line(r.Explanation, maxText)
	if text == "" {
		id := "header.failed"
		if r.Recipient.Action == smtpcode.ActionDelayed {
			id = "header.delayed"
		}
		if r.Status != "" {
			id += "_status"
		}
		text = catalog.Default().Text(lang, id, "status", textclean.Line(r.Status, 16))
	}
	if fix := textclean.Line(r.Fix, maxText); fix != "" {
		text += " " + fix
	}
	if a := textclean.Line(r.Recipient.Address, 320); a != "" {
		text = a + ": " + text
	}
	return text
}

// subjectTag is the "[Bounce: summary]" prefix of the Subject, from the
// reading shown first, in language lang.
func subjectTag(kind dsn.Kind, win rules.Reading, lang language.Tag) string {
	cat := catalog.Default()
	summary := textclean.Line(win.Summary, 80)
	if summary == "" {
		summary = cat.Text(lang, "header.subject_failed")
		if kind == dsn.KindDelay {
			summary = cat.Text(lang, "header.subject_delayed")
		}
	}
	return cat.Text(lang, "header.subject_tag", "summary", summary)
}
