package decide

import (
	"errors"
	"fmt"
	"mime"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// reading is a hand-written rules.Reading of one recipient record.
func reading(kind dsn.Kind, rcpt string, action smtpcode.Action, status string, reason rules.Reason, owner rules.Owner, permanent bool, summary, explanation, fix string) rules.Reading {
	r := rules.Reading{Kind: kind, Recipient: dsn.Recipient{Address: rcpt, Action: action, Status: status}}
	r.Status, r.Reason, r.Owner, r.Permanent = status, reason, owner, permanent
	if status != "" {
		r.StatusSource = rules.StatusServer // as the report gave it
	}
	r.Summary, r.Explanation, r.Fix = summary, explanation, fix
	return r
}

// bobUnknown is the reading of a 5.1.1 for bob@remote.example.
var bobUnknown = reading(dsn.KindBounce, "bob@remote.example", "failed", "5.1.1", "userunknown", rules.OwnerSender, true,
	"address does not exist",
	"The message to bob@remote.example was refused by mx.remote.example because the address does not exist.",
	"Check the address for typos.")

// bounce returns the facts of a bounce for a message we may have sent, with
// one forged X-NDR-Owner field, read as bobUnknown and judged j.
func bounce(j backscatter.Judgement, rs ...rules.Reading) Facts {
	if rs == nil {
		rs = []rules.Reading{bobUnknown}
	}
	// A report is a delay report when no recipient failed (dsn.Kind).
	rep := &dsn.Report{Kind: dsn.KindDelay}
	for _, r := range rs {
		rep.Recipients = append(rep.Recipients, r.Recipient)
		if r.Recipient.Action == "failed" {
			rep.Kind = dsn.KindBounce
		}
	}
	return Facts{
		QueueID:    "4QUEUE1",
		Recipients: []string{"alice@example.org"},
		Subject:    "Undelivered Mail Returned to Sender",
		HasSubject: true,
		Incoming:   []Header{{Name: "X-NDR-Owner", Index: 1}},
		NullSender: true,
		Report:     rep,
		Readings:   rs,
		Judgement:  j,
	}
}

var (
	judgedNo  = backscatter.Judgement{Verdict: backscatter.No, Evidence: backscatter.EvidenceMessageID}
	judgedYes = backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceMessageID}
	unknown   = backscatter.Judgement{Verdict: backscatter.Unknown, Evidence: backscatter.EvidenceLedgerError, Err: errors.New("ledger down")}
)

// The headers of a bounce for bobUnknown, byte for byte.
var (
	wantStatus = Header{Name: "X-NDR-Status", Value: "status=5.1.1; reason=userunknown; recipient=bob@remote.example;\n\tpermanent=yes; owner=sender; action=failed; status-source=server"}
	wantExpl   = Header{Name: "X-NDR-Explanation", Value: "bob@remote.example: The message to bob@remote.example was\n\trefused by mx.remote.example because the address does not exist. Check the\n\taddress for typos."}
)

func headersOf(j string) []Header {
	return []Header{
		{Name: "X-NDR-Backscatter", Value: j},
		{Name: "X-NDR-Owner", Value: "sender"},
		wantStatus,
		wantExpl,
	}
}

func TestBackscatterActionFollowsPolicyAndJudgement(t *testing.T) {
	deleteForged := []Header{{Name: "X-NDR-Owner", Index: 1}}
	for _, tc := range []struct {
		name       string
		policy     Policy
		facts      Facts
		action     Action
		reply      string
		quarantine string
		add        []Header
	}{
		{"sent from here: annotated, delivered", Policy{BackscatterAction: ActionReject}, bounce(judgedNo),
			ActionNone, "", "", headersOf("no; evidence=message-id")},
		{"cannot tell: annotated, never refused", Policy{BackscatterAction: ActionReject}, bounce(unknown),
			ActionNone, "", "", headersOf("unknown; evidence=ledger-error")},
		{"backscatter, zero policy: tagged", Policy{}, bounce(judgedYes),
			ActionTag, "", "", headersOf("yes; evidence=message-id")},
		{"backscatter, quarantine: annotated and held", Policy{BackscatterAction: ActionQuarantine}, bounce(judgedYes),
			ActionQuarantine, "", "ndrmilter: backscatter (yes; evidence=message-id)", headersOf("yes; evidence=message-id")},
		{"backscatter, reject: refused without headers", Policy{BackscatterAction: ActionReject}, bounce(judgedYes),
			ActionReject, "550 5.7.1 Rejected as backscatter: this is a bounce for a message that was not sent from here", "", nil},
		{"backscatter, discard: dropped without headers", Policy{BackscatterAction: ActionDiscard}, bounce(judgedYes),
			ActionDiscard, "", "", nil},
		{"backscatter written inside, reject: tagged instead", Policy{BackscatterAction: ActionReject},
			func() Facts { f := bounce(judgedYes); f.Inside = true; return f }(),
			ActionTag, "", "", headersOf("yes; evidence=message-id")},
		{"backscatter written inside, discard: tagged instead", Policy{BackscatterAction: ActionDiscard},
			func() Facts { f := bounce(judgedYes); f.Inside = true; return f }(),
			ActionTag, "", "", headersOf("yes; evidence=message-id")},
		{"backscatter written inside, quarantine: held", Policy{BackscatterAction: ActionQuarantine},
			func() Facts { f := bounce(judgedYes); f.Inside = true; return f }(),
			ActionQuarantine, "", "ndrmilter: backscatter (yes; evidence=message-id)", headersOf("yes; evidence=message-id")},
		{"backscatter from a non-null sender (postmaster@), reject: tagged instead", Policy{BackscatterAction: ActionReject},
			func() Facts { f := bounce(judgedYes); f.NullSender = false; return f }(),
			ActionTag, "", "", headersOf("yes; evidence=message-id")},
		{"backscatter from a non-null sender, discard: tagged instead", Policy{BackscatterAction: ActionDiscard},
			func() Facts { f := bounce(judgedYes); f.NullSender = false; return f }(),
			ActionTag, "", "", headersOf("yes; evidence=message-id")},
		{"backscatter from a non-null sender, quarantine: tagged instead", Policy{BackscatterAction: ActionQuarantine},
			func() Facts { f := bounce(judgedYes); f.NullSender = false; return f }(),
			ActionTag, "", "", headersOf("yes; evidence=message-id")},
		{"backscatter on recipient pairs only, reject: tagged instead", Policy{BackscatterAction: ActionReject},
			bounce(backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceRecipientMatch}),
			ActionTag, "", "", headersOf("yes; evidence=recipient-match")},
		{"backscatter on recipient pairs only, discard: tagged instead", Policy{BackscatterAction: ActionDiscard},
			bounce(backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceRecipientMatch}),
			ActionTag, "", "", headersOf("yes; evidence=recipient-match")},
		{"backscatter on recipient pairs only, quarantine: held", Policy{BackscatterAction: ActionQuarantine},
			bounce(backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceRecipientMatch}),
			ActionQuarantine, "", "ndrmilter: backscatter (yes; evidence=recipient-match)", headersOf("yes; evidence=recipient-match")},
		{"backscatter on a queue id of ours, reject: refused", Policy{BackscatterAction: ActionReject},
			bounce(backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceQueueID}),
			ActionReject, "550 5.7.1 Rejected as backscatter: this is a bounce for a message that was not sent from here", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Inbound(tc.policy, tc.facts)
			if out.Action != tc.action {
				t.Errorf("Action = %q, want %q", out.Action, tc.action)
			}
			reply := ""
			if out.Action == ActionReject {
				reply = out.Reply.String()
			}
			if reply != tc.reply {
				t.Errorf("Reply = %q, want %q", reply, tc.reply)
			}
			if out.Quarantine != tc.quarantine {
				t.Errorf("Quarantine = %q, want %q", out.Quarantine, tc.quarantine)
			}
			if !reflect.DeepEqual(out.Delete, deleteForged) {
				t.Errorf("Delete = %#v, want the forged X-NDR-Owner", out.Delete)
			}
			if !reflect.DeepEqual(out.Add, tc.add) {
				t.Errorf("Add =\n%#v\nwant\n%#v", out.Add, tc.add)
			}
			if out.Change != nil || out.Body != nil {
				t.Errorf("Subject or body changed with SubjectTag and BodySummary off: %#v %#v", out.Change, out.Body)
			}
			if out.Event == nil || out.Event.Action != tc.action || out.Event.Judgement != tc.facts.Judgement {
				t.Errorf("Event = %+v, want action %#v and the judgement", out.Event, tc.action)
			}
		})
	}
}

func TestMessagesThatAreNotBouncesOnlyLoseIncomingNDRHeaders(t *testing.T) {
	incoming := []Header{{Name: "X-NDR-Owner", Index: 1}, {Name: "x-ndr-status", Index: 1}, {Name: "X-NDR-Owner", Index: 2}}
	for name, rep := range map[string]*dsn.Report{
		"not read":   nil,
		"auto-reply": {Kind: dsn.KindAutoreply},
		"receipt":    {Kind: dsn.KindReceipt, Recipients: []dsn.Recipient{{Address: "bob@remote.example"}}},
		"delivered":  {Kind: dsn.KindDelivered, Recipients: []dsn.Recipient{{Address: "bob@remote.example", Action: "delivered"}}},
		"not report": {Kind: dsn.KindNone},
	} {
		t.Run(name, func(t *testing.T) {
			f := bounce(judgedYes)
			f.Report, f.Incoming = rep, incoming
			out := Inbound(Policy{BackscatterAction: ActionReject, SubjectTag: true, BodySummary: true}, f)
			want := Outcome{Action: ActionNone, Delete: []Header{incoming[2], incoming[1], incoming[0]}}
			if !reflect.DeepEqual(out, want) {
				t.Fatalf("Inbound = %+v, want %+v", out, want)
			}
		})
	}
	if out := Inbound(Policy{}, Facts{}); !reflect.DeepEqual(out, Outcome{Action: ActionNone}) {
		t.Fatalf("Inbound of nothing = %+v", out)
	}
}

func TestFailedRecipientsFirstOwnerFromTheFirst(t *testing.T) {
	delayed := reading(dsn.KindDelay, "carol@remote.example", "delayed", "4.2.2", "mailboxfull", rules.OwnerNone, false,
		"mailbox full", "Delivery of the message to carol@remote.example is delayed.", "")
	delivered := reading(dsn.KindBounce, "dave@remote.example", "delivered", "2.0.0", "delivered", rules.OwnerNone, false,
		"", "The message to dave@remote.example was delivered.", "")
	full := reading(dsn.KindBounce, "erin@remote.example", "failed", "5.2.2", "mailboxfull", rules.OwnerRecipientAdmin, true,
		"mailbox full", "The message to erin@remote.example could not be delivered because the mailbox is full.", "")
	out := Inbound(Policy{}, bounce(judgedNo, delivered, delayed, bobUnknown, full))
	var rcpts []string
	for _, h := range out.Add {
		if h.Name == "X-NDR-Status" {
			_, after, _ := strings.Cut(h.Value, "recipient=")
			rcpt, _, _ := strings.Cut(after, ";")
			rcpts = append(rcpts, rcpt)
		}
	}
	if want := "bob@remote.example erin@remote.example carol@remote.example dave@remote.example"; strings.Join(rcpts, " ") != want {
		t.Errorf("X-NDR-Status recipients in order %#v, want %#v", rcpts, want)
	}
	if out.Add[1] != (Header{Name: "X-NDR-Owner", Value: "sender"}) {
		t.Errorf("X-NDR-Owner = %#v, want the first failed recipient's owner, sender", out.Add[1])
	}
	if e := out.Event; e.FailedRecipient != "bob@remote.example" || e.Reason != "userunknown" || e.Status != "5.1.1" {
		t.Errorf("Event reading = %+v, want bob's", e)
	}
}

func TestRecipientHeadersCapped(t *testing.T) {
	var rs []rules.Reading
	for i := range 5 {
		r := bobUnknown
		r.Recipient.Address = fmt.Sprintf("user%d@remote.example", i)
		rs = append(rs, r)
	}
	out := Inbound(Policy{MaxRecipientHeaders: 2}, bounce(judgedNo, rs...))
	var status, expl []string
	for _, h := range out.Add {
		switch h.Name {
		case "X-NDR-Status":
			status = append(status, h.Value)
		case "X-NDR-Explanation":
			expl = append(expl, h.Value)
		}
	}
	if len(status) != 2 || len(expl) != 3 {
		t.Fatalf("%d X-NDR-Status and %d X-NDR-Explanation, want 2 and 3", len(status), len(expl))
	}
	if expl[2] != "3 more recipients are reported in this message and not\n\tshown here." {
		t.Errorf("last X-NDR-Explanation = %#v", expl[2])
	}
	// Exactly at the cap: no note.
	out = Inbound(Policy{MaxRecipientHeaders: 5}, bounce(judgedNo, rs...))
	if n := len(out.Add); n != 2+5+5 {
		t.Errorf("at the cap: %d headers, want 12 (no note on more recipients)", n)
	}
	// The zero Policy shows 10.
	for len(rs) < 12 {
		rs = append(rs, bobUnknown)
	}
	out = Inbound(Policy{}, bounce(judgedNo, rs...))
	if last := out.Add[len(out.Add)-1].Value; last != "2 more recipients are reported in this message and not\n\tshown here." {
		t.Errorf("zero Policy with 12 recipients: last header %#v, want 10 shown and 2 more", last)
	}
}

func TestReportWithoutRecipientsSaysNothingIsKnown(t *testing.T) {
	f := bounce(judgedNo)
	f.Readings = nil
	out := Inbound(Policy{}, f)
	want := []Header{
		{Name: "X-NDR-Backscatter", Value: "no; evidence=message-id"},
		{Name: "X-NDR-Owner", Value: "unknown"},
		{Name: "X-NDR-Status", Value: `status=none; reason=undefined; recipient=""; permanent=no;` + "\n\t" + `owner=unknown; action=""`},
		{Name: "X-NDR-Explanation", Value: "Delivery failed; no explanation is known for it."},
	}
	if !reflect.DeepEqual(out.Add, want) {
		t.Fatalf("Add =\n%#v\nwant\n%#v", out.Add, want)
	}
}

func TestHostileReadingCannotInjectHeaders(t *testing.T) {
	evil := reading(dsn.KindBounce, "x@y\r\nX-NDR-Backscatter: no", "failed", "5.1.1", "userunknown", "root", true,
		"gone\r\nBcc: z@z", "Zustellung fehlgeschlagen\r\nX-Evil: 1 — später", "")
	out := Inbound(Policy{SubjectTag: true}, bounce(judgedYes, evil))
	for _, h := range append(out.Add, out.Change...) {
		checkFolded(t, h.Name, h.Value)
		if strings.Contains(strings.ReplaceAll(h.Value, "\n\t", " "), "\n") {
			t.Errorf("%s has a line break: %#v", h.Name, h.Value)
		}
	}
	if out.Add[1].Value != "unknown" {
		t.Errorf("an owner outside the vocabulary became %#v, want unknown", out.Add[1].Value)
	}
	if !strings.Contains(strings.ReplaceAll(out.Add[2].Value, "\n\t", " "), `recipient="x@y X-NDR-Backscatter: no"`) {
		t.Errorf("X-NDR-Status = %#v, want the recipient quoted on one line", out.Add[2].Value)
	}
	dec, err := new(mime.WordDecoder).DecodeHeader(strings.ReplaceAll(out.Add[3].Value, "\n\t", " "))
	if !strings.Contains(out.Add[3].Value, "=?utf-8?") || err != nil ||
		dec != "x@y X-NDR-Backscatter: no: Zustellung fehlgeschlagen X-Evil: 1 — später" {
		t.Errorf("non-ASCII explanation not RFC 2047 encoded: %#v, decoded %q, %v", out.Add[3].Value, dec, err)
	}
	if out.Change[0].Value != "[Bounce: gone Bcc: z@z] Undelivered Mail Returned to Sender" {
		t.Errorf("Subject = %#v", out.Change[0].Value)
	}
}

func TestSubjectTag(t *testing.T) {
	noSummary := bobUnknown
	noSummary.Summary = ""
	delayed := reading(dsn.KindDelay, "carol@remote.example", "delayed", "4.4.1", "expired", rules.OwnerNone, false, "", "", "")
	for _, tc := range []struct {
		name   string
		facts  Facts
		change []Header
		add    Header // the last header added
	}{
		{"prefixed to the first Subject", bounce(judgedNo),
			[]Header{{Name: "Subject", Index: 1, Value: "[Bounce: address does not exist] Undelivered Mail Returned to Sender"}},
			Header{Name: "X-NDR-Explanation", Value: wantExpl.Value}},
		{"a folded Subject is unfolded first", func() Facts { f := bounce(judgedNo); f.Subject = "Undelivered\r\n Mail"; return f }(),
			[]Header{{Name: "Subject", Index: 1, Value: "[Bounce: address does not exist] Undelivered Mail"}},
			Header{Name: "X-NDR-Explanation", Value: wantExpl.Value}},
		{"added when there is none", func() Facts { f := bounce(judgedNo); f.HasSubject, f.Subject = false, ""; return f }(),
			nil, Header{Name: "Subject", Value: "[Bounce: address does not exist]"}},
		{"no summary: delivery failed", bounce(judgedNo, noSummary),
			[]Header{{Name: "Subject", Index: 1, Value: "[Bounce: delivery failed] Undelivered Mail Returned to Sender"}},
			Header{Name: "X-NDR-Explanation", Value: wantExpl.Value}},
		{"delay without summary: delivery delayed", bounce(judgedNo, delayed),
			[]Header{{Name: "Subject", Index: 1, Value: "[Bounce: delivery delayed] Undelivered Mail Returned to Sender"}},
			Header{Name: "X-NDR-Explanation", Value: "carol@remote.example: Delivery is delayed with status\n\t4.4.1; no explanation is known for it."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Inbound(Policy{SubjectTag: true}, tc.facts)
			if !reflect.DeepEqual(out.Change, tc.change) {
				t.Errorf("Change = %#v, want %#v", out.Change, tc.change)
			}
			if last := out.Add[len(out.Add)-1]; last != tc.add {
				t.Errorf("last header added = %#v, want %#v", last, tc.add)
			}
		})
	}
}

func TestBodySummary(t *testing.T) {
	const head = "From: MAILER-DAEMON@remote.example\r\nSubject: Undelivered\r\n"
	plainBody := "This is the mail system at host remote.example.\r\n"
	summaryNo := "[ndrmilter] What this bounce means:\r\n" +
		"bob@remote.example: The message to bob@remote.example was refused by\r\n" +
		"mx.remote.example because the address does not exist. Check the address for\r\n" +
		"typos.\r\n" +
		"The message it refers to was sent from here.\r\n--\r\n\r\n"
	for _, tc := range []struct {
		name  string
		raw   string
		trunc bool
		j     backscatter.Judgement
		want  string // "" for no new body
	}{
		{"text/plain: summary on top", head + "\r\n" + plainBody, false, judgedNo, summaryNo + plainBody},
		{"backscatter says so", head + "\r\n" + plainBody, false, judgedYes,
			strings.Replace(summaryNo, "The message it refers to was sent from here.", "This bounce is for a message that was not sent from here (backscatter).", 1) + plainBody},
		{"unknown says nothing on it", head + "\r\n" + plainBody, false, unknown,
			strings.Replace(summaryNo, "The message it refers to was sent from here.\r\n", "", 1) + plainBody},
		{"multipart: at the top of the first text part",
			head + "Content-Type: multipart/report; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n" + plainBody + "--b--\r\n", false, judgedNo,
			"--b\r\nContent-Type: text/plain\r\n\r\n" + summaryNo + plainBody + "--b--\r\n"},
		{"base64 text: left alone", head + "Content-Transfer-Encoding: base64\r\n\r\nVGhpcw==\r\n", false, judgedNo, ""},
		{"html: left alone", head + "Content-Type: text/html\r\n\r\n<p>x</p>\r\n", false, judgedNo, ""},
		{"truncated: left alone", head + "\r\n" + plainBody, true, judgedNo, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := bounce(tc.j)
			f.Raw, f.Truncated = []byte(tc.raw), tc.trunc
			out := Inbound(Policy{BodySummary: true}, f)
			if string(out.Body) != tc.want || (tc.want == "") != (out.Body == nil) {
				t.Fatalf("Body =\n%q\nwant\n%q", out.Body, tc.want)
			}
		})
	}
}

func TestEventIsWhatTheLogAndMetricsSay(t *testing.T) {
	f := bounce(unknown)
	f.Readings[0].Rule = "ms-5.1.1"
	f.QueueID = "4Q\r\nforged"
	f.ParseErr = errors.New("part cut")
	f.Truncated = true
	out := Inbound(Policy{}, f)
	e := out.Event
	want := Event{QueueID: "4Q forged", Recipients: []string{"alice@example.org"}, Kind: dsn.KindBounce, Status: "5.1.1",
		Reason: "userunknown", Owner: "sender", Rule: "ms-5.1.1", FailedRecipient: "bob@remote.example", Judgement: unknown,
		Action: ActionNone, ParseErr: f.ParseErr, Truncated: true}
	if e == nil || !reflect.DeepEqual(*e, want) {
		t.Fatalf("Event = %+v, want %+v", e, want)
	}
	var keys []string
	enc := zapcore.NewMapObjectEncoder()
	for _, fl := range e.Fields(1500*time.Microsecond, nil) {
		keys = append(keys, fl.Key)
		fl.AddTo(enc)
	}
	if got := strings.Join(keys, " "); got != "queue_id recipients kind status reason owner rule failed_recipient verdict evidence action ms ledger_error parse_error truncated" {
		t.Errorf("log fields %s", got)
	}
	if enc.Fields["ms"] != 1.5 || enc.Fields["verdict"] != "unknown" || enc.Fields["evidence"] != "ledger-error" ||
		enc.Fields["ledger_error"] != "ledger down" || enc.Fields["action"] != "none" || enc.Fields["rule"] != "ms-5.1.1" ||
		enc.Fields["failed_recipient"] != "bob@remote.example" {
		t.Errorf("log values %v", enc.Fields)
	}
	// Addresses as the site chose to log them.
	enc = zapcore.NewMapObjectEncoder()
	for _, fl := range e.Fields(0, func(a string) string { return "@" + a[strings.IndexByte(a, '@')+1:] }) {
		fl.AddTo(enc)
	}
	if enc.Fields["failed_recipient"] != "@remote.example" || fmt.Sprint(enc.Fields["recipients"]) != "[@example.org]" {
		t.Errorf("log values with addresses hidden: %v", enc.Fields)
	}
	for _, tc := range []struct {
		reason rules.Reason
		label  string
	}{
		{rules.ReasonUserUnknown, "userunknown"}, {"", "undefined"}, {"Bad Reason", "other"},
		{rules.Reason(strings.Repeat("a", 41)), "other"},
	} {
		if got := (&Event{Reason: tc.reason}).ReasonLabel(); got != tc.label {
			t.Errorf("ReasonLabel(%q) = %q, want %q", tc.reason, got, tc.label)
		}
	}
	if got := (&Event{}).RuleLabel(); got != "none" {
		t.Errorf("RuleLabel of no rule = %q, want none", got)
	}
	if got := e.RuleLabel(); got != "ms-5.1.1" {
		t.Errorf("RuleLabel = %q, want the rule's id", got)
	}
}

func TestParseAction(t *testing.T) {
	for in, want := range map[string]Action{"tag": ActionTag, " Reject ": ActionReject, "QUARANTINE": ActionQuarantine,
		"discard": ActionDiscard, "": ActionTag} {
		if got, err := ParseAction(in); got != want || err != nil {
			t.Errorf("ParseAction(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"none", "accept", "bounce"} {
		if got, err := ParseAction(in); err == nil {
			t.Errorf("ParseAction(%q) = %q, want an error", in, got)
		}
	}
}

func TestBounceSenderAndNDRHeaderNames(t *testing.T) {
	for from, want := range map[string]bool{"": true, "<>": true, "MAILER-DAEMON@remote.example": true, "<postmaster@x.example>": true,
		"mail-daemon@x": true, "mailerdaemon@x": true, "alice@example.org": false, "postmaster-bot@x.example": false} {
		if got := BounceSender(from); got != want {
			t.Errorf("BounceSender(%q) = %v, want %v", from, got, want)
		}
	}
	for name, want := range map[string]bool{"X-NDR-Owner": true, "x-ndr-anything": true, "X-Ndr-": true, "X-NDR": false, "Subject": false} {
		if got := IsNDRHeader(name); got != want {
			t.Errorf("IsNDRHeader(%q) = %v, want %v", name, got, want)
		}
	}
}
