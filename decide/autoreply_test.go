package decide

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
)

// autoReplyFacts is an automatic reply from bob, judged j.
func autoReplyFacts(j backscatter.Judgement) Facts {
	return Facts{Recipients: []string{"alice@example.org"}, AutoReply: true, Judgement: j,
		Report: &dsn.Report{Kind: dsn.KindAutoreply, Recipients: []dsn.Recipient{{Address: "bob@remote.example"}}}}
}

func TestAutoReplyHeadersAndActions(t *testing.T) {
	yesIRT := backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceInReplyTo}
	learned := backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceNeverSends, Learned: true}
	no := backscatter.Judgement{Verdict: backscatter.No, Evidence: backscatter.EvidenceInReplyTo}
	inside := autoReplyFacts(yesIRT)
	inside.Inside = true
	for _, tc := range []struct {
		name string
		p    Policy
		f    Facts
		want Action
	}{
		{"not backscatter: no action", Policy{AutoReplyAction: ActionDiscard}, autoReplyFacts(no), ActionNone},
		{"backscatter, default: tagged", Policy{}, autoReplyFacts(yesIRT), ActionTag},
		{"backscatter, quarantine", Policy{AutoReplyAction: ActionQuarantine}, autoReplyFacts(yesIRT), ActionQuarantine},
		{"backscatter on what it answers, discard", Policy{AutoReplyAction: ActionDiscard}, autoReplyFacts(yesIRT), ActionDiscard},
		{"a learned receive-only address, discard: tagged", Policy{AutoReplyAction: ActionDiscard}, autoReplyFacts(learned), ActionTag},
		{"written inside, discard: tagged", Policy{AutoReplyAction: ActionDiscard}, inside, ActionTag},
		{"reject (never configured): tagged", Policy{AutoReplyAction: ActionReject}, autoReplyFacts(yesIRT), ActionTag},
		{"the bounce action does not apply", Policy{BackscatterAction: ActionReject}, autoReplyFacts(yesIRT), ActionTag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Inbound(tc.p, tc.f)
			if out.Action != tc.want {
				t.Fatalf("action %s, want %s", out.Action, tc.want)
			}
			if out.Action == ActionDiscard {
				if len(out.Add) != 0 {
					t.Fatalf("a discarded auto-reply gets headers %+v", out.Add)
				}
				return
			}
			var names []string
			for _, h := range out.Add {
				names = append(names, h.Name+": "+h.Value)
			}
			want := "X-NDR-Backscatter: " + tc.f.Judgement.String() + "|X-NDR-Status: kind=autoreply; recipient=bob@remote.example"
			if got := strings.Join(names, "|"); got != want {
				t.Fatalf("headers %q, want %q", got, want)
			}
		})
	}
	// Without the AutoReply fact (a person's message the words made an
	// auto-reply), nothing is added.
	f := autoReplyFacts(yesIRT)
	f.AutoReply = false
	if out := Inbound(Policy{}, f); len(out.Add) != 0 || out.Event != nil {
		t.Fatalf("an unmarked auto-reply got %+v", out)
	}
}

func TestParseAutoReplyActionRefusesReject(t *testing.T) {
	for in, want := range map[string]Action{"": ActionTag, "Tag": ActionTag, "quarantine": ActionQuarantine, "discard": ActionDiscard} {
		if got, err := ParseAutoReplyAction(in); err != nil || got != want {
			t.Errorf("ParseAutoReplyAction(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"reject", "bounce"} {
		if _, err := ParseAutoReplyAction(in); err == nil {
			t.Errorf("ParseAutoReplyAction(%q) accepted", in)
		}
	}
}
