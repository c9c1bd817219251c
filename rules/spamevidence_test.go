package rules

import (
	"strings"
	"testing"
)

// A content filter that states its evidence (a score and threshold, the
// names of its tests) has it repeated in the explanation, and the names
// of its tests are not read as the refusal's reason (RDNS_NONE is one
// test among others, not a missing reverse DNS name).
func TestASpamRefusalRepeatsTheFiltersScoreAndTests(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct {
		file  string
		words []string
	}{
		{"spam-evidence-01.eml", []string{"spam score of 14.2"}},
		{"spam-evidence-02.eml", []string{"spam score of 9.8", "from 5.0", "BAYES_99,HTML_IMAGE_ONLY_16,URIBL_DBL_SPAM,RDNS_NONE"}},
		{"spam-evidence-03.eml", []string{"spam score of 12.3", "from 5.0"}},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Reason != ReasonSpamDetected || rd.Owner != OwnerSender {
			t.Errorf("%s: reason %s owner %s, want spamdetected for the sender", c.file, rd.Reason, rd.Owner)
		}
		for _, w := range c.words {
			if !strings.Contains(rd.Explanation, w) {
				t.Errorf("%s: explanation %q, want %q", c.file, rd.Explanation, w)
			}
		}
	}
	rd := explainFixture(t, e, "spam-evidence-02.eml")
	if !strings.Contains(rd.Fix, "RDNS_NONE") {
		t.Errorf("spam-evidence-02.eml: fix %q, want the tests' names as the hint", rd.Fix)
	}
	// rspamd's result, "default: True [score / required score]".
	v := e.Classify(Input{Action: "failed", Diagnostic: "554 5.7.1 Spam message rejected; default: True [16.20 / 15.00]"})
	if v.Reason != ReasonSpamDetected || v.Facts.Get(FactScore) != "16.20" || v.Facts.Get(FactThreshold) != "15.00" {
		t.Errorf("rspamd's result: %s, score %q, threshold %q", v.Reason, v.Facts.Get(FactScore), v.Facts.Get(FactThreshold))
	}
	// A reputation score is no spam score.
	v = e.Classify(Input{Action: "failed", Diagnostic: "550 5.7.1 Rejected: your sender score 12 is below our threshold of 40"})
	if v.Facts.Get(FactScore) != "" {
		t.Errorf("a reputation score read as a spam score: %q", v.Facts.Get(FactScore))
	}
}

// A URI block list (Spamhaus DBL, SURBL, URIBL) judges the links in a
// message, not the sending server: the sender removes the link, and the
// explanation names the domain. The same list checked against the sender's
// domain is not about a link.
func TestAURIBlockListRefusalIsAboutALinkInTheMessage(t *testing.T) {
	e := builtin(t)
	for file, domain := range map[string]string{
		"spam-uri-blocklist-01.eml": "cheap-pills.example",
		"spam-uri-blocklist-02.eml": "shady-offers.example",
	} {
		rd := explainFixture(t, e, file)
		if rd.Reason != ReasonSpamDetected || rd.Owner != OwnerSender {
			t.Errorf("%s: reason %s owner %s, want spamdetected for the sender", file, rd.Reason, rd.Owner)
		}
		if !strings.Contains(rd.Explanation, "link to "+domain) || strings.Contains(rd.Explanation, "address of the sending server") {
			t.Errorf("%s: explanation %q, want the link to %s, not the sending server", file, rd.Explanation, domain)
		}
		if !strings.Contains(rd.Fix, "Remove or replace the links to "+domain) {
			t.Errorf("%s: fix %q, want the link removed", file, rd.Fix)
		}
	}
	v := e.Classify(Input{Action: "failed", Command: "MAIL", Diagnostic: "554 5.7.1 Service unavailable; Sender address [promo@deals.example] blocked using dbl.spamhaus.org; https://www.spamhaus.org/query/domain/deals.example"})
	if v.Rule == "spam-uri-blocklist" || strings.Contains(v.Explanation, "link") {
		t.Errorf("a sender domain on the DBL read as a link in the message: %s, %q", v.Rule, v.Explanation)
	}
}

// Postfix names what a block list refusal looked up (postconf(5)
// default_rbl_reply, $rbl_class): the sender's domain or a name of the
// sending server is on a domain list, and the explanation says which
// (never "the address of the sending server"); the client's address stays
// the sending server's address.
func TestPostfixBlockListRefusalSaysWhatIsListed(t *testing.T) {
	e := builtin(t)
	for _, tc := range []struct{ diag, rule, says string }{
		{"554 5.7.1 Service unavailable; Sender address [promo@deals.example] blocked using dbl.spamhaus.org", "postfix-rbl-sender", "the domain of your address, deals.example, is on the block list dbl.spamhaus.org"},
		{"554 5.7.1 Service unavailable; Helo command [mail.deals.example] blocked using dbl.spamhaus.org", "postfix-rbl-name", "the name of the sending server, mail.deals.example, is on the block list dbl.spamhaus.org"},
		{"554 5.7.1 Service unavailable; Reverse client host [dyn-7.deals.example] blocked using dbl.spamhaus.org", "postfix-rbl-name", "the name of the sending server, dyn-7.deals.example,"},
		{"554 5.7.1 Service unavailable; Client host [192.0.2.9] blocked using zen.spamhaus.org", "blocked-text", "the address of the sending server (192.0.2.9) is on the block list zen.spamhaus.org"},
	} {
		v := e.Classify(Input{Action: "failed", Command: "RCPT", Diagnostic: tc.diag})
		if v.Rule != tc.rule || !strings.Contains(v.Explanation, tc.says) || v.Owner != OwnerSenderAdmin {
			t.Errorf("%q: rule %s owner %s explanation %q; want %s for the sender's admin, saying %q", tc.diag, v.Rule, v.Owner, v.Explanation, tc.rule, tc.says)
		}
	}
}
