package rules

import (
	"strings"
	"testing"

	"github.com/ndrmilter/ndrmilter/smtpcode"
)

// TestAmavisBannedNamesTheInnermostFile: amavisd-new's BANNED report
// (README.banned) lists the parts from the message down to the banned one;
// the explanation names the banned file, not the archive around it.
func TestAmavisBannedNamesTheInnermostFile(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, banned, outer string }{
		{"amavis-banned-01.eml", "invoice_scan.js", ""},
		{"amavis-banned-02.eml", "rechnung_maerz.exe", "unterlagen.zip"},
		{"amavis-banned-03.eml", "invoice.pdf.exe", ""},
		{"amavis-banned-04.eml", "pedido_0323.exe", ""},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Owner != OwnerSender || rd.Facts.Get(FactBlockedAttachment) == "" {
			t.Errorf("%s: owner %s, facts %v: want the sender's blocked attachment", c.file, rd.Owner, rd.Facts)
		}
		if got := rd.Facts.Get(FactFile); got != c.banned || !strings.Contains(rd.Explanation, c.banned) {
			t.Errorf("%s: file %q, explanation %q: want %q named", c.file, got, rd.Explanation, c.banned)
		}
		if c.outer != "" && strings.Contains(rd.Explanation, c.outer) {
			t.Errorf("%s: explanation %q names the archive %q, not the banned file", c.file, rd.Explanation, c.outer)
		}
	}
}

// TestForwardPipeFailureNamesTheRecipientsProgram: a Sendmail pipe of the
// recipient's .forward or alias that smrsh refuses or the shell cannot
// find (smrsh(8), op.me) is the recipient's server's failure: the
// explanation says so and names the program, the owner is the recipient's
// admin.
func TestForwardPipeFailureNamesTheRecipientsProgram(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, program string }{
		{"sendmail-forward-pipe-01.eml", "/usr/local/bin/vacation-reply"},
		{"sendmail-forward-pipe-02.eml", "/usr/bin/procmail"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Owner != OwnerRecipientAdmin {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerRecipientAdmin)
		}
		if rd.Facts.Get(FactProgram) != c.program {
			t.Errorf("%s: program %q, want %q", c.file, rd.Facts.Get(FactProgram), c.program)
		}
		for _, w := range []string{c.program, ".forward", "recipient's mail server"} {
			if !strings.Contains(rd.Explanation, w) {
				t.Errorf("%s: explanation %q lacks %q", c.file, rd.Explanation, w)
			}
		}
	}
	// The program from the smrsh and shell lines alone.
	for _, c := range []struct{ notice, program string }{
		{`smrsh: "autoresp" not available for sendmail programs (stat failed)`, "autoresp"},
		{"sh: /usr/bin/procmail: not found", "/usr/bin/procmail"},
	} {
		cl := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "5.0.0", DiagnosticType: "x-unix", Diagnostic: "69", Notice: c.notice})
		if cl.Facts.Get(FactProgram) != c.program || !strings.Contains(cl.Explanation, c.program) {
			t.Errorf("%q: program %q, explanation %q: want %q named", c.notice, cl.Facts.Get(FactProgram), cl.Explanation, c.program)
		}
	}
}

// TestInternalFilterHopIsNotNamedAsTheRemoteServer: a refusal relayed by a
// content filter or relay on a loopback or private address (RFC 6890) does
// not name that address as the receiving server.
func TestInternalFilterHopIsNotNamedAsTheRemoteServer(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, hop string }{
		{"loopback-filter-hop-01.eml", "127.0.0.1"},
		{"loopback-filter-hop-02.eml", "10.20.0.15"},
		{"loopback-filter-hop-03.eml", "localhost"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Explanation == "" || strings.Contains(rd.Explanation, c.hop) || strings.Contains(rd.Explanation, " by ") {
			t.Errorf("%s: explanation %q names the internal hop %s", c.file, rd.Explanation, c.hop)
		}
	}
	for _, c := range []struct {
		remote string
		named  bool
	}{
		{"127.0.0.1", false}, {"dns; 127.0.0.1", false}, {"[127.0.0.1]", false}, {"::1", false}, {"[::1]:10025", false},
		{"10.1.2.3", false}, {"172.16.5.4", false}, {"192.168.1.20", false}, {"100.64.0.7", false}, {"fd00::25", false},
		{"169.254.10.1", false}, {"localhost", false},
		{"mx.example.net", true}, {"198.51.100.40", true}, {"2001:db8::25", true},
	} {
		if got := namedRemote(c.remote); (got != "") != c.named {
			t.Errorf("namedRemote(%q) = %q, named %v", c.remote, got, c.named)
		}
	}
}

// TestSendingDomainIsNamed: Microsoft's 5.7.515 and 5.7.509 name the
// sending domain ("Access denied, sending domain [contoso.com] doesn't meet
// the required authentication level"); the explanation names it rather
// than saying only "your domain".
func TestSendingDomainIsNamed(t *testing.T) {
	e := builtin(t)
	for _, c := range []struct{ file, domain string }{
		{"ms-sending-domain-auth-01.eml", "lanternmarket.example"},
		{"ms-sending-domain-auth-02.eml", "mossvale-tours.example"},
		{"ms-sending-domain-auth-03.eml", "quillbrook.example"},
	} {
		rd := explainFixture(t, e, c.file)
		if rd.Owner != OwnerSenderAdmin {
			t.Errorf("%s: owner %s, want %s", c.file, rd.Owner, OwnerSenderAdmin)
		}
		if rd.Facts.Get(FactSenderDomain) != c.domain || !strings.Contains(rd.Explanation, c.domain) {
			t.Errorf("%s: sender_domain %q, explanation %q: want %q named", c.file, rd.Facts.Get(FactSenderDomain), rd.Explanation, c.domain)
		}
	}
	c := e.Classify(Input{Action: smtpcode.ActionFailed, Status: "5.7.515", Diagnostic: "550 5.7.515 Access denied, sending domain [contoso.com] doesn't meet the required authentication level."})
	if !strings.Contains(c.Explanation, "contoso.com") || !strings.Contains(c.Fix, "contoso.com") {
		t.Errorf("explanation %q, fix %q: want contoso.com named", c.Explanation, c.Fix)
	}
}
