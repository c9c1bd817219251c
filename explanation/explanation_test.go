package explanation_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/explanation"
	"github.com/ndrmilter/ndrmilter/rules"
)

func TestParseCodeQueryAcceptsCodesAndReplyLinesOnly(t *testing.T) {
	for _, q := range []string{"5.7.509", " 550 ", "550 5.7.26 Unauthenticated email", "Diagnostic-Code: smtp; 550 5.1.1 no such user", "4.4.7", "421-busy"} {
		if _, err := explanation.ParseCodeQuery(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	for _, c := range []struct {
		q    string
		want error
	}{{"", explanation.ErrNoCode}, {"  ", explanation.ErrNoCode}, {"hello", explanation.ErrNotACode}, {"999 no", explanation.ErrNotACode},
		{"5.7", explanation.ErrNotACode}, {"From: a@b", explanation.ErrNotACode}} {
		if _, err := explanation.ParseCodeQuery(c.q); !errors.Is(err, c.want) {
			t.Errorf("%q: %v; want %v", c.q, err, c.want)
		}
	}
}

func TestJudgedRecordCarriesTheVerdictOnlyWhenJudged(t *testing.T) {
	raw := "From: MAILER-DAEMON@mx.example\r\nTo: a@example.org\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=B\r\n\r\n--B\r\nContent-Type: message/delivery-status\r\n\r\n" +
		"Reporting-MTA: dns; mx.example\r\n\r\nFinal-Recipient: rfc822; b@remote.example\r\nAction: failed\r\nStatus: 5.2.2\r\n\r\n--B--\r\n"
	rep, _ := dsn.Parse([]byte(raw))
	eng, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	recs := explanation.Records("x.eml", rep, eng.Explain(rep))
	if len(recs) != 1 || recs[0].Recipient != "b@remote.example" || recs[0].Status != "5.2.2" || recs[0].File != "x.eml" || !recs[0].Failed() {
		t.Fatalf("records: %+v", recs)
	}
	b, _ := json.Marshal(explanation.Judged{Record: recs[0]})
	if strings.Contains(string(b), "backscatter") {
		t.Errorf("a record not judged has a verdict: %s", b)
	}
	b, _ = json.Marshal(explanation.Judged{Record: recs[0], Backscatter: backscatter.No, BackscatterEvidence: backscatter.EvidenceMessageID})
	if !strings.Contains(string(b), `"backscatter":"no","backscatter_evidence":"message-id"`) || !strings.Contains(string(b), `"status":"5.2.2"`) {
		t.Errorf("a judged record: %s", b)
	}
}

func ExampleParseCodeQuery() {
	eng, _ := rules.Load()
	q, err := explanation.ParseCodeQuery("550 5.7.509 Access denied")
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := q.Lookup(eng)
	fmt.Println(rec.Status, rec.Owner)
	_, err = explanation.ParseCodeQuery("hello")
	fmt.Println(errors.Is(err, explanation.ErrNotACode))
	// Output:
	// 5.7.509 sender-admin
	// true
}

// TestRecordNamesTheAddressWrittenOnlyWhenItDiffers: original_recipient is
// left out when it is the recipient but for case; forwarded_to comes with a
// forward on the recipient's side.
func TestRecordNamesTheAddressWrittenOnlyWhenItDiffers(t *testing.T) {
	r := &dsn.Report{Kind: dsn.KindBounce}
	same := rules.Reading{Kind: dsn.KindBounce, Recipient: dsn.Recipient{Address: "Bo@example.net", OriginalRecipient: "bo@example.net"}}
	b, _ := json.Marshal(explanation.NewRecord("", r, same))
	if strings.Contains(string(b), "original_recipient") || strings.Contains(string(b), "forwarded_to") {
		t.Errorf("same address but for case: %s", b)
	}
	fwd := rules.Reading{Kind: dsn.KindBounce, Recipient: dsn.Recipient{Address: "bo@example.net", OriginalRecipient: "info@example.org"},
		ForwardedFrom: "info@example.org", ForwardedTo: "bo@example.net"}
	rec := explanation.NewRecord("", r, fwd)
	if rec.Recipient != "bo@example.net" || rec.OriginalRecipient != "info@example.org" || rec.ForwardedTo != "bo@example.net" {
		t.Errorf("forward: recipient %q original %q forwarded_to %q", rec.Recipient, rec.OriginalRecipient, rec.ForwardedTo)
	}
}
