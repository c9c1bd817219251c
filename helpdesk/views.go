package helpdesk

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/ledger"
	"github.com/ndrmilter/ndrmilter/rules"
)

// maxShown bounds the recipients the page shows of one report.
const maxShown = 50

// explainedView is a read message.
type explainedView struct {
	Kind       string
	Verdict    *verdictView
	Recipients []recipientView
	More       int // recipients not shown
}

// verdictView is the backscatter verdict.
type verdictView struct {
	Verdict  backscatter.Verdict
	Evidence backscatter.Evidence
}

// recipientView is one record.
type recipientView struct {
	explanation.Judged
	Failed     bool
	Owner      ownerView
	StatusText string // "5.1.1 (permanent)", in the reader's language
	Reply      string
}

// codeView is a read code.
type codeView struct {
	explanation.CodeRecord
	Owner      ownerView
	StatusText string
}

// ownerView is the fix-it owner graphic: three steps, sender, the sender's
// admin, the recipient's side; the one who must act is marked.
type ownerView struct {
	Steps    []ownerStep
	Acting   string // the acting step's name, for the list's label; "" for none
	Sentence string // the owner, or "nofailure": the catalog's owner.X
}

// ownerStep is one party of the graphic: Step and Note name catalog texts
// (owner.step.STEP, owner.step.NOTE_note).
type ownerStep struct {
	Step   string
	Note   string
	Acting bool
}

// newOwnerView draws the graphic for owner o; text gives the catalog's words
// for the label.
func newOwnerView(o rules.Owner, failed bool, text func(id string, args ...any) string) ownerView {
	recipientNote := "recipient"
	switch o {
	case rules.OwnerRecipientAdmin, rules.OwnerGroupOwner:
		recipientNote = string(o)
	case rules.OwnerRecipient:
		// "owner.step.recipient_note" names the recipient's side as a
		// whole; the recipient in person has a note of their own.
		recipientNote = "recipient-self"
	}
	v := ownerView{Steps: []ownerStep{
		{Step: "sender", Note: "sender", Acting: o == rules.OwnerSender},
		{Step: "sender-admin", Note: "sender-admin", Acting: o == rules.OwnerSenderAdmin},
		{Step: "recipient", Note: recipientNote, Acting: o == rules.OwnerRecipient || o == rules.OwnerRecipientAdmin || o == rules.OwnerGroupOwner},
	}}
	if !failed {
		for i := range v.Steps {
			v.Steps[i].Acting = false
		}
		v.Sentence = "nofailure"
		return v
	}
	v.Sentence = string(o)
	if !o.Valid() {
		v.Sentence = string(rules.OwnerUnknown)
	}
	for _, s := range v.Steps {
		if s.Acting {
			v.Acting = text("owner.step."+s.Step) + " (" + text("owner.step."+s.Note+"_note") + ")"
		}
	}
	return v
}

// statusText is a status code with "(permanent)" or "(temporary)".
func statusText(status string, permanent bool, text func(id string, args ...any) string) string {
	if status == "" {
		return ""
	}
	return text("value."+string(explanation.StatusClassOf(status, permanent)), "status", status)
}

// newExplainedView is the view of the records of one message.
func newExplainedView(recs []explanation.Judged, text func(id string, args ...any) string) *explainedView {
	v := &explainedView{Kind: "not-bounce"}
	if len(recs) == 0 {
		return v
	}
	// The report's kind is that of its most significant record, which
	// the records all carry (dsn.Report.Kind is not in them): the first
	// failed, else the first.
	v.Kind = recs[0].Kind
	for _, r := range recs {
		if r.Failed() {
			v.Kind = r.Kind
			break
		}
	}
	if recs[0].Backscatter != "" {
		v.Verdict = &verdictView{Verdict: recs[0].Backscatter, Evidence: recs[0].BackscatterEvidence}
	}
	for i, r := range recs {
		if i == maxShown {
			v.More = len(recs) - maxShown
			break
		}
		failed := r.Failed()
		reply := explanation.SMTPResponse(r.Reply, r.Diagnostic)
		if reply == strings.TrimSpace(r.Diagnostic) {
			reply = "" // the diagnostic says it, below
		}
		v.Recipients = append(v.Recipients, recipientView{
			Judged:     r,
			Failed:     failed,
			Owner:      newOwnerView(r.Owner, failed || ownerActs(r.Owner), text),
			StatusText: statusText(r.Status, r.Permanent, text),
			Reply:      reply,
		})
	}
	return v
}

// lookupView is a ledger lookup.
type lookupView struct {
	ID    string
	Found bool
	ledger.Record
	TimeISO  string
	TimeText string
}

// RecipientList is the recipients, comma-separated.
func (v *lookupView) RecipientList() string { return strings.Join(v.Recipients, ", ") }

func newLookupView(id string, r ledger.Record, found bool) *lookupView {
	v := &lookupView{ID: id, Found: found, Record: r}
	if found {
		v.TimeISO = r.Time.UTC().Format(time.RFC3339)
		v.TimeText = r.Time.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return v
}

func toString(a any) string {
	if s, ok := a.(string); ok {
		return s
	}
	return fmt.Sprint(a)
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// ownerActs says whether a notice that reports no failure still names
// someone to act (a challenge-response filter's challenge: the sender).
func ownerActs(o rules.Owner) bool {
	return o != "" && o != rules.OwnerNone && o != rules.OwnerUnknown
}
