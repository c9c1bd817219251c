package decide_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/ndrmilter/ndrmilter/backscatter"
	"github.com/ndrmilter/ndrmilter/decide"
	"github.com/ndrmilter/ndrmilter/dsn"
	"github.com/ndrmilter/ndrmilter/rules"
)

// raw is a bounce as a front end keeps it (header and body), with an
// X-NDR-Owner field forged by whoever sent it.
var raw = []byte(strings.ReplaceAll(`X-NDR-Owner: none
From: MAILER-DAEMON@mx.remote.example
To: alice@example.org
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b"

--b
Content-Type: text/plain

Your message could not be delivered.

--b
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.remote.example

Final-Recipient: rfc822; bob@remote.example
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <bob@remote.example>: User unknown

--b
Content-Type: text/rfc822-headers

From: alice@example.org
Message-ID: <q4-figures.1234@example.org>

--b--
`, "\n", "\r\n"))

// A front end gathers the facts of a message at its end of data (here a
// bounce for a message that was sent from here), reads it (dsn), explains it
// (rules), judges it (backscatter.Judge; here its result), and applies what
// Inbound decides.
func Example() {
	eng, err := rules.Load()
	if err != nil {
		log.Fatal(err)
	}
	rep, perr := dsn.Parse(raw)
	f := decide.Facts{
		QueueID:    "4dLm2x0Q1Rz9",
		Recipients: []string{"alice@example.org"},
		Subject:    "Undelivered Mail Returned to Sender",
		HasSubject: true,
		Incoming:   []decide.Header{{Name: "X-NDR-Owner", Index: 1}},
		Raw:        raw,
	}
	if decide.Annotates(rep) {
		f.Report, f.ParseErr = rep, perr
		f.Readings = eng.Explain(rep)
		f.Judgement = backscatter.Judgement{Verdict: backscatter.No, Evidence: backscatter.EvidenceMessageID}
	}

	out := decide.Inbound(decide.Policy{BackscatterAction: decide.ActionReject}, f)

	fmt.Println("action:", out.Action)
	for _, h := range out.Delete {
		fmt.Printf("delete %s #%d\n", h.Name, h.Index)
	}
	for _, h := range out.Add {
		if h.Name != "X-NDR-Explanation" { // the rules' English, left out here
			fmt.Printf("add %s: %s\n", h.Name, h.Value)
		}
	}
	// Output:
	// action: none
	// delete X-NDR-Owner #1
	// add X-NDR-Backscatter: no; evidence=message-id
	// add X-NDR-Owner: sender
	// add X-NDR-Status: status=5.1.1; reason=userunknown; recipient=bob@remote.example;
	//	permanent=yes; owner=sender; action=failed; status-source=server
}

// A bounce judged backscatter, with the policy to reject it: the front end
// refuses it at the end of data with Outcome.Reply and adds no headers.
func Example_reject() {
	rep, _ := dsn.Parse(raw)
	eng, err := rules.Load()
	if err != nil {
		log.Fatal(err)
	}
	out := decide.Inbound(decide.Policy{BackscatterAction: decide.ActionReject}, decide.Facts{
		Recipients: []string{"alice@example.org"},
		NullSender: true, // a report by its envelope too: only such a message is ever refused
		Report:     rep,
		Readings:   eng.Explain(rep),
		Judgement:  backscatter.Judgement{Verdict: backscatter.Yes, Evidence: backscatter.EvidenceMessageID},
	})
	fmt.Println(out.Action, len(out.Add))
	fmt.Println(out.Reply)
	// Output:
	// reject 0
	// 550 5.7.1 Rejected as backscatter: this is a bounce for a message that was not sent from here
}
