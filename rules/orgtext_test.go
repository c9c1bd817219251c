package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/dsn"
)

const transportRuleReply = "550 5.7.1 TRANSPORT.RULES.RejectMessage; the message was rejected by organization policy"

// exchangeNotice is the part for the sender of an Exchange NDR, with para
// under the recipient.
func exchangeNotice(heading, para string) string {
	return "Delivery has failed to these recipients or groups:\n\nOwen Hale (o.hale@corp.example)\n" + para +
		"\n\n\n\n\n" + heading + ":\n\nGenerating server: EX01.corp.example\n\no.hale@corp.example\nRemote Server returned '" + transportRuleReply + "'\n"
}

func TestATransportRuleRejectionQuotesTheOrganisationsOwnText(t *testing.T) {
	for name, tc := range map[string]struct {
		diag, notice, want string
	}{
		"french text in the part for the sender": {transportRuleReply,
			exchangeNotice("Informations de diagnostic pour les administrateurs", "Les fichiers ZIP protégés par mot de passe sont refusés.\nMerci d'envoyer un PDF."),
			"Les fichiers ZIP protégés par mot de passe sont refusés. Merci d'envoyer un PDF."},
		// Exchange Online's newest layout (seed 001): the cause paragraph
		// under "Your message to X couldn't be delivered.", before "More
		// info for email admins".
		"exchange online's newest layout": {transportRuleReply,
			"Your message to o.hale@corp.example couldn't be delivered.\n\nEncrypted attachments are not accepted. Please use our upload portal.\n\nsender\tOffice 365\to.hale\nAction Required\t\t\tRecipient\n\nMore Info for Email Admins\nStatus code: 550 5.7.1\n",
			"Encrypted attachments are not accepted. Please use our upload portal."},
		"japanese heading": {transportRuleReply, exchangeNotice("管理者向けの診断情報", "パスワード付きZIPファイルは受信できません。"), "パスワード付きZIPファイルは受信できません。"},
		"the rule's own text in the reply": {"550 5.7.1 TRANSPORT.RULES.RejectMessage; Executable attachments are not accepted here, send a link", "",
			"Executable attachments are not accepted here, send a link"},
		"control characters go": {transportRuleReply, exchangeNotice("Diagnostic information for administrators", "No\x1b[31m macros\x00 please."), "No [31m macros please."},
		"exchange's own sentence is no text of the organisation": {transportRuleReply,
			exchangeNotice("Diagnostic information for administrators", "Your message wasn't delivered because of security policies. Microsoft Exchange will not try to redeliver this message for you."), ""},
		"exchange online's own sentence": {transportRuleReply,
			exchangeNotice("Diagnostic information for administrators", "A custom mail flow rule created by an admin at corp.example has blocked your message."), ""},
		"no exchange layout": {transportRuleReply, "Delivery failed.\n\no.hale@corp.example\nSome words.\n", ""},
		// A rule's default reply with the organisation's custom NDR text
		// for the sender (New-SystemMessage -DsnCode 5.7.1): the text.
		"a rule's default reply under the organisation's paragraph": {"550 5.7.1 Delivery not authorized, message refused",
			exchangeNotice("Diagnostic information for administrators", "Please send PDF files only."), "Please send PDF files only."},
		"a rule's default reply under exchange's own sentence": {"550 5.7.1 Delivery not authorized, message refused",
			exchangeNotice("Diagnostic information for administrators", "You do not have permission to send to this recipient. For assistance, contact your system administrator."), ""},
		"a rule's default reply without exchange's layout": {"550 5.7.1 Delivery not authorized, message refused",
			"Delivery failed.\n\no.hale@corp.example\nPlease send PDF files only.\n", ""},
		"no transport rule": {"550 5.7.1 Recipient address rejected: Access denied",
			exchangeNotice("Diagnostic information for administrators", "Please send PDF files only."), ""},
	} {
		if got := organisationText(tc.diag, tc.notice, "o.hale@corp.example"); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
	long := organisationText(transportRuleReply, exchangeNotice("Diagnostic information for administrators", strings.Repeat("Send PDF files only. ", 100)), "o.hale@corp.example")
	if len(long) > maxOrgText+len("...") || !strings.HasSuffix(long, "...") {
		t.Errorf("a long text is %d bytes (%q), want it cut at %d", len(long), long[max(0, len(long)-20):], maxOrgText)
	}
}

func TestATransportRuleRejectionWithTheOrganisationsTextSaysToFollowIt(t *testing.T) {
	e := builtin(t)
	rc := dsn.Recipient{Address: "o.hale@corp.example", Action: "failed", Status: "5.7.1", Diagnostic: transportRuleReply}
	with := &dsn.Report{Kind: dsn.KindBounce, Recipients: []dsn.Recipient{rc},
		Notice: exchangeNotice("Diagnostic information for administrators", "Password-protected ZIP files are refused. Send unencrypted PDF files.")}
	rd := e.Explain(with)[0]
	if rd.Reason != ReasonPolicyViolation || !strings.Contains(rd.Explanation, `"Password-protected ZIP files are refused. Send unencrypted PDF files."`) ||
		!strings.Contains(rd.Fix, "Follow the receiving organization's instruction") {
		t.Errorf("reason %s, explanation %q, fix %q: want the organisation's text quoted and the fix to follow it", rd.Reason, rd.Explanation, rd.Fix)
	}
	without := &dsn.Report{Kind: dsn.KindBounce, Recipients: []dsn.Recipient{rc}}
	rd = e.Explain(without)[0]
	if rd.Reason != ReasonPolicyViolation || !strings.Contains(rd.Explanation, "breaks a rule of the receiving organization") || strings.Contains(rd.Fix, "quoted above") {
		t.Errorf("reason %s, explanation %q, fix %q: want the general words", rd.Reason, rd.Explanation, rd.Fix)
	}
}

// TestPrecedenceTransportRuleBeforePolicyText: doc.go principle 6, the more
// specific phrase first: Exchange's transport rule marker decides before
// policy-text's general "the message was rejected by organization policy",
// with the same reason and words that can quote the organisation.
func TestPrecedenceTransportRuleBeforePolicyText(t *testing.T) {
	checkConflicts(t, []conflict{{name: "transport rule marker beats the general policy phrase",
		in:     Input{Status: "5.7.1", Diagnostic: transportRuleReply, Command: "DATA"},
		winner: "exchange-transport-rule-reject", reason: ReasonPolicyViolation,
		loser: "policy-text", lost: ReasonPolicyViolation}})
}

func TestTheOrganisationsTextIsReadFromExchangeNDRsInTextAndHTML(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"transport-rule-text-01.eml": "Les fichiers ZIP protégés par mot de passe sont refusés",
		"transport-rule-text-02.eml": "Nachrichten mit Makro-Dokumenten",
		"transport-rule-text-04.eml": "Les fichiers ZIP protégés par mot de passe sont refusés",
		"transport-rule-text-03.eml": "", // Exchange's own sentence only
	} {
		rd := explainFixture(t, e, file)
		got := rd.Facts.Get(FactOrgText)
		if want == "" && got != "" || !strings.HasPrefix(got, want) || want != "" && !strings.Contains(rd.Explanation, want) {
			t.Errorf("%s: org_text %q, explanation %q, want %q quoted", file, got, rd.Explanation, want)
		}
	}
}

func TestACustomRuleCodeOrARepeated571IsTheOrganisationsOwnText(t *testing.T) {
	layout := func(para string) string {
		return "Delivery has failed to these recipients or groups:\n\nOwen Hale (o.hale@corp.example)\n" + para +
			"\n\n\n\nDiagnostic information for administrators:\n\nGenerating server: EX01.corp.example\n"
	}
	const fr = "Les pièces jointes compressées ne sont pas acceptées. Utilisez notre portail https://depot.corp.example."
	for name, tc := range map[string]struct {
		diag, notice, want string
	}{
		"a 5.7.9xx code's own text":                {"550 5.7.901 " + fr, "", fr},
		"exchange online's server stamp goes":      {"550 5.7.950 Send PDF files only. [AM4PEPF00027A6C.eurprd04.prod.outlook.com 2025-03-24T10:00:02.871Z 08DD6A1B]", "", "Send PDF files only."},
		"the default text: the notice's paragraph": {"550 5.7.999 Delivery not authorized, message refused", layout(fr), fr},
		"the default text and no layout":           {"550 5.7.999 Delivery not authorized, message refused", "", ""},
		"a 5.7.1 that the NDR repeats":             {"550 5.7.1 " + fr, layout(fr), fr},
		"a 5.7.1 under exchange's own sentence": {"550 5.7.1 Message rejected as spam by Content Filtering.",
			layout("Your message wasn't delivered due to a permission or security issue."), ""},
		"a 5.7.1 the paragraph does not repeat":   {"550 5.7.1 Client host rejected: cannot find your hostname", layout(fr), ""},
		"a 5.7.1 without an exchange NDR":         {"550 5.7.1 " + fr, "", ""},
		"a code below the range":                  {"550 5.7.899 " + fr, "", ""},
		"a code of another class":                 {"550 5.2.901 " + fr, "", ""},
		"control characters of a 5.7.9xx text go": {"550 5.7.920 No\x1b[31m macros\x00 please.", "", "No [31m macros please."},
	} {
		if got := organisationText(tc.diag, tc.notice, "o.hale@corp.example"); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

func TestTheRecipientOrganisationsOwnRuleIsQuotedForTheSenderToFollow(t *testing.T) {
	e := builtin(t)
	for file, want := range map[string]string{
		"transport-rule-code-01.eml": "Les pièces jointes compressées (ZIP, RAR, 7z) ne sont pas acceptées",
		"transport-rule-code-02.eml": "Macro-enabled Office documents are not accepted by Tailwind Traders",
		"transport-rule-code-03.eml": "Komprimierte Anhänge nehmen wir nicht an",
		"transport-rule-code-05.eml": "Compressed attachments (ZIP, RAR) are not accepted by Fabrikam Legal",
	} {
		rd := explainFixture(t, e, file)
		if !strings.HasPrefix(rd.Facts.Get(FactOrgText), want) || !strings.Contains(rd.Explanation, "set up itself, which explains: \""+want) {
			t.Errorf("%s: org_text %q, explanation %q: want %q quoted as the organisation's own rule", file, rd.Facts.Get(FactOrgText), rd.Explanation, want)
		}
		if strings.Contains(rd.Explanation, "outlook.com 20") {
			t.Errorf("%s: explanation %q quotes Exchange Online's server stamp", file, rd.Explanation)
		}
		if rd.Owner != OwnerSender || !strings.HasPrefix(rd.Fix, "Follow the organization's instruction") || !strings.Contains(rd.Fix, "ask the recipient") {
			t.Errorf("%s: owner %s, fix %q: want the sender to follow the instruction, or ask the recipient", file, rd.Owner, rd.Fix)
		}
	}
	rd := explainFixture(t, e, "transport-rule-code-04.eml") // a custom code, Exchange's default text
	if rd.Reason != ReasonPolicyViolation || rd.Facts.Get(FactOrgText) != "" || !strings.Contains(rd.Explanation, "set up itself; the rule gave no explanation") {
		t.Errorf("default text: reason %s, org_text %q, explanation %q: want the organisation's rule, nothing quoted", rd.Reason, rd.Facts.Get(FactOrgText), rd.Explanation)
	}
	rd = explainFixture(t, e, "transport-rule-code-06.eml") // a 5.7.1 under Exchange's own sentence
	if rd.Facts.Get(FactOrgText) != "" || strings.Contains(rd.Explanation, "set up itself") {
		t.Errorf("exchange's own sentence: org_text %q, explanation %q: want no text of the organisation", rd.Facts.Get(FactOrgText), rd.Explanation)
	}
}

// TestPrecedenceCustomRuleCodeBeforePhrases: doc.go, a specific code
// before phrases: 5.7.900-5.7.999 is an organisation's own transport rule
// whatever words its text holds ("virus" would read as malware).
func TestPrecedenceCustomRuleCodeBeforePhrases(t *testing.T) {
	checkConflicts(t, []conflict{{name: "a custom rule code beats the virus phrase of its own text",
		in:     Input{Status: "5.7.905", Diagnostic: "550 5.7.905 Archives may hide a virus: please send PDF files only", Command: "DATA"},
		winner: "exchange-transport-rule-code", reason: ReasonPolicyViolation,
		loser: "virus-text", lost: ReasonVirusDetected}})
}

// TestARulesDefaultRefusalUnderTheOrganisationsTextSaysToFollowIt: an
// Exchange NDR whose reply is a transport rule's default "5.7.1 Delivery
// not authorized, message refused" and whose part for the sender carries
// the organisation's own text (a custom NDR text) quotes that text and
// tells the sender to follow it, not "changing the message will not help".
func TestARulesDefaultRefusalUnderTheOrganisationsTextSaysToFollowIt(t *testing.T) {
	e := builtin(t)
	for file, says := range map[string]string{
		"transport-rule-system-message-01.eml": "Please remove the password protection, or use our upload portal",
		"transport-rule-system-message-02.eml": "Please send them through the secure message centre",
	} {
		r := parseFixture(t, file)
		rds := e.Explain(r)
		if len(rds) != 1 {
			t.Fatalf("%s: %d readings, want 1", file, len(rds))
		}
		rd := rds[0]
		if !strings.Contains(rd.Explanation, says) || !strings.Contains(rd.Fix, "Follow the organization's instruction") || rd.Owner != OwnerSender {
			t.Errorf("%s: owner %s, explanation %q, fix %q; want the organisation's words quoted and followed by the sender", file, rd.Owner, rd.Explanation, rd.Fix)
		}
		if strings.Contains(rd.Fix, "Changing the message will not help") {
			t.Errorf("%s: fix %q", file, rd.Fix)
		}
	}
}

// parseFixture parses a message of internal/testdata/bounces/eml.
func parseFixture(t *testing.T, file string) *dsn.Report {
	t.Helper()
	b, err := os.ReadFile("../internal/testdata/bounces/eml/" + file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := dsn.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
